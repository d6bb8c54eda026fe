// quote.cpp — a value in quotes, cut at a character boundary when it is long (see quote.h).
#include "util/quote.h"

namespace attnlab {

std::string shorten(std::string_view text, size_t most) {
  if (text.size() <= most) return std::string(text);
  size_t cut = most;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return std::string(text.substr(0, cut)) + "…";
}

std::string quote(std::string_view text, char mark, size_t most) {
  const std::string length = text.size() > most ? " (" + std::to_string(text.size()) + " bytes)" : "";
  return mark + shorten(text, most) + mark + length;
}

std::string library_reason(std::string_view what, size_t most) {
  const size_t tag_end = what.starts_with('[') ? what.find("] ") : std::string_view::npos;
  if (tag_end != std::string_view::npos) what.remove_prefix(tag_end + 2);
  return shorten(what, most);
}

}  // namespace attnlab
