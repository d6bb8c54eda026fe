// utf8.cpp — decoding one UTF-8 character, writing one, and finding the first invalid byte (see utf8.h).
#include "util/utf8.h"

namespace attnlab {

DecodedCharacter decode_utf8(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return {lead, 1};
  // From the lead byte: the length, its payload bits, and the smallest code point that needs this many bytes
  // (anything smaller written this way is overlong).
  size_t length = 0;
  char32_t code_point = 0;
  char32_t smallest = 0;
  if ((lead & 0xE0) == 0xC0) {         // 110xxxxx
    length = 2;
    code_point = lead & 0x1F;
    smallest = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {  // 1110xxxx
    length = 3;
    code_point = lead & 0x0F;
    smallest = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {  // 11110xxx
    length = 4;
    code_point = lead & 0x07;
    smallest = 0x10000;
  } else {
    return {};  // a continuation byte 10xxxxxx, or 0xF8 … 0xFF, cannot start a character
  }
  if (at + length > text.size()) return {};
  for (size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xC0) != 0x80) return {};
    code_point = (code_point << 6) | (next & 0x3F);
  }
  if (code_point < smallest || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return {};
  return {code_point, length};
}

void append_utf8(std::string& out, char32_t code_point) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

size_t first_invalid_utf8(std::string_view text, size_t from) {
  size_t at = from;
  while (at < text.size()) {
    if (static_cast<unsigned char>(text[at]) < 0x80) {  // fast path: ASCII
      ++at;
      continue;
    }
    DecodedCharacter character = decode_utf8(text, at);
    if (character.length == 0) return at;
    at += character.length;
  }
  return std::string_view::npos;
}

std::string escape_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    const size_t bad = first_invalid_utf8(text, at);
    out.append(text.substr(at, bad == std::string_view::npos ? std::string_view::npos : bad - at));
    if (bad == std::string_view::npos) break;
    static const char hex[] = "0123456789ABCDEF";
    const auto byte = static_cast<unsigned char>(text[bad]);
    out += "\\x";
    out += hex[byte >> 4];
    out += hex[byte & 15];
    at = bad + 1;
  }
  return out;
}

}  // namespace attnlab
