// fuzz_alignment.cpp — the alignment and tag readers (src/data/alignment.h) on arbitrary lines and files.
//
// Feeds: the first two bytes as a pair's source and target word counts (0 … 255), the rest as one line to
//   parse_alignment and parse_tags, and as a whole .align and .tags file for a corpus of two pairs of those sizes
//   (read_alignments, read_tags: the line count, CRLF, a byte-order mark, invalid UTF-8).
// Asserts: each accepts or refuses with a short attnlab::Error (fuzz_support.h), never a crash; an accepted
//   alignment keeps alignment.h's promises — every link inside the pair, sure and possible each sorted, no link
//   twice, none both sure and possible — and format_alignment's line parses back to the same links; accepted
//   tags have sorted words inside the target, no name twice, and read back the same from format_tags.
#include <algorithm>
#include <set>

#include "data/alignment.h"
#include "fuzz_support.h"

using namespace attnlab;
using attnlab::fuzz::check;

namespace {

// A sentence of `count` words.
std::string sentence_of(int64_t count) {
  std::string sentence;
  for (int64_t k = 0; k < count; ++k) sentence += (k > 0 ? " w" : "w");
  return sentence;
}

void check_links(const std::vector<AlignmentLink>& links, int64_t source_words, int64_t target_words) {
  check(std::is_sorted(links.begin(), links.end()), "links not sorted");
  for (const AlignmentLink& link : links) {
    check(link.source >= 0 && link.source < source_words && link.target >= 0 && link.target < target_words,
          "a link outside the pair accepted: " + std::to_string(link.source) + "-" + std::to_string(link.target));
  }
}

void check_alignment(const Alignment& alignment, int64_t source_words, int64_t target_words) {
  check_links(alignment.sure, source_words, target_words);
  check_links(alignment.possible, source_words, target_words);
  std::vector<AlignmentLink> all = alignment.sure;
  all.insert(all.end(), alignment.possible.begin(), alignment.possible.end());
  std::sort(all.begin(), all.end());
  check(std::adjacent_find(all.begin(), all.end()) == all.end(), "a link given twice accepted");
  const Alignment again = parse_alignment(format_alignment(alignment), source_words, target_words, "round trip");
  check(again.sure == alignment.sure && again.possible == alignment.possible,
        "format_alignment does not read back: " + format_alignment(alignment));
}

void check_tags(const std::vector<PhenomenonTag>& tags, int64_t target_words) {
  std::set<std::string> names;
  for (const PhenomenonTag& tag : tags) {
    check(!tag.name.empty() && names.insert(tag.name).second, "an empty or repeated tag name accepted");
    check(std::is_sorted(tag.target_words.begin(), tag.target_words.end()), "tag words not sorted");
    for (int32_t word : tag.target_words) check(word >= 0 && word < target_words, "a tag word outside the target");
  }
  check(parse_tags(format_tags(tags), target_words, "round trip") == tags,
        "format_tags does not read back: " + format_tags(tags));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const int64_t source_words = data[0], target_words = data[1];
  const std::string line = fuzz::bytes_of(data + 2, size - 2);

  Alignment alignment;
  if (fuzz::refused_cleanly([&] { alignment = parse_alignment(line, source_words, target_words, "fuzz line 1"); })) {
    check_alignment(alignment, source_words, target_words);
  }
  std::vector<PhenomenonTag> tags;
  if (fuzz::refused_cleanly([&] { tags = parse_tags(line, target_words, "fuzz line 1"); })) {
    check_tags(tags, target_words);
  }

  const std::vector<std::string> source(2, sentence_of(source_words)), target(2, sentence_of(target_words));
  std::vector<Alignment> alignments;
  const std::string align_path = fuzz::scratch_file("test.align", line);
  if (fuzz::refused_cleanly([&] { alignments = read_alignments(align_path, source, target); })) {
    check(alignments.size() == 2, "an alignment file with another line count than the corpus accepted");
    for (const Alignment& read : alignments) check_alignment(read, source_words, target_words);
  }
  std::vector<std::vector<PhenomenonTag>> read_tag_lines;
  const std::string tags_path = fuzz::scratch_file("test.tags", line);
  if (fuzz::refused_cleanly([&] { read_tag_lines = read_tags(tags_path, target); })) {
    check(read_tag_lines.size() == 2, "a tag file with another line count than the corpus accepted");
    for (const std::vector<PhenomenonTag>& read : read_tag_lines) check_tags(read, target_words);
  }
  return 0;
}
