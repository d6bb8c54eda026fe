// alignment.cpp — word alignments as text: the Pharaoh lines of FILE.align and the tag lines of FILE.tags
// (alignment.h describes both formats).
//
// A line is a list of space-separated items; each item is checked on its own (is it a link, are its indices
// inside the pair) and then the whole line (no link twice). Reading a file adds one more check: one line per
// sentence pair, so that line k can never be taken for the alignment of pair k + 1.
//     "0-0 2-1 1?3"   →   sure {0-0, 2-1}, possible {1-3}      (sorted by source, then target)
//     "negation@2,4"  →   {"negation", {2, 4}}
#include "data/alignment.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "data/corpus.h"
#include "util/error.h"
#include "util/files.h"
#include "util/quote.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The items of a line: its space-separated pieces (tabs count as spaces; runs and ends are ignored).
std::vector<std::string_view> items_of(std::string_view line) {
  std::vector<std::string_view> items;
  size_t at = 0;
  while (at < line.size()) {
    size_t end = line.find_first_of(" \t", at);
    if (end == std::string_view::npos) end = line.size();
    if (end > at) items.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  return items;
}

// A 0-based word index at the start of `text`, consumed from it; -1 when `text` does not start with a digit.
// A number above 10⁹ reads as 10⁹, outside any pair (a sentence has at most a few thousand words), never as an
// overflowed one.
int64_t take_index(std::string_view& text) {
  constexpr int64_t ceiling = 1000000000;
  size_t digits = 0;
  int64_t value = 0;
  for (; digits < text.size() && text[digits] >= '0' && text[digits] <= '9'; ++digits) {
    value = std::min(value * 10 + (text[digits] - '0'), ceiling);
  }
  text.remove_prefix(digits);
  return digits == 0 ? -1 : value;
}

// "source word 7, but the source has 5 words (0 to 4)"
std::string outside(const char* side, int64_t index, int64_t words) {
  return std::string(side) + " word " + std::to_string(index) + ", but the " + side + " has " +
         std::to_string(words) + (words == 1 ? " word" : " words") +
         (words > 0 ? " (0 to " + std::to_string(words - 1) + ")" : "");
}

// The number of space-separated words of a sentence.
int64_t word_count(const std::string& sentence) { return static_cast<int64_t>(items_of(sentence).size()); }

// The lines of an alignment or tag file, one per sentence pair; `pairs` is the corpus's count.
std::vector<std::string> lines_for_pairs(const std::string& path, size_t pairs) {
  if (!path_exists(path)) {
    throw Error(path + ": no such file; `attnlab corpus` writes the gold alignments (.align) and phenomena "
                "(.tags) beside the corpus it generates (toy-en-fr, copy, reverse, sort)");
  }
  std::vector<std::string> lines = read_lines(path);
  if (lines.size() != pairs) {
    throw Error(path + " has " + std::to_string(lines.size()) + " lines, but the corpus has " +
                std::to_string(pairs) + " sentence pairs; the file needs one line per pair, in the same order (an "
                "empty line for a pair with nothing to list)");
  }
  return lines;
}

}  // namespace

std::string format_alignment(const Alignment& alignment) {
  std::vector<std::pair<AlignmentLink, char>> links;   // the link and its separator: '-' sure, '?' possible
  for (const AlignmentLink& link : alignment.sure) links.push_back({link, '-'});
  for (const AlignmentLink& link : alignment.possible) links.push_back({link, '?'});
  std::sort(links.begin(), links.end());
  std::string line;
  for (const auto& [link, separator] : links) {
    if (!line.empty()) line += ' ';
    line += std::to_string(link.source) + separator + std::to_string(link.target);
  }
  return line;
}

Alignment parse_alignment(std::string_view line, int64_t source_words, int64_t target_words, const std::string& where) {
  struct Item {
    AlignmentLink link;
    bool sure;
    std::string_view text;
  };
  std::vector<Item> items;
  for (std::string_view text : items_of(line)) {
    std::string_view rest = text;
    const int64_t i = take_index(rest);
    const char separator = rest.empty() ? '\0' : rest.front();
    if (!rest.empty()) rest.remove_prefix(1);
    const int64_t j = take_index(rest);
    if (i < 0 || (separator != '-' && separator != '?') || j < 0 || !rest.empty()) {
      throw Error(where + ": " + quote(text) + " is not a link; a link is i-j (sure) or i?j (possible), two "
                  "0-based word indices, source first");
    }
    if (i >= source_words || j >= target_words) {
      throw Error(where + ": the link " + quote(text) + " names " +
                  (i >= source_words ? outside("source", i, source_words) : outside("target", j, target_words)));
    }
    items.push_back({{static_cast<int32_t>(i), static_cast<int32_t>(j)}, separator == '-', text});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.link < b.link; });
  Alignment alignment;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k > 0 && items[k].link == items[k - 1].link) {
      throw Error(where + ": the link " + std::to_string(items[k].link.source) + "-" +
                  std::to_string(items[k].link.target) + " is given twice (" + quote(items[k - 1].text) + " and " +
                  quote(items[k].text) + "); list each link once, as sure (i-j) or as possible (i?j)");
    }
    (items[k].sure ? alignment.sure : alignment.possible).push_back(items[k].link);
  }
  return alignment;
}

std::string format_tags(const std::vector<PhenomenonTag>& tags) {
  std::string line;
  for (const PhenomenonTag& tag : tags) {
    if (!line.empty()) line += ' ';
    line += tag.name + '@';
    for (size_t k = 0; k < tag.target_words.size(); ++k) {
      line += (k > 0 ? "," : "") + std::to_string(tag.target_words[k]);
    }
  }
  return line;
}

std::vector<PhenomenonTag> parse_tags(std::string_view line, int64_t target_words, const std::string& where) {
  std::vector<PhenomenonTag> tags;
  std::set<std::string> names;
  for (std::string_view text : items_of(line)) {
    const size_t at = text.find('@');
    const std::string_view name = text.substr(0, std::min(at, text.size()));
    const bool name_ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
    std::string_view rest = at == std::string_view::npos ? std::string_view() : text.substr(at + 1);
    PhenomenonTag tag{std::string(name), {}};
    bool list_ok = name_ok && at != std::string_view::npos;
    while (list_ok) {
      const int64_t j = take_index(rest);
      if (j < 0) list_ok = false;
      if (j >= target_words) {
        throw Error(where + ": the tag " + quote(text) + " names " + outside("target", j, target_words));
      }
      if (j >= 0) tag.target_words.push_back(static_cast<int32_t>(j));
      if (rest.empty() || rest.front() != ',') break;
      rest.remove_prefix(1);
    }
    if (!list_ok || !rest.empty()) {
      throw Error(where + ": " + quote(text) + " is not a tag; a tag is name@j,k,… — a name of letters, digits "
                  "and _, then the 0-based target word indices it concerns, separated by commas");
    }
    std::sort(tag.target_words.begin(), tag.target_words.end());
    if (std::adjacent_find(tag.target_words.begin(), tag.target_words.end()) != tag.target_words.end()) {
      throw Error(where + ": the tag " + quote(text) + " lists a target word twice");
    }
    if (!names.insert(tag.name).second) {
      throw Error(where + ": the tag " + quote(tag.name) + " is given twice; list all its words in one tag");
    }
    tags.push_back(std::move(tag));
  }
  return tags;
}

std::vector<Alignment> read_alignments(const std::string& path, const std::vector<std::string>& source,
                                       const std::vector<std::string>& target) {
  if (source.size() != target.size()) {
    throw Error("read_alignments: the corpus has " + std::to_string(source.size()) + " source and " +
                std::to_string(target.size()) + " target sentences; they must be line-aligned");
  }
  const std::vector<std::string> lines = lines_for_pairs(path, source.size());
  std::vector<Alignment> alignments;
  alignments.reserve(lines.size());
  for (size_t k = 0; k < lines.size(); ++k) {
    alignments.push_back(parse_alignment(lines[k], word_count(source[k]), word_count(target[k]),
                                         path + " line " + std::to_string(k + 1)));
  }
  return alignments;
}

std::vector<std::vector<PhenomenonTag>> read_tags(const std::string& path, const std::vector<std::string>& target) {
  const std::vector<std::string> lines = lines_for_pairs(path, target.size());
  std::vector<std::vector<PhenomenonTag>> tags;
  tags.reserve(lines.size());
  for (size_t k = 0; k < lines.size(); ++k) {
    tags.push_back(parse_tags(lines[k], word_count(target[k]), path + " line " + std::to_string(k + 1)));
  }
  return tags;
}

std::string alignment_path_for(const std::string& target_path, const std::string& extension) {
  return std::filesystem::path(target_path).replace_extension(extension).string();
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
