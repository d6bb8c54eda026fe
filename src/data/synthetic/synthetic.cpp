// synthetic.cpp — the symbol tasks (copy, reverse, sort), the three-way split, and writing the files.
//
// A symbol sentence: a length L drawn uniformly from 3..15, then L symbols drawn uniformly (with repetition)
// from the 20-symbol vocabulary. The target is the same symbols copied, reversed, or sorted.
#include "data/synthetic/synthetic.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "data/synthetic/cloze.h"
#include "data/synthetic/toy_en_fr.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace fs = std::filesystem;

constexpr int64_t symbol_train_size = 10000;
constexpr int64_t symbol_valid_size = 500;
constexpr int64_t symbol_test_size = 500;

const std::vector<CorpusTask>& corpus_tasks() {
  static const std::vector<CorpusTask> tasks = {
      {"copy", "the target is the source symbols unchanged", symbol_train_size, symbol_valid_size,
       symbol_test_size},
      {"reverse", "the target is the source symbols in reverse order", symbol_train_size, symbol_valid_size,
       symbol_test_size},
      {"sort", "the target is the source symbols sorted (a < b < … < t)", symbol_train_size, symbol_valid_size,
       symbol_test_size},
      {"toy-en-fr", "English → French from a small grammar (agreement, adjective order, ne … pas, elision, qui)",
       toy_en_fr_train_size, toy_en_fr_valid_size, toy_en_fr_test_size},
      {"cloze", "reading comprehension: a short document, a query with a @placeholder, the answer (data/synthetic/cloze.h)",
       cloze_train_size, cloze_valid_size, cloze_test_size},
  };
  return tasks;
}

std::vector<std::string> corpus_task_names() {
  std::vector<std::string> names;
  for (const CorpusTask& task : corpus_tasks()) names.push_back(task.name);
  return names;
}

Corpus generate_corpus(const std::string& task, uint64_t seed, std::optional<int64_t> train_size) {
  const std::vector<CorpusTask>& tasks = corpus_tasks();
  auto found = std::find_if(tasks.begin(), tasks.end(), [&](const CorpusTask& t) { return t.name == task; });
  if (found == tasks.end()) {
    throw Error("corpus: there is no task called '" + task + "' (did you mean '" +
                closest_match(task, corpus_task_names()) + "'?). The tasks are: " + join(corpus_task_names()));
  }
  int64_t size = train_size.value_or(found->train_size);
  if (size < 1 || size > max_corpus_train_size) {
    throw Error("corpus: --size is the number of training pairs and must be between 1 and " +
                std::to_string(max_corpus_train_size) + ", not " + std::to_string(size) + " (the default for " +
                task + " is " + std::to_string(found->train_size) + ")");
  }
  if (task == "toy-en-fr") return make_toy_en_fr_corpus(seed, size);
  if (task == "cloze") return make_cloze_corpus(seed, size);
  return make_symbol_corpus(task, seed, size);
}

const std::vector<std::string>& symbol_vocabulary() {
  static const std::vector<std::string> symbols = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
                                                   "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"};
  return symbols;
}

namespace {

std::string join_words(const std::vector<std::string>& words) { return join(words, " "); }

// One source sentence of random symbols; the task decides the target.
std::vector<std::string> draw_symbols(Generator& generator) {
  const std::vector<std::string>& symbols = symbol_vocabulary();
  int64_t length = generator.integer(symbol_min_length, symbol_max_length + 1);
  std::vector<std::string> sentence;
  for (int64_t i = 0; i < length; ++i) {
    sentence.push_back(symbols[static_cast<size_t>(generator.integer(0, static_cast<int64_t>(symbols.size())))]);
  }
  return sentence;
}

}  // namespace

Corpus make_symbol_corpus(const std::string& task, uint64_t seed, int64_t train_size) {
  if (task != "copy" && task != "reverse" && task != "sort") {
    throw Error("make_symbol_corpus: the symbol tasks are copy, reverse and sort, not '" + task + "'");
  }
  Corpus corpus;
  corpus.task = task;
  corpus.source_suffix = "src";
  corpus.target_suffix = "tgt";
  Generator generator(seed);
  draw_splits(
      corpus, generator,
      [&task](Generator& g) {
        std::vector<std::string> source = draw_symbols(g);
        std::vector<std::string> target = source;
        if (task == "reverse") std::reverse(target.begin(), target.end());
        // Single letters sort as strings in vocabulary order.
        if (task == "sort") std::sort(target.begin(), target.end());
        return std::make_pair(join_words(source), join_words(target));
      },
      train_size, symbol_valid_size, symbol_test_size);
  return corpus;
}

void draw_splits(Corpus& corpus, Generator& generator, const PairDrawer& draw_pair, int64_t train_size,
                 int64_t valid_size, int64_t test_size) {
  std::set<std::pair<std::string, std::string>> drawn;   // every pair so far, in any split
  auto fill = [&](GeneratedSplit& split, int64_t size, const char* name) {
    // A generous cap on attempts, so asking for more pairs than the task can make ends in a message, not a hang.
    int64_t attempts_left = 100 * size + 100000;
    while (static_cast<int64_t>(split.size()) < size) {
      if (attempts_left-- == 0) {
        throw Error("corpus: " + corpus.task + " could not make " + std::to_string(size) + " distinct " + name +
                    " pairs (found " + std::to_string(split.size()) + " new ones in " +
                    std::to_string(100 * size + 100000) + " draws); ask for a smaller --size");
      }
      std::pair<std::string, std::string> pair = draw_pair(generator);
      if (!drawn.insert(pair).second) continue;   // already in this or an earlier split
      split.source.push_back(std::move(pair.first));
      split.target.push_back(std::move(pair.second));
    }
  };
  fill(corpus.test, test_size, "test");
  fill(corpus.valid, valid_size, "valid");
  fill(corpus.train, train_size, "train");
}

namespace {

// Writes lines to path atomically (util/files.h), so the final name only ever holds a complete file.
void write_lines(const fs::path& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  write_file_atomically(path.string(), text);
}

}  // namespace

std::vector<WrittenFile> write_corpus(const Corpus& corpus, const std::string& directory) {
  std::error_code error;
  if (fs::exists(directory, error) && !fs::is_directory(directory, error)) {
    throw Error("corpus: the output directory " + directory + " is a file; give --out a directory");
  }
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory, error)) {
    throw Error("corpus: cannot create the output directory " + directory +
                (error ? ": " + error.message() : std::string()));
  }
  std::vector<WrittenFile> written;
  const std::pair<const char*, const GeneratedSplit*> splits[] = {
      {"train", &corpus.train}, {"valid", &corpus.valid}, {"test", &corpus.test}};
  for (const auto& [name, text] : splits) {
    for (bool source : {true, false}) {
      fs::path path = fs::path(directory) /
                      (std::string(name) + "." + (source ? corpus.source_suffix : corpus.target_suffix));
      const std::vector<std::string>& lines = source ? text->source : text->target;
      write_lines(path, lines);
      written.push_back({path.string(), lines.size()});
    }
  }
  return written;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
