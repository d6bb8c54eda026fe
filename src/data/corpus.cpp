// corpus.cpp — reading parallel text files (see corpus.h for the rules), and the UTF-8 helpers they need.
//
// UTF-8 decoding and validation live in src/util/utf8.h.
#include "data/corpus.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "util/error.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {


constexpr char32_t replacement_character = 0xFFFD;

// Unicode's White_Space property.
bool is_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The simple lower-case mapping for the letters lowercase() covers (corpus.h); every other character maps to itself.
char32_t lowercase_letter(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 0x20;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;  // À…Þ → à…þ, except × (U+00D7)
  if (c == 0x130) return 'i';                                 // İ → i
  if (c == 0x178) return 0xFF;                                // Ÿ → ÿ
  if (c == 0x1E9E) return 0xDF;                               // ẞ → ß
  // Latin Extended-A pairs each capital with the next code point. From Ā (U+0100) to ķ and from Ŋ to ŷ the
  // capitals are the even code points (Œ U+0152 → œ U+0153); from Ĺ to ň and from Ź to ž they are the odd ones.
  if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c | 1;
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
  return c;
}

std::string hex_byte(unsigned char byte) {
  const char* digits = "0123456789ABCDEF";
  return std::string("0x") + digits[byte >> 4] + digits[byte & 0xF];
}

std::string read_whole_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(path, error)) throw Error(path + " is a directory, not a text file");
  // stdio, not iostreams: `out << in.rdbuf()` catches an allocation that fails mid-copy and only sets failbit, so
  // a corpus read while memory ran out came back cut short, silently (tests/run/alloc_failure/). Here
  // std::bad_alloc escapes as itself.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::string bytes;
  std::array<char, 1 << 16> chunk;
  size_t got = 0;
  while ((got = std::fread(chunk.data(), 1, chunk.size(), file.get())) > 0) bytes.append(chunk.data(), got);
  if (std::ferror(file.get())) throw Error("cannot read " + path + ": " + std::strerror(errno));
  return bytes;
}

// Adds one pair with its spaces normalised, or counts it as skipped when a side is empty.
void add_pair(ParallelText& text, std::string_view src, std::string_view tgt) {
  std::string source = normalize_spaces(src);
  std::string target = normalize_spaces(tgt);
  if (source.empty() || target.empty()) {
    ++text.empty_skipped;
    return;
  }
  text.src.push_back(std::move(source));
  text.tgt.push_back(std::move(target));
}

}  // namespace



// ---- Text helpers ----

std::vector<std::string> read_lines(const std::string& path) {
  const std::string bytes = read_whole_file(path);
  const size_t start = bytes.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a byte-order mark, as Windows editors write

  const size_t bad = first_invalid_utf8(bytes, start);
  if (bad != std::string::npos) {
    const size_t line = 1 + std::count(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    const size_t line_start = bad == 0 ? 0 : bytes.rfind('\n', bad - 1) + 1;  // npos + 1 == 0 on the first line
    throw Error(path + ":" + std::to_string(line) + ": invalid UTF-8 at byte " + std::to_string(bad - line_start + 1) +
                " (" + hex_byte(static_cast<unsigned char>(bytes[bad])) +
                "); attnlab reads text as UTF-8 — convert the file first, e.g. iconv -f latin1 -t utf-8");
  }

  std::vector<std::string> lines;
  size_t at = start;
  while (at < bytes.size()) {
    size_t end = bytes.find('\n', at);
    if (end == std::string::npos) end = bytes.size();  // a last line without a line end
    size_t length = end - at;
    if (length > 0 && bytes[end - 1] == '\r') --length;  // CRLF
    lines.emplace_back(bytes, at, length);
    at = end + 1;
  }
  return lines;
}

std::string normalize_spaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space_pending = false;  // a space is written only once the next non-space arrives: runs collapse, ends trim
  size_t at = 0;
  while (at < text.size()) {
    DecodedCharacter character = decode_utf8(text, at);
    size_t length = character.length == 0 ? 1 : character.length;  // an invalid byte is copied as it is
    if (character.length != 0 && is_space(character.code_point)) {
      space_pending = true;
    } else {
      if (space_pending && !out.empty()) out.push_back(' ');
      space_pending = false;
      out.append(text.substr(at, length));
    }
    at += length;
  }
  return out;
}

std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    DecodedCharacter character = decode_utf8(text, at);
    if (character.length == 0) {  // an invalid byte is copied as it is
      out.push_back(text[at]);
      ++at;
      continue;
    }
    append_utf8(out, lowercase_letter(character.code_point));
    at += character.length;
  }
  return out;
}

std::vector<std::string> utf8_characters(std::string_view text) {
  std::vector<std::string> characters;
  size_t at = 0;
  while (at < text.size()) {
    DecodedCharacter character = decode_utf8(text, at);
    if (character.length == 0) {
      characters.emplace_back();
      append_utf8(characters.back(), replacement_character);
      ++at;
    } else {
      characters.emplace_back(text.substr(at, character.length));
      at += character.length;
    }
  }
  return characters;
}

// ---- Parallel text ----

ParallelText read_parallel(const std::string& src_path, const std::string& tgt_path) {
  const std::vector<std::string> src_lines = read_lines(src_path);
  const std::vector<std::string> tgt_lines = read_lines(tgt_path);
  if (src_lines.size() != tgt_lines.size()) {
    throw Error(src_path + " has " + std::to_string(src_lines.size()) + " lines but " + tgt_path + " has " +
                std::to_string(tgt_lines.size()) + "; line i of one file must translate line i of the other");
  }
  ParallelText text;
  text.description = src_path + " + " + tgt_path;
  text.src.reserve(src_lines.size());
  text.tgt.reserve(tgt_lines.size());
  for (size_t i = 0; i < src_lines.size(); ++i) add_pair(text, src_lines[i], tgt_lines[i]);
  return text;
}

ParallelText read_tsv(const std::string& path) {
  const std::vector<std::string> lines = read_lines(path);
  ParallelText text;
  text.description = path;
  text.src.reserve(lines.size());
  text.tgt.reserve(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) {
      if (normalize_spaces(line).empty()) {  // a blank line: an empty pair, not a malformed one
        ++text.empty_skipped;
        continue;
      }
      throw Error(path + ":" + std::to_string(i + 1) +
                  ": no TAB in this line; a TSV corpus has \"source<TAB>target\" on every line");
    }
    const size_t next_tab = line.find('\t', tab + 1);  // columns after the second are ignored
    const size_t target_end = next_tab == std::string_view::npos ? line.size() : next_tab;
    add_pair(text, line.substr(0, tab), line.substr(tab + 1, target_end - tab - 1));
  }
  return text;
}

ParallelText load_split(const DataConfig& config, const std::string& split) {
  const std::string* src = nullptr;
  const std::string* tgt = nullptr;
  const std::string* tsv = nullptr;
  if (split == "train") {
    src = &config.train_src, tgt = &config.train_tgt, tsv = &config.train_tsv;
  } else if (split == "valid") {
    src = &config.valid_src, tgt = &config.valid_tgt, tsv = &config.valid_tsv;
  } else if (split == "test") {
    src = &config.test_src, tgt = &config.test_tgt, tsv = &config.test_tsv;
  } else {
    throw Error("load_split: unknown split \"" + split + "\" (expected train, valid or test)");
  }

  const std::string key = "data." + split + "_";
  if (!tsv->empty() && (!src->empty() || !tgt->empty())) {
    throw Error(key + "tsv and " + key + "src / " + key + "tgt are all set; give the " + split +
                " text one way: one TSV file or two line-aligned files");
  }
  if (src->empty() != tgt->empty()) {
    const std::string missing = src->empty() ? "src" : "tgt";
    const std::string present = src->empty() ? "tgt" : "src";
    throw Error(key + missing + " is empty but " + key + present + " is set; line-aligned text needs both files");
  }

  ParallelText text;
  if (!tsv->empty()) {
    text = read_tsv(*tsv);
  } else if (!src->empty()) {
    text = read_parallel(*src, *tgt);
  } else if (split == "train") {
    throw Error("no training text: set data.train_src and data.train_tgt (two line-aligned files) "
                "or data.train_tsv (one \"source<TAB>target\" file)");
  } else {
    text.description = "no " + split + " text configured";
    return text;
  }

  if (config.lowercase) {
    for (std::string& sentence : text.src) sentence = lowercase(sentence);
    for (std::string& sentence : text.tgt) sentence = lowercase(sentence);
  }
  spdlog::info("{} text: {} pairs from {}{}", split, text.src.size(), text.description,
               text.empty_skipped > 0 ? " (" + std::to_string(text.empty_skipped) + " with an empty side skipped)"
                                      : std::string());
  return text;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
