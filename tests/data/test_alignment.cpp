// test_alignment.cpp — facts about the alignment files (src/data/alignment.h): a Pharaoh line and a tag line
// read back as they were written; a reader accepts the links in any order and returns them sorted; and each
// thing that can be wrong with a line or a file — a link that is not i-j or i?j, an index outside the pair, a
// link or a tag given twice, a line count that is not the corpus's, a missing file — is refused with a message
// naming the file, the line and the offending text.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "data/alignment.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

std::string write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

// A 3-word source, 4-word target pair, parsed with the name a reader would give it.
Alignment parse_3x4(const std::string& line) {
  return parse_alignment(line, 3, 4, "test.align line 7");
}

}  // namespace

TEST_CASE("alignment: a Pharaoh line lists sure links as i-j and possible ones as i?j, sorted by source then target") {
  Alignment alignment;
  alignment.sure = {{0, 0}, {2, 1}, {1, 3}};
  alignment.possible = {{1, 2}};
  CHECK(format_alignment(alignment) == "0-0 1?2 1-3 2-1");
  CHECK(format_alignment(Alignment{}).empty());  // no link: an empty line
}

TEST_CASE("alignment: parse(format(A)) is A, and a line in any order reads as the sorted links") {
  Alignment alignment;
  alignment.sure = {{0, 0}, {1, 3}, {2, 1}};
  alignment.possible = {{1, 2}, {2, 3}};
  const Alignment back = parse_3x4(format_alignment(alignment));
  CHECK(back.sure == alignment.sure);
  CHECK(back.possible == alignment.possible);

  const Alignment shuffled = parse_3x4("  2?3 2-1\t1?2 1-3 0-0 ");  // fast_align writes target order; spaces vary
  CHECK(shuffled.sure == alignment.sure);
  CHECK(shuffled.possible == alignment.possible);
  CHECK(parse_3x4("").sure.empty());
  CHECK(parse_3x4("   ").possible.empty());
}

TEST_CASE("alignment: a link that is not i-j or i?j is refused, naming the place and the text") {
  for (const std::string bad :
       {"0:1", "0-", "-1", "a-1", "0-1x", "0--1", "0-1-2", "+1-2", "0-1,2", "1,2", "0?", "é-1"}) {
    INFO(bad);
    CHECK_THROWS_WITH_AS(parse_3x4(bad),
                         doctest::Contains(("test.align line 7: \"" + bad + "\" is not a link").c_str()), Error);
  }
  // The message quotes the item that is wrong, not the whole line.
  CHECK_THROWS_WITH_AS(
      parse_3x4("0-0 1x2"),
      "test.align line 7: \"1x2\" is not a link; a link is i-j (sure) or i?j (possible), two 0-based word "
      "indices, source first",
      Error);
}

TEST_CASE("alignment: an index outside the pair is refused, saying which side and how many words it has") {
  CHECK_THROWS_WITH_AS(parse_3x4("0-0 3-1"),
                       "test.align line 7: the link \"3-1\" names source word 3, but the source has 3 words (0 to 2)",
                       Error);
  CHECK_THROWS_WITH_AS(parse_3x4("2?4"),
                       "test.align line 7: the link \"2?4\" names target word 4, but the target has 4 words (0 to 3)",
                       Error);
  // A number too large for any integer type is outside the pair too, not an overflow.
  CHECK_THROWS_WITH_AS(parse_3x4("0-99999999999999999999999"), doctest::Contains("names target word 1000000000"),
                       Error);
  CHECK_THROWS_WITH_AS(parse_alignment("0-0", 0, 4, "x"), doctest::Contains("the source has 0 words"), Error);
  CHECK(parse_3x4("2-3").sure.size() == 1);  // the last word of each side is inside
}

TEST_CASE("alignment: a link given twice is refused, as sure twice or as sure and possible") {
  CHECK_THROWS_WITH_AS(
      parse_3x4("1-2 0-0 1-2"),
      "test.align line 7: the link 1-2 is given twice (\"1-2\" and \"1-2\"); list each link once, as sure (i-j) "
      "or as possible (i?j)",
      Error);
  CHECK_THROWS_WITH_AS(parse_3x4("1?2 1-2"), doctest::Contains("the link 1-2 is given twice"), Error);
  CHECK_THROWS_WITH_AS(parse_3x4("01-2 1-2"), doctest::Contains("the link 1-2 is given twice"), Error);  // 01 is 1
}

TEST_CASE("alignment: tags read back as written, their words sorted") {
  const std::vector<PhenomenonTag> tags = {{"adjective_after_noun", {3, 4}}, {"negation", {2, 5}}};
  CHECK(format_tags(tags) == "adjective_after_noun@3,4 negation@2,5");
  CHECK(parse_tags(format_tags(tags), 6, "t") == tags);
  CHECK(parse_tags("negation@5,2", 6, "t") == std::vector<PhenomenonTag>{{"negation", {2, 5}}});
  CHECK(parse_tags("", 6, "t").empty());
  CHECK(format_tags({}).empty());
}

TEST_CASE("alignment: a bad tag is refused — its shape, an index outside the target, a word or a name twice") {
  for (const std::string bad :
       {"negation", "@2", "negation@", "negation@2,", "negation@,2", "nega-tion@2", "negation@2;3", "negation@x"}) {
    INFO(bad);
    CHECK_THROWS_WITH_AS(
        parse_tags(bad, 6, "test.tags line 3"),
        doctest::Contains(("test.tags line 3: \"" + bad + "\" is not a tag; a tag is name@j,k,…").c_str()), Error);
  }
  CHECK_THROWS_WITH_AS(
      parse_tags("negation@2,6", 6, "test.tags line 3"),
      "test.tags line 3: the tag \"negation@2,6\" names target word 6, but the target has 6 words (0 to 5)", Error);
  CHECK_THROWS_WITH_AS(parse_tags("negation@2,2", 6, "test.tags line 3"),
                       "test.tags line 3: the tag \"negation@2,2\" lists a target word twice", Error);
  CHECK_THROWS_WITH_AS(parse_tags("negation@2 elision@0 negation@4", 6, "test.tags line 3"),
                       "test.tags line 3: the tag \"negation\" is given twice; list all its words in one tag", Error);
}

TEST_CASE("alignment: read_alignments and read_tags read one line per pair, each checked against its own pair") {
  const fs::path directory = testing::fresh_directory("test_alignment", "read");
  const std::vector<std::string> source = {"the cat sleeps .", "i do not sleep ."};
  const std::vector<std::string> target = {"le chat dort .", "je ne dors pas ."};
  const std::string align = write_file(directory / "test.align", "0-0 1-1 2-2 3-3\n0-0 3?1 3-3 2-2 4-4\n");
  const std::vector<Alignment> alignments = read_alignments(align, source, target);
  REQUIRE(alignments.size() == 2);
  CHECK(format_alignment(alignments[1]) == "0-0 2-2 3?1 3-3 4-4");
  const std::string tags = write_file(directory / "test.tags", "\r\nnegation@1,3\r\n");  // CRLF, an empty line
  const std::vector<std::vector<PhenomenonTag>> read = read_tags(tags, target);
  REQUIRE(read.size() == 2);
  CHECK(read[0].empty());
  CHECK(read[1] == std::vector<PhenomenonTag>{{"negation", {1, 3}}});
  // The last pair without links: its empty line is there, so the count is right.
  const std::string empty_last = write_file(directory / "last.align", "0-0\n\n");
  CHECK(read_alignments(empty_last, source, target)[1].sure.empty());
}

TEST_CASE("alignment: a file with another number of lines than the corpus has pairs is refused") {
  const fs::path directory = testing::fresh_directory("test_alignment", "count");
  const std::vector<std::string> source = {"a b", "c d", "e"};
  const std::vector<std::string> target = {"a b", "c d", "e"};
  const std::string short_file = write_file(directory / "short.align", "0-0\n1-1\n");
  CHECK_THROWS_WITH_AS(
      read_alignments(short_file, source, target),
      (short_file + " has 2 lines, but the corpus has 3 sentence pairs; the file needs one line per pair, in the "
                    "same order (an empty line for a pair with nothing to list)")
          .c_str(),
      Error);
  const std::string long_file = write_file(directory / "long.tags", "\n\n\n\n");
  CHECK_THROWS_WITH_AS(read_tags(long_file, target), doctest::Contains("long.tags has 4 lines, but the corpus has 3"),
                       Error);
}

TEST_CASE("alignment: a line that does not fit its own pair is refused with the file and line number") {
  const fs::path directory = testing::fresh_directory("test_alignment", "fit");
  const std::vector<std::string> source = {"a b c", "d e"};
  const std::vector<std::string> target = {"a b c", "d e"};
  // Line 2's pair has 2 words per side: 2-2 fits line 1's pair but not its own.
  const std::string path = write_file(directory / "valid.align", "2-2\n2-2\n");
  CHECK_THROWS_WITH_AS(
      read_alignments(path, source, target),
      (path + " line 2: the link \"2-2\" names source word 2, but the source has 2 words (0 to 1)").c_str(), Error);
  const std::string tags = write_file(directory / "valid.tags", "x@2\nx@2\n");
  CHECK_THROWS_WITH_AS(read_tags(tags, target),
                       doctest::Contains("valid.tags line 2: the tag \"x@2\" names target word 2"), Error);
}

TEST_CASE("alignment: a missing file is named, with where alignments come from") {
  const fs::path directory = testing::fresh_directory("test_alignment", "missing");
  const std::string path = (directory / "test.align").string();
  CHECK_THROWS_WITH_AS(
      read_alignments(path, {"a"}, {"a"}),
      (path + ": no such file; `attnlab corpus` writes the gold alignments (.align) and phenomena (.tags) beside "
              "the corpus it generates (toy-en-fr, copy, reverse, sort)")
          .c_str(),
      Error);
  CHECK_THROWS_WITH_AS(read_tags((directory / "test.tags").string(), {"a"}),
                       doctest::Contains("test.tags: no such file"), Error);
  CHECK_THROWS_WITH_AS(read_alignments(directory.string(), {"a"}, {"a"}), doctest::Contains("is a directory"), Error);
}

TEST_CASE("alignment: the alignments of a corpus side sit beside it, with the extension replaced") {
  CHECK(alignment_path_for("data/toy-en-fr/test.fr") == "data/toy-en-fr/test.align");
  CHECK(alignment_path_for("data/toy-en-fr/test.fr", ".tags") == "data/toy-en-fr/test.tags");
  CHECK(alignment_path_for("corpora/my.corpus/train.tgt") == "corpora/my.corpus/train.align");
  CHECK(alignment_path_for("test") == "test.align");
}
