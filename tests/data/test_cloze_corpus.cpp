// test_cloze_corpus.cpp — facts about the cloze corpus (src/data/synthetic/cloze.h). The readers trained on it are tested
// in test_cloze.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "data/synthetic/cloze.h"
#include "util/error.h"

using namespace attnlab;

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> result;
  for (std::string word; in >> word;) result.push_back(word);
  return result;
}

}  // namespace

TEST_CASE("cloze: every answer is one noun of its document, the query has one placeholder, and a seed fixes all") {
  const Corpus corpus = generate_corpus("cloze", 5, 300);
  const Corpus again = generate_corpus("cloze", 5, 300);
  CHECK(corpus.train.source == again.train.source);
  CHECK(corpus.test.target == again.test.target);
  for (const GeneratedSplit* split : {&corpus.train, &corpus.valid, &corpus.test}) {
    for (size_t i = 0; i < split->size(); ++i) {
      const ClozeQuestion question = split_cloze_question(split->source[i], "question " + std::to_string(i));
      const std::vector<std::string> answer = words(split->target[i]);
      REQUIRE(answer.size() == 1);
      CHECK(std::count(question.document.begin(), question.document.end(), answer[0]) >= 1);
      CHECK(std::count(cloze_nouns().begin(), cloze_nouns().end(), answer[0]) == 1);
      CHECK(std::count(question.query.begin(), question.query.end(), answer[0]) == 0);   // not given away
    }
  }
}

TEST_CASE("cloze: the most frequent noun of the document is the answer for about a third of the questions only") {
  const Corpus corpus = generate_corpus("cloze");
  int64_t right = 0;
  for (size_t i = 0; i < corpus.test.size(); ++i) {
    const ClozeQuestion question = split_cloze_question(corpus.test.source[i], "test question");
    right += cloze_frequency_baseline(question.document) == corpus.test.target[i];
  }
  const double accuracy = static_cast<double>(right) / static_cast<double>(corpus.test.size());
  CHECK(accuracy > 0.15);   // the topic is sometimes the answer …
  CHECK(accuracy < 0.45);   // … but far from always: reading is needed
}

TEST_CASE("cloze: the frequency baseline takes the commonest noun, the first among equals") {
  CHECK(cloze_frequency_baseline(words("the cat sees the dog . the dog likes the ball .")) == "dog");
  CHECK(cloze_frequency_baseline(words("the cat sees the dog .")) == "cat");
  CHECK(cloze_frequency_baseline(words("the sees the .")) == "");
}

TEST_CASE("cloze: a question line without its marker or placeholder is refused, naming the line") {
  CHECK_THROWS_WITH_AS(split_cloze_question("the cat sees the dog .", "line 3 of q"),
                       doctest::Contains("line 3 of q must hold the word @query exactly once"), Error);
  CHECK_THROWS_WITH_AS(split_cloze_question("the cat sees the dog . @query the cat sees the dog .", "line 4"),
                       doctest::Contains("@placeholder exactly once"), Error);
  CHECK_THROWS_WITH_AS(split_cloze_question("@query @placeholder sees .", "line 5"),
                       doctest::Contains("empty document"), Error);
}

