// alignment.h — word alignments: which source word each target word was translated from, as a list of links.
//
// The toy grammar (src/data/synthetic/toy_en_fr.cpp) builds every English sentence and its French translation
// from one choice of words, so it knows the true alignment of every pair it writes: the gold, against which the
// pictures of attention can be scored (alignment_error.h, `attnlab align`). The hard cases are what makes it
// interesting: an adjective that moves after its noun, "ne … pas" (two French words for one "not"), "does" with
// no French word at all, "au" for "to the".
//
// File format: Pharaoh, as fast_align and GIZA++ write it, extended for possible links (Och & Ney 2003). One line
// per sentence pair, line k of FILE.align for line k of the source and target files; on it, space-separated links
//     i-j    a sure link: source word i produced target word j
//     i?j    a possible link: i may have produced j (the truth is ambiguous: "not" ↔ "ne" and "pas")
// with 0-based word indices (words are the space-separated tokens of the corpus, the final "." included), the
// source index first, sorted by (i, j), each link at most once. An empty line: no link (every target word
// unaligned). Sure links are possible too (S ⊆ P): a link is listed once, as sure or as possible.
//
// Phenomena: FILE.tags has one line per pair, space-separated tags, each a name and the target words it concerns,
//     adjective_after_noun@3,4 negation@2,4
// (the indices 0-based, comma-separated), so that a score can be taken over just the words of one phenomenon.
// data/toy-en-fr/README.md lists the tags with examples.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct AlignmentLink {
  int32_t source = 0;  // index of the source word
  int32_t target = 0;  // index of the target word
  bool operator==(const AlignmentLink& other) const = default;
  auto operator<=>(const AlignmentLink& other) const = default;
};

// One sentence pair's alignment. `sure` are S; `possible` are P \ S (possible but not sure); both sorted, no link
// in both.
struct Alignment {
  std::vector<AlignmentLink> sure;
  std::vector<AlignmentLink> possible;
};

// A phenomenon of one pair: its name and the target words it concerns (sorted, 0-based).
struct PhenomenonTag {
  std::string name;
  std::vector<int32_t> target_words;
  bool operator==(const PhenomenonTag& other) const = default;
};

// "0-0 1-2 2?1": the Pharaoh line of `alignment`, links in (source, target) order, sure as i-j, possible as i?j.
std::string format_alignment(const Alignment& alignment);

// Parses one Pharaoh line. Throws attnlab::Error naming `where` ("test.align line 7") and the offending text for
// a malformed link, an index outside the pair (source_words, target_words), or a link given twice.
Alignment parse_alignment(std::string_view line, int64_t source_words, int64_t target_words, const std::string& where);

// "adjective_after_noun@3,4 negation@2,4", and its parse (same errors as parse_alignment, for target indices).
std::string format_tags(const std::vector<PhenomenonTag>& tags);
std::vector<PhenomenonTag> parse_tags(std::string_view line, int64_t target_words, const std::string& where);

// The alignments of a corpus: FILE read whole, one line per pair of (source, target) — the sentences as the corpus
// holds them, words separated by single spaces. Throws attnlab::Error naming the file: missing, a line count that
// is not source.size(), or a line that does not fit its pair (parse_alignment).
std::vector<Alignment> read_alignments(const std::string& path, const std::vector<std::string>& source,
                                       const std::vector<std::string>& target);
std::vector<std::vector<PhenomenonTag>> read_tags(const std::string& path, const std::vector<std::string>& target);

// The path of the alignments that go with a corpus side: "data/toy-en-fr/test.fr" → "data/toy-en-fr/test.align"
// (and .tags): the target file's name with its extension replaced.
std::string alignment_path_for(const std::string& target_path, const std::string& extension = ".align");

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
