// test_corpus.cpp — facts about the generated corpora (src/data/synthetic/synthetic.h, src/data/synthetic/toy_en_fr.h).
//
// First the promises every task makes: the shipped files in data/ are exactly what the generator writes with
// the default seed and size; a seed fixes the corpus; splits never share a pair; lengths stay in bounds; the
// symbol tasks' targets are the copy, the reverse and the sort of their sources. Then the French grammar is
// checked by small checkers written here, independently of the generator's tables: negation is ne/n' + verb +
// pas, articles and adjectives agree with nouns whose gender is known, elision and contraction are applied
// wherever (and only where) French needs them, qui follows who/that, pronoun subjects take the right verb
// ending, and no English sentence ever gets two different French translations.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "data/synthetic/synthetic.h"
#include "data/synthetic/toy_en_fr.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;
using attnlab::testing::read_bytes;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& test_name) { return testing::fresh_directory("test_corpus", test_name); }

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> result;
  std::string word;
  while (in >> word) result.push_back(word);
  return result;
}

// Each default corpus is generated once and shared by the tests below.
const Corpus& default_corpus(const std::string& task) {
  static std::map<std::string, Corpus> corpora;
  auto found = corpora.find(task);
  if (found == corpora.end()) found = corpora.emplace(task, generate_corpus(task)).first;
  return found->second;
}

std::vector<const GeneratedSplit*> splits_of(const Corpus& corpus) {
  return {&corpus.train, &corpus.valid, &corpus.test};
}

bool same_text(const GeneratedSplit& a, const GeneratedSplit& b) {
  return a.source == b.source && a.target == b.target;
}

std::string error_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// All French sentences of the default toy corpus, each as its words.
const std::vector<std::vector<std::string>>& toy_french() {
  static const std::vector<std::vector<std::string>> sentences = [] {
    std::vector<std::vector<std::string>> all;
    for (const GeneratedSplit* split : splits_of(default_corpus("toy-en-fr"))) {
      for (const std::string& line : split->target) all.push_back(words(line));
    }
    return all;
  }();
  return sentences;
}

bool contains(const std::set<std::string>& set, const std::string& word) { return set.count(word) > 0; }

// Counts the cases where a rule is broken and remembers the first, so a test makes one check, not thousands.
struct Violations {
  size_t count = 0;
  std::string first;
  void add(const std::string& example) {
    if (count++ == 0) first = example;
  }
};

std::string line_of(const std::vector<std::string>& sentence) {
  std::string line;
  for (const std::string& word : sentence) line += (line.empty() ? "" : " ") + word;
  return line;
}

}  // namespace

TEST_CASE("regenerating each shipped corpus with the default seed and size gives the bytes in data/") {
  for (const std::string& task : corpus_task_names()) {
    fs::path directory = fresh_directory("shipped_" + task);
    std::vector<WrittenFile> written = write_corpus(default_corpus(task), directory.string());
    REQUIRE(written.size() == (default_corpus(task).aligned ? 12u : 6u));   // + .align and .tags per split
    for (const WrittenFile& file : written) {
      fs::path shipped = fs::path(ATTNLAB_SOURCE_DIR) / "data" / task / fs::path(file.path).filename();
      INFO("regenerate with: attnlab corpus --task " << task << " --out data/" << task);
      REQUIRE_MESSAGE(fs::exists(shipped), shipped.string() << " is missing");
      bool same = read_bytes(file.path) == read_bytes(shipped);   // (not inside CHECK: it would print both files)
      CHECK_MESSAGE(same, file.path << " differs from " << shipped.string());
    }
  }
}

TEST_CASE("the same seed gives the same corpus, another seed a different one") {
  for (const std::string& task : corpus_task_names()) {
    INFO(task);
    Corpus first = generate_corpus(task, 7, 300);
    Corpus again = generate_corpus(task, 7, 300);
    Corpus other = generate_corpus(task, 8, 300);
    for (auto [a, b] : {std::pair{&first.train, &again.train}, {&first.valid, &again.valid},
                        {&first.test, &again.test}}) {
      CHECK(same_text(*a, *b));
    }
    CHECK_FALSE(same_text(first.train, other.train));
    CHECK_FALSE(same_text(first.test, other.test));
  }
}

TEST_CASE("--size changes the train split only: valid and test stay, train grows by appending") {
  for (const std::string& task : corpus_task_names()) {
    INFO(task);
    const Corpus& full = default_corpus(task);
    Corpus small = generate_corpus(task, default_corpus_seed, 40);
    CHECK(small.train.size() == 40);
    CHECK(same_text(small.valid, full.valid));
    CHECK(same_text(small.test, full.test));
    CHECK(std::equal(small.train.source.begin(), small.train.source.end(), full.train.source.begin()));
  }
}

TEST_CASE("each split has its documented size and no pair appears twice, in one split or across splits") {
  for (const CorpusTask& task : corpus_tasks()) {
    INFO(task.name);
    const Corpus& corpus = default_corpus(task.name);
    CHECK(static_cast<int64_t>(corpus.train.size()) == task.train_size);
    CHECK(static_cast<int64_t>(corpus.valid.size()) == task.valid_size);
    CHECK(static_cast<int64_t>(corpus.test.size()) == task.test_size);
    std::set<std::pair<std::string, std::string>> seen;
    size_t total = 0;
    for (const GeneratedSplit* split : splits_of(corpus)) {
      REQUIRE(split->source.size() == split->target.size());
      for (size_t i = 0; i < split->size(); ++i) seen.insert({split->source[i], split->target[i]});
      total += split->size();
    }
    CHECK(seen.size() == total);
  }
}

TEST_CASE("every sentence is within its task's length bounds") {
  for (const std::string& task : corpus_task_names()) {
    INFO(task);
    if (task == "cloze") continue;   // a question and a one-word answer: its own checks are in test_cloze.cpp
    bool toy = task == "toy-en-fr";
    size_t low = toy ? toy_en_fr_min_length : symbol_min_length;
    size_t high = toy ? toy_en_fr_max_length : symbol_max_length;
    size_t shortest = SIZE_MAX, longest = 0;
    for (const GeneratedSplit* split : splits_of(default_corpus(task))) {
      for (const auto* side : {&split->source, &split->target}) {
        for (const std::string& line : *side) {
          size_t length = words(line).size();
          shortest = std::min(shortest, length);
          longest = std::max(longest, length);
        }
      }
    }
    CHECK(shortest >= low);
    CHECK(longest <= high);
  }
}

TEST_CASE("copy's target is its source, reverse's the source reversed, sort's the source sorted") {
  const std::vector<std::string>& vocabulary = symbol_vocabulary();
  CHECK(vocabulary.size() == 20);
  CHECK(std::is_sorted(vocabulary.begin(), vocabulary.end()));
  for (const std::string task : {"copy", "reverse", "sort"}) {
    INFO(task);
    Violations wrong_target, unknown_symbol;
    for (const GeneratedSplit* split : splits_of(default_corpus(task))) {
      for (size_t i = 0; i < split->size(); ++i) {
        std::vector<std::string> source = words(split->source[i]);
        std::vector<std::string> expected = source;
        if (task == std::string("reverse")) std::reverse(expected.begin(), expected.end());
        if (task == std::string("sort")) std::sort(expected.begin(), expected.end());
        if (words(split->target[i]) != expected) wrong_target.add(split->source[i] + " → " + split->target[i]);
        for (const std::string& symbol : source) {
          bool known = std::find(vocabulary.begin(), vocabulary.end(), symbol) != vocabulary.end();
          if (!known) unknown_symbol.add(symbol);
        }
      }
    }
    CHECK_MESSAGE(wrong_target.count == 0, wrong_target.first);
    CHECK_MESSAGE(unknown_symbol.count == 0, unknown_symbol.first);
  }
}

TEST_CASE("an unknown task or a bad size is refused with a message that says what to do") {
  std::string message = error_message([] { generate_corpus("revrse"); });
  CHECK(message.find("did you mean 'reverse'") != std::string::npos);
  CHECK(message.find("toy-en-fr") != std::string::npos);
  CHECK(error_message([] { generate_corpus("copy", 1, 0); }).find("between 1 and") != std::string::npos);
  CHECK(error_message([] { generate_corpus("sort", 1, -3); }).find("not -3") != std::string::npos);
}

TEST_CASE("write_corpus creates the directory and writes twelve complete files (text, .align, .tags), one line per "
          "sentence") {
  fs::path directory = fresh_directory("write") / "nested" / "out";
  Corpus corpus = generate_corpus("toy-en-fr", 3, 25);
  std::vector<WrittenFile> written = write_corpus(corpus, directory.string());
  std::vector<std::string> names;
  for (const WrittenFile& file : written) names.push_back(fs::path(file.path).filename().string());
  CHECK(names == std::vector<std::string>{"train.en", "train.fr", "train.align", "train.tags", "valid.en", "valid.fr",
                                          "valid.align", "valid.tags", "test.en", "test.fr", "test.align",
                                          "test.tags"});
  CHECK(written[0].lines == 25);
  CHECK(written[3].lines == 25);
  CHECK(written[11].lines == 1000);
  std::string train_fr = read_bytes(directory / "train.fr");
  CHECK(std::count(train_fr.begin(), train_fr.end(), '\n') == 25);
  CHECK(train_fr.substr(0, train_fr.find('\n')) == corpus.train.target[0]);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(directory)) ++entries;
  CHECK(entries == 12);   // no temporary file left behind

  fs::path in_the_way = fresh_directory("write_file") / "file";
  std::ofstream(in_the_way) << "x";
  CHECK(error_message([&] { write_corpus(corpus, in_the_way.string()); }).find("is a file") != std::string::npos);
}

// ───────────────────────────── toy-en-fr, checked by rules written only here ─────────────────────────────

TEST_CASE("toy-en-fr: every negation is ne or n', then one verb, then pas, and matches an English not") {
  const Corpus& corpus = default_corpus("toy-en-fr");
  size_t negations = 0;
  Violations broken;
  for (const GeneratedSplit* split : splits_of(corpus)) {
    for (size_t s = 0; s < split->size(); ++s) {
      std::vector<std::string> french = words(split->target[s]);
      std::vector<std::string> english = words(split->source[s]);
      std::string example = split->source[s] + " → " + split->target[s];
      for (size_t i = 0; i < french.size(); ++i) {
        bool is_ne = french[i] == "ne" || french[i] == "n'";
        if (is_ne && (i + 2 >= french.size() || french[i + 2] != "pas")) broken.add(example);
        if (french[i] == "pas") {
          if (i < 2 || (french[i - 2] != "ne" && french[i - 2] != "n'")) broken.add(example);
          ++negations;
        }
      }
      auto pas = std::count(french.begin(), french.end(), "pas");
      auto nots = std::count(english.begin(), english.end(), "not");
      if (pas != nots) broken.add(example);
    }
  }
  CHECK_MESSAGE(broken.count == 0, broken.first);
  CHECK(negations > 2000);
}

TEST_CASE("toy-en-fr: articles and adjectives agree with nouns whose gender is known") {
  // Nouns from the lexicon, with their gender, written down again here.
  const std::set<std::string> masculine = {"chat", "chien", "livre", "jardin", "arbre", "oiseau", "homme",
                                           "chats", "chiens", "livres", "jardins", "arbres", "oiseaux", "hommes"};
  const std::set<std::string> feminine = {"maison", "table", "pomme", "école", "voiture", "horloge",
                                          "maisons", "tables", "pommes", "écoles", "voitures", "horloges"};
  // Words that may never stand right before (or right after) a noun of the other gender.
  const std::set<std::string> feminine_before = {"la", "une", "cette", "ma", "sa", "petite", "petites", "grande",
                                                 "grandes", "belle", "belles", "vieille", "vieilles", "nouvelle",
                                                 "nouvelles", "bonne", "bonnes"};
  const std::set<std::string> masculine_before = {"le", "un", "ce", "cet", "du", "au", "petit", "petits", "grand",
                                                  "grands", "beau", "bel", "beaux", "vieux", "vieil", "nouveau",
                                                  "nouvel", "nouveaux"};
  const std::set<std::string> feminine_after = {"noire", "noires", "blanche", "blanches", "verte", "vertes",
                                                "grise", "grises", "heureuse", "heureuses", "cassée", "cassées"};
  const std::set<std::string> masculine_after = {"noir", "noirs", "blanc", "blancs", "vert", "verts",
                                                 "heureux", "cassé", "cassés"};
  size_t checked = 0;
  Violations disagree;
  for (const std::vector<std::string>& sentence : toy_french()) {
    for (size_t i = 0; i < sentence.size(); ++i) {
      bool is_masculine = contains(masculine, sentence[i]), is_feminine = contains(feminine, sentence[i]);
      if (!is_masculine && !is_feminine) continue;
      ++checked;
      std::string before = i > 0 ? sentence[i - 1] : "", after = i + 1 < sentence.size() ? sentence[i + 1] : "";
      bool feminine_neighbour = contains(feminine_before, before) || contains(feminine_after, after);
      bool masculine_neighbour = contains(masculine_before, before) || contains(masculine_after, after);
      if ((is_masculine && feminine_neighbour) || (is_feminine && masculine_neighbour)) {
        disagree.add(line_of(sentence));
      }
    }
  }
  CHECK_MESSAGE(disagree.count == 0, disagree.first);
  CHECK(checked > 3000);
}

TEST_CASE("toy-en-fr: elision and contraction happen wherever French needs them, and only there") {
  // Before a vowel sound (a vowel, or a silent h) these words must be elided; before anything else they must not.
  const std::set<std::string> must_elide = {"le", "la", "je", "ne", "de", "ce", "ma", "sa"};
  const std::set<std::string> elided = {"l'", "j'", "n'", "d'", "cet"};
  const std::set<std::string> silent_h = {"homme", "hommes", "hôtel", "hôtels", "hôpital", "hôpitaux", "horloge",
                                          "horloges", "histoire", "histoires"};
  auto vowel_sound = [&](const std::string& word) {
    for (const std::string vowel : {"a", "e", "i", "o", "u", "é", "è", "ê", "â", "î", "ô", "œ"}) {
      if (word.rfind(vowel, 0) == 0) return true;
    }
    return silent_h.count(word) > 0;
  };
  std::map<std::string, size_t> seen;
  Violations missing, needless, not_contracted;
  for (const std::vector<std::string>& sentence : toy_french()) {
    for (size_t i = 0; i + 1 < sentence.size(); ++i) {
      const std::string& word = sentence[i];
      const std::string& next = sentence[i + 1];
      if (contains(must_elide, word) && vowel_sound(next)) missing.add(line_of(sentence));
      if (contains(elided, word) && !vowel_sound(next)) needless.add(line_of(sentence));
      // à and de never stand before le or les: they merge into au, aux, du, des.
      if ((word == "à" || word == "de") && (next == "le" || next == "les")) not_contracted.add(line_of(sentence));
      ++seen[word];
    }
  }
  CHECK_MESSAGE(missing.count == 0, "not elided: " << missing.first);
  CHECK_MESSAGE(needless.count == 0, "elided before a consonant: " << needless.first);
  CHECK_MESSAGE(not_contracted.count == 0, "not contracted: " << not_contracted.first);
  for (const std::string word : {"l'", "j'", "n'", "d'", "cet", "du", "au", "aux", "des"}) {
    INFO(word);
    CHECK(seen[word] > 10);   // each rule is exercised, so this test could fail
  }
  CHECK(seen["huit"] > 0);    // and "de huit" (aspirated h) stays unelided — checked above
}

TEST_CASE("toy-en-fr: relative clauses with qui, exactly where English has who or that") {
  const Corpus& corpus = default_corpus("toy-en-fr");
  size_t with_qui = 0, total = 0;
  Violations mismatched;
  for (const GeneratedSplit* split : splits_of(corpus)) {
    for (size_t s = 0; s < split->size(); ++s) {
      std::vector<std::string> english = words(split->source[s]);
      std::vector<std::string> french = words(split->target[s]);
      auto english_relatives = std::count(english.begin(), english.end(), "who") +
                               std::count(english.begin(), english.end(), "that");
      auto french_relatives = std::count(french.begin(), french.end(), "qui");
      if (french_relatives != english_relatives) mismatched.add(split->source[s] + " → " + split->target[s]);
      with_qui += french_relatives > 0;
      ++total;
    }
  }
  CHECK_MESSAGE(mismatched.count == 0, mismatched.first);
  CHECK(with_qui > total / 10);
}

TEST_CASE("toy-en-fr: a pronoun subject takes the verb ending of its person") {
  // The verb right after the pronoun (or after its ne / n'): tu …s, nous …ons, vous …ez, ils …ent or …ont.
  const std::map<std::string, std::vector<std::string>> endings = {
      {"tu", {"s"}}, {"nous", {"ons"}}, {"vous", {"ez"}}, {"ils", {"ent", "ont"}}};
  auto ends_with = [](const std::string& word, const std::string& end) {
    return word.size() >= end.size() && word.compare(word.size() - end.size(), end.size(), end) == 0;
  };
  size_t checked = 0;
  Violations disagree;
  for (const std::vector<std::string>& sentence : toy_french()) {
    auto found = endings.find(sentence[0]);
    if (found == endings.end()) continue;
    std::string verb = sentence[1] == "ne" || sentence[1] == "n'" ? sentence[2] : sentence[1];
    bool agrees = false;
    for (const std::string& end : found->second) agrees = agrees || ends_with(verb, end);
    if (!agrees) disagree.add(line_of(sentence));
    ++checked;
  }
  CHECK_MESSAGE(disagree.count == 0, disagree.first);
  CHECK(checked > 1000);
}

TEST_CASE("toy-en-fr: translation is a function — no English sentence has two different French translations") {
  std::map<std::string, std::string> translation;
  Violations two_translations;
  auto record = [&](const std::string& english, const std::string& french) {
    auto [where, inserted] = translation.emplace(english, french);
    if (!inserted && where->second != french) {
      two_translations.add(english + " → " + where->second + " | " + french);
    }
  };
  for (const GeneratedSplit* split : splits_of(default_corpus("toy-en-fr"))) {
    for (size_t i = 0; i < split->size(); ++i) record(split->source[i], split->target[i]);
  }
  // The corpus drops repeated pairs, so also draw raw sentences, repeats included: the short ones come up
  // many times, and every time must bring the same French.
  Generator generator(2);
  size_t repeats = 0;
  for (int i = 0; i < 20000; ++i) {
    auto [english, french] = draw_toy_en_fr_pair(generator);
    repeats += translation.count(english);
    record(english, french);
  }
  CHECK_MESSAGE(two_translations.count == 0, two_translations.first);
  CHECK(repeats > 500);
}
