// test_gold_alignment.cpp — facts about the gold alignments the generators write (src/data/synthetic/toy_en_fr.cpp,
// synthetic.cpp; format in src/data/alignment.h).
//
// First, pairs of the toy grammar with their links and tags worked out by hand, one or more for every phenomenon,
// so that a rule that links the wrong word fails here by name. Then properties over whole corpora: every French
// word has a link, only do / does goes without one, sure links are where the README says, every tag is known
// and appears; the shipped test split's files read back and fit their pairs. Last, the symbol tasks' links.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "data/alignment.h"
#include "data/corpus.h"
#include "data/synthetic/synthetic.h"
#include "data/synthetic/toy_en_fr.h"
#include "decode/bleu.h"

using namespace attnlab;

namespace {

// The words of a sentence (decode/bleu.h: split at white space).
std::vector<std::string> words(const std::string& line) { return split_white_space(line); }

const Corpus& toy_corpus() {
  static const Corpus corpus = generate_corpus("toy-en-fr");
  return corpus;
}

std::vector<const GeneratedSplit*> splits_of(const Corpus& corpus) {
  return {&corpus.train, &corpus.valid, &corpus.test};
}

// A pair of the default toy corpus, found by its English side.
struct Found {
  std::string french;
  std::string alignment;
  std::string tags;
};
Found find_pair(const std::string& english) {
  for (const GeneratedSplit* split : splits_of(toy_corpus())) {
    for (size_t k = 0; k < split->size(); ++k) {
      if (split->source[k] == english) {
        return {split->target[k], format_alignment(split->alignments[k]), format_tags(split->tags[k])};
      }
    }
  }
  FAIL("the default toy-en-fr corpus has no pair '" << english << "'");
  return {};
}

// A pair written out by hand: the English, the French, the links and the tags it must get.
struct HandChecked {
  const char* english;
  const char* french;
  const char* links;
  const char* tags;
};

void check_by_hand(const HandChecked& pair) {
  INFO(pair.english);
  const Found found = find_pair(pair.english);
  CHECK(found.french == pair.french);
  CHECK(found.alignment == pair.links);
  CHECK(found.tags == pair.tags);
}

}  // namespace

// Indices are 0-based; under each sentence its words are numbered in the comment.

TEST_CASE("gold alignment: an adjective after the noun links across — black ↔ noir, cat ↔ chat — and both are tagged") {
  // the0 fat1 black2 cat3 sings4 with5 the6 old7 man8 .9
  // le0 gros1 chat2 noir3 chante4 avec5 le6 vieil7 homme8 .9
  check_by_hand({"the fat black cat sings with the old man .", "le gros chat noir chante avec le vieil homme .",
                 "0-0 1-1 2-3 3-2 4-4 5-5 6-6 7-7 8-8 9-9",
                 "adjective_after_noun@2,3 adjective_before_noun@1,7 agreement@0,1,3,4,6,7"});
}

TEST_CASE("gold alignment: ne … pas — not ↔ pas sure, not ↔ ne possible; does has no link; the verb is do_support") {
  // he0 does1 not2 go3 to4 this5 small6 museum7 .8
  // il0 ne1 va2 pas3 à4 ce5 petit6 musée7 .8
  check_by_hand({"he does not go to this small museum .", "il ne va pas à ce petit musée .",
                 "0-0 2?1 2-3 3-2 4-4 5-5 6-6 7-7 8-8",
                 "adjective_before_noun@6 agreement@2,5,6 do_support@2 negation@1,3"});
  // is not: no do, the verb before not; n' keeps ne's possible link.
  // she0 is1 not2 kind3 .4
  // elle0 n'1 est2 pas3 gentille4 .5
  check_by_hand({"she is not kind .", "elle n' est pas gentille .", "0-0 1-2 2?1 2-3 3-4 4-5",
                 "agreement@2,4 elision@1 negation@1,3"});
}

TEST_CASE("gold alignment: a unit of words — you all ↔ vous, wait for ↔ attendez — links its first word sure, the "
          "rest possible") {
  // you0 all1 do2 not3 wait4 for5 these6 mothers7 .8
  // vous0 n'1 attendez2 pas3 ces4 mères5 .6
  check_by_hand({"you all do not wait for these mothers .", "vous n' attendez pas ces mères .",
                 "0-0 1?0 3?1 3-3 4-2 5?2 6-4 7-5 8-6", "agreement@2,4 do_support@2 elision@1 negation@1,3"});
}

TEST_CASE("gold alignment: elision keeps the links of the word it shortens — l', j', d', n'") {
  // i0 have1 two2 clocks3 in4 the5 station6 .7
  // j'0 ai1 deux2 horloges3 dans4 la5 gare6 .7
  check_by_hand({"i have two clocks in the station .", "j' ai deux horloges dans la gare .",
                 "0-0 1-1 2-2 3-3 4-4 5-5 6-6 7-7", "agreement@1,5 elision@0"});
  // near ↔ près sure, near ↔ d' possible (de only completes près de).
  // the0 bears1 sing2 near3 a4 big5 school6 .7
  // les0 ours1 chantent2 près3 d'4 une5 grande6 école7 .8
  check_by_hand({"the bears sing near a big school .", "les ours chantent près d' une grande école .",
                 "0-0 1-1 2-2 3-3 3?4 4-5 5-6 6-7 7-8", "adjective_before_noun@6 agreement@0,2,5,6 elision@4"});
}

TEST_CASE("gold alignment: a contraction takes the links of both words it merges — to, the ↔ au; near, the ↔ du") {
  // i0 go1 to2 the3 old4 offices5 .6
  // je0 vais1 aux2 vieux3 bureaux4 .5
  check_by_hand({"i go to the old offices .", "je vais aux vieux bureaux .", "0-0 1-1 2-2 3-2 4-3 5-4 6-5",
                 "adjective_before_noun@3 agreement@1,2,3 contraction@2"});
  // A relative clause too: qui and its words are tagged; its verb agrees with the baby.
  // the0 baby1 who2 is3 happy4 sleeps5 near6 the7 market8 .9
  // le0 bébé1 qui2 est3 heureux4 dort5 près6 du7 marché8 .9
  check_by_hand({"the baby who is happy sleeps near the market .", "le bébé qui est heureux dort près du marché .",
                 "0-0 1-1 2-2 3-3 4-4 5-5 6-6 6?7 7-7 8-8 9-9",
                 "agreement@0,3,4,5,7 contraction@7 relative_clause@2,3,4"});
}

TEST_CASE("gold alignment: des → de before an adjective keeps some ↔ de; a relative clause with negation inside") {
  // the0 king1 writes2 some3 good4 stories5 .6
  // le0 roi1 écrit2 de3 bonnes4 histoires5 .6
  check_by_hand({"the king writes some good stories .", "le roi écrit de bonnes histoires .",
                 "0-0 1-1 2-2 3-3 4-4 5-5 6-6", "adjective_before_noun@4 agreement@0,2,3,4 des_to_de@3"});
  // a0 bird1 that2 hears3 the4 bird5 does6 not7 listen8 to9 seven10 dogs11 .12
  // un0 oiseau1 qui2 entend3 l'4 oiseau5 n'6 écoute7 pas8 sept9 chiens10 .11      (sept: a number, no agreement)
  check_by_hand({"a bird that hears the bird does not listen to seven dogs .",
                 "un oiseau qui entend l' oiseau n' écoute pas sept chiens .",
                 "0-0 1-1 2-2 3-3 4-4 5-5 7?6 7-8 8-7 9?7 10-9 11-10 12-11",
                 "agreement@0,3,4,7 do_support@7 elision@4,6 negation@6,8 relative_clause@2,3,4,5"});
}

TEST_CASE("gold alignment: drawing pairs with their alignment draws the same pairs as drawing the text alone") {
  Generator text_only(5), aligned(5);
  for (int k = 0; k < 300; ++k) {
    const auto [english, french] = draw_toy_en_fr_pair(text_only);
    const AlignedPair pair = draw_aligned_toy_en_fr_pair(aligned);
    REQUIRE(pair.source == english);
    REQUIRE(pair.target == french);
  }
}

TEST_CASE("gold alignment: drawn until each has appeared, the grammar shows every phenomenon it names, and no other") {
  const std::vector<std::string>& names = toy_en_fr_phenomena();
  std::set<std::string> seen;
  Generator generator(11);
  for (int k = 0; k < 100000 && seen.size() < names.size(); ++k) {
    for (const PhenomenonTag& tag : draw_aligned_toy_en_fr_pair(generator).tags) {
      INFO(tag.name);
      CHECK(std::find(names.begin(), names.end(), tag.name) != names.end());
      seen.insert(tag.name);
    }
  }
  CHECK(std::vector<std::string>(seen.begin(), seen.end()) == names);
}

TEST_CASE("gold alignment: in every toy pair each French word has a link, and only do / does has none") {
  std::map<std::string, int> unaligned_english;
  size_t french_words_checked = 0;
  for (const GeneratedSplit* split : splits_of(toy_corpus())) {
    for (size_t k = 0; k < split->size(); ++k) {
      const std::vector<std::string> english = words(split->source[k]);
      const std::vector<std::string> french = words(split->target[k]);
      std::vector<bool> english_linked(english.size()), french_linked(french.size());
      for (const auto* links : {&split->alignments[k].sure, &split->alignments[k].possible}) {
        for (const AlignmentLink& link : *links) {
          REQUIRE(link.source < static_cast<int32_t>(english.size()));
          REQUIRE(link.target < static_cast<int32_t>(french.size()));
          english_linked[static_cast<size_t>(link.source)] = french_linked[static_cast<size_t>(link.target)] = true;
        }
      }
      for (size_t j = 0; j < french.size(); ++j) {
        INFO(split->source[k] << " → " << split->target[k]);
        CHECK_MESSAGE(french_linked[j], "French word " << j << " (" << french[j] << ") has no link");
        ++french_words_checked;
      }
      for (size_t i = 0; i < english.size(); ++i) {
        if (!english_linked[i]) ++unaligned_english[english[i]];
      }
    }
  }
  CHECK(french_words_checked > 100000);
  std::set<std::string> unaligned_words;
  for (const auto& [word, count] : unaligned_english) unaligned_words.insert(word);
  CHECK(unaligned_words == std::set<std::string>{"do", "does"});
}

TEST_CASE("gold alignment: a French word without a sure link is ne / n' or the de / d' of près de; one with two is "
          "au or aux (to + the)") {
  std::map<std::string, std::set<std::string>> by_count;   // "0" / "2" sure links → the French words seen so
  for (const GeneratedSplit* split : splits_of(toy_corpus())) {
    for (size_t k = 0; k < split->size(); ++k) {
      const std::vector<std::string> french = words(split->target[k]);
      std::vector<int> sure_links(french.size());
      for (const AlignmentLink& link : split->alignments[k].sure) ++sure_links[static_cast<size_t>(link.target)];
      for (size_t j = 0; j < french.size(); ++j) {
        if (sure_links[j] != 1) by_count[std::to_string(sure_links[j])].insert(french[j]);
        if (sure_links[j] == 0 && (french[j] == "de" || french[j] == "d'")) {
          const bool after_pres = j > 0 && french[j - 1] == "près";
          CHECK_MESSAGE(after_pres, split->target[k]);
        }
      }
    }
  }
  CHECK(by_count["0"] == std::set<std::string>{"d'", "de", "n'", "ne"});
  CHECK(by_count["2"] == std::set<std::string>{"au", "aux"});
  CHECK(by_count.size() == 2);
}

TEST_CASE("gold alignment: the shipped test split's .align and .tags read back with one line per pair, fitting it") {
  const std::string prefix = std::string(ATTNLAB_SOURCE_DIR) + "/data/toy-en-fr/test.";
  const std::vector<std::string> english = read_lines(prefix + "en");
  const std::vector<std::string> french = read_lines(prefix + "fr");
  REQUIRE(english.size() == 1000);
  // read_* check the line count and that every index fits its own pair.
  const std::vector<Alignment> alignments = read_alignments(prefix + "align", english, french);
  const std::vector<std::vector<PhenomenonTag>> tags = read_tags(prefix + "tags", french);
  REQUIRE(alignments.size() == english.size());
  REQUIRE(tags.size() == english.size());
  const std::vector<std::string>& names = toy_en_fr_phenomena();
  size_t uncovered = 0;
  for (size_t k = 0; k < english.size(); ++k) {
    std::vector<bool> covered(words(french[k]).size());
    for (const auto* links : {&alignments[k].sure, &alignments[k].possible}) {
      for (const AlignmentLink& link : *links) covered[static_cast<size_t>(link.target)] = true;
    }
    uncovered += static_cast<size_t>(std::count(covered.begin(), covered.end(), false));
    for (const PhenomenonTag& tag : tags[k]) {
      CHECK(std::find(names.begin(), names.end(), tag.name) != names.end());
    }
  }
  CHECK(uncovered == 0);   // no French word is a known unaligned case: ne and de have possible links
}

TEST_CASE("gold alignment: copy links i-i, reverse i-(n−1−i), sort each symbol to where it sits — possibly, when "
          "it repeats") {
  // k0 c1 k2 a3: the two k's are repeated_symbol wherever they stand in the target.
  const AlignedPair copy = align_symbol_pair("copy", "k c k a", "k c k a");
  CHECK(format_alignment(copy.alignment) == "0-0 1-1 2-2 3-3");
  CHECK(format_tags(copy.tags) == "repeated_symbol@0,2");
  const AlignedPair reverse = align_symbol_pair("reverse", "k c k a", "a k c k");
  CHECK(format_alignment(reverse.alignment) == "0-3 1-2 2-1 3-0");
  CHECK(format_tags(reverse.tags) == "repeated_symbol@1,3");
  // a (source 3) → target 0, c (1) → 1; either k (0 or 2) may have become either k (2 or 3).
  const AlignedPair sort = align_symbol_pair("sort", "k c k a", "a c k k");
  CHECK(format_alignment(sort.alignment) == "0?2 0?3 1-1 2?2 2?3 3-0");
  CHECK(format_tags(sort.tags) == "repeated_symbol@2,3");
  CHECK(align_symbol_pair("sort", "b a", "a b").tags.empty());
}

TEST_CASE("gold alignment: every symbol corpus is aligned, every target symbol linked to the same symbol") {
  for (const std::string task : {"copy", "reverse", "sort"}) {
    INFO(task);
    const Corpus corpus = generate_corpus(task, 3, 200);
    REQUIRE(corpus.aligned);
    for (const GeneratedSplit* split : splits_of(corpus)) {
      REQUIRE(split->alignments.size() == split->size());
      for (size_t k = 0; k < split->size(); ++k) {
        const std::vector<std::string> source = words(split->source[k]), target = words(split->target[k]);
        std::vector<bool> covered(target.size());
        for (const auto* links : {&split->alignments[k].sure, &split->alignments[k].possible}) {
          for (const AlignmentLink& link : *links) {
            CHECK(source[static_cast<size_t>(link.source)] == target[static_cast<size_t>(link.target)]);
            covered[static_cast<size_t>(link.target)] = true;
          }
        }
        CHECK(std::count(covered.begin(), covered.end(), false) == 0);
      }
    }
  }
  CHECK_FALSE(generate_corpus("cloze", 3, 20).aligned);
}
