// cloze.cpp — the cloze corpus: facts, a topic noun, a query restating one fact (cloze.h says why each rule).
#include "data/synthetic/cloze.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "util/error.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Who can act (subjects) and what can be acted on (objects: the actors and the things).
const std::vector<std::string>& actors() {
  static const std::vector<std::string> words = {"girl", "boy",  "teacher", "doctor", "farmer", "baker",
                                                 "cat",  "dog",  "horse",   "bird",   "mouse",  "fox"};
  return words;
}
const std::vector<std::string>& things() {
  static const std::vector<std::string> words = {"apple", "book", "ball", "car", "letter", "key", "hat", "box"};
  return words;
}

// A verb's two forms: "the cat sees the dog" (present) and "the dog is seen by the cat" (past participle).
struct Verb {
  std::string present, participle;
};
const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {
      {"sees", "seen"},       {"likes", "liked"},   {"finds", "found"},         {"follows", "followed"},
      {"watches", "watched"}, {"wants", "wanted"},  {"hides", "hidden"},        {"takes", "taken"},
      {"helps", "helped"},    {"draws", "drawn"},   {"carries", "carried"},     {"pushes", "pushed"}};
  return table;
}

struct Fact {
  std::string subject, object;
  const Verb* verb;
};

template <typename T>
const T& pick(const std::vector<T>& items, Generator& generator) {
  return items[static_cast<size_t>(generator.integer(0, static_cast<int64_t>(items.size())))];
}

// A noun for a new fact: an actor for the subject, anything for the object; never one already in the document
// (except the topic, which the caller places on purpose), so that every other noun occurs once.
std::string fresh_noun(bool subject, const std::vector<std::string>& used, Generator& generator) {
  std::vector<std::string> pool = actors();
  if (!subject) pool.insert(pool.end(), things().begin(), things().end());
  std::erase_if(pool, [&](const std::string& w) { return std::find(used.begin(), used.end(), w) != used.end(); });
  return pick(pool, generator);
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

}  // namespace

const std::vector<std::string>& cloze_nouns() {
  static const std::vector<std::string> nouns = [] {
    std::vector<std::string> all = actors();
    all.insert(all.end(), things().begin(), things().end());
    return all;
  }();
  return nouns;
}

std::pair<std::string, std::string> draw_cloze_pair(Generator& generator) {
  const int64_t fact_count = generator.integer(3, 5);                       // 3 or 4 facts
  // Distinct verbs: the first fact_count of a shuffled copy of the table.
  std::vector<const Verb*> verb_order;
  for (const Verb& v : verbs()) verb_order.push_back(&v);
  for (size_t i = verb_order.size() - 1; i > 0; --i) {
    std::swap(verb_order[i], verb_order[static_cast<size_t>(generator.integer(0, static_cast<int64_t>(i) + 1))]);
  }
  // The topic takes part in two of the facts (chosen here), as the subject or the object of each.
  const std::string topic = pick(actors(), generator);
  const int64_t first = generator.integer(0, fact_count);
  int64_t second = generator.integer(0, fact_count - 1);
  if (second >= first) ++second;
  std::vector<std::string> used = {topic};
  std::vector<Fact> facts;
  for (int64_t f = 0; f < fact_count; ++f) {
    Fact fact{"", "", verb_order[static_cast<size_t>(f)]};
    if (f == first || f == second) {
      const bool topic_is_subject = generator.integer(0, 2) == 0;
      (topic_is_subject ? fact.subject : fact.object) = topic;
      std::string& other = topic_is_subject ? fact.object : fact.subject;
      other = fresh_noun(!topic_is_subject, used, generator);
      used.push_back(other);
    } else {
      fact.subject = fresh_noun(true, used, generator);
      used.push_back(fact.subject);
      fact.object = fresh_noun(false, used, generator);
      used.push_back(fact.object);
    }
    facts.push_back(fact);
  }
  std::string document;
  for (const Fact& fact : facts) {
    document += "the " + fact.subject + " " + fact.verb->present + " the " + fact.object + " . ";
  }
  // The query: one fact, one side asked, one of two wordings.
  const Fact& asked = pick(facts, generator);
  const bool ask_subject = generator.integer(0, 2) == 0;
  const bool passive = generator.integer(0, 2) == 0;
  const std::string blank = cloze_placeholder;
  const std::string subject = ask_subject ? blank : "the " + asked.subject;
  const std::string object = ask_subject ? "the " + asked.object : blank;
  const std::string query = passive ? object + " is " + asked.verb->participle + " by " + subject + " ."
                                    : subject + " " + asked.verb->present + " " + object + " .";
  return {document + cloze_query_marker + " " + query, ask_subject ? asked.subject : asked.object};
}

Corpus make_cloze_corpus(uint64_t seed, int64_t train_size) {
  Corpus corpus;
  corpus.task = "cloze";
  corpus.source_suffix = "question";
  corpus.target_suffix = "answer";
  Generator generator(seed);
  draw_splits(corpus, generator, draw_cloze_pair, train_size, cloze_valid_size, cloze_test_size);
  return corpus;
}

ClozeQuestion split_cloze_question(const std::string& line, const std::string& where) {
  const std::vector<std::string> words = words_of(line);
  const auto marker = std::find(words.begin(), words.end(), cloze_query_marker);
  const std::string expected = std::string(" (a cloze question is \"<document> ") + cloze_query_marker +
                               " <query with one " + cloze_placeholder + ">\", as `attnlab corpus --task cloze` "
                               "writes it)";
  if (marker == words.end() || std::find(marker + 1, words.end(), cloze_query_marker) != words.end()) {
    throw Error(where + " must hold the word " + cloze_query_marker + " exactly once: " + quote(line) + expected);
  }
  ClozeQuestion question{{words.begin(), marker}, {marker + 1, words.end()}};
  if (question.document.empty() || question.query.empty()) {
    throw Error(where + " has an empty " + (question.document.empty() ? "document" : "query") + ": " + quote(line) +
                expected);
  }
  if (std::count(question.query.begin(), question.query.end(), cloze_placeholder) != 1) {
    throw Error(where + ": the query must hold " + cloze_placeholder + " exactly once: " + quote(line) + expected);
  }
  return question;
}

std::string cloze_frequency_baseline(const std::vector<std::string>& document) {
  const std::vector<std::string>& nouns = cloze_nouns();
  std::map<std::string, int64_t> counts;
  for (const std::string& word : document) {
    if (std::find(nouns.begin(), nouns.end(), word) != nouns.end()) ++counts[word];
  }
  std::string best;
  int64_t best_count = 0;
  for (const std::string& word : document) {                 // in document order: the first among equals wins
    auto found = counts.find(word);
    if (found != counts.end() && found->second > best_count) {
      best = word;
      best_count = found->second;
    }
  }
  return best;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
