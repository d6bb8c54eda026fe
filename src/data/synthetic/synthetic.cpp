// synthetic.cpp — the symbol tasks (copy, reverse, sort), the three-way split, and writing the files.
//
// A symbol sentence: a length L drawn uniformly from 3..15, then L symbols drawn uniformly (with repetition)
// from the 20-symbol vocabulary. The target is the same symbols copied, reversed, or sorted, and its gold
// alignment follows from the rule (synthetic.h):
//   copy     k c k a  →  k c k a     0-0 1-1 2-2 3-3
//   reverse  k c k a  →  a k c k     0-3 1-2 2-1 3-0
//   sort     k c k a  →  a c k k     0?2 0?3 1-1 2?2 2?3 3-0     (either k may have become either k)
// and in all three the two k's of the target are tagged repeated_symbol.
#include "data/synthetic/synthetic.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

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

std::vector<std::string> split_words(const std::string& sentence) {
  std::vector<std::string> words;
  std::istringstream in(sentence);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

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

AlignedPair align_symbol_pair(const std::string& task, const std::string& source, const std::string& target) {
  if (task != "copy" && task != "reverse" && task != "sort") {
    throw Error("align_symbol_pair: the symbol tasks are copy, reverse and sort, not '" + task + "'");
  }
  const std::vector<std::string> source_words = split_words(source);
  const std::vector<std::string> target_words = split_words(target);
  const auto n = static_cast<int32_t>(source_words.size());
  AlignedPair pair{source, target, {}, {}};
  PhenomenonTag repeated{"repeated_symbol", {}};
  for (int32_t j = 0; j < static_cast<int32_t>(target_words.size()); ++j) {
    const std::string& symbol = target_words[static_cast<size_t>(j)];
    const bool repeats = std::count(source_words.begin(), source_words.end(), symbol) > 1;
    if (repeats) repeated.target_words.push_back(j);
    if (task == "copy") pair.alignment.sure.push_back({j, j});
    if (task == "reverse") pair.alignment.sure.push_back({n - 1 - j, j});
    for (int32_t i = 0; task == "sort" && i < n; ++i) {   // sort: every occurrence of the symbol in the source
      if (source_words[static_cast<size_t>(i)] == symbol) {
        (repeats ? pair.alignment.possible : pair.alignment.sure).push_back({i, j});
      }
    }
  }
  std::sort(pair.alignment.sure.begin(), pair.alignment.sure.end());
  std::sort(pair.alignment.possible.begin(), pair.alignment.possible.end());
  if (!repeated.target_words.empty()) pair.tags.push_back(repeated);
  return pair;
}

Corpus make_symbol_corpus(const std::string& task, uint64_t seed, int64_t train_size) {
  if (task != "copy" && task != "reverse" && task != "sort") {
    throw Error("make_symbol_corpus: the symbol tasks are copy, reverse and sort, not '" + task + "'");
  }
  Corpus corpus;
  corpus.task = task;
  corpus.source_suffix = "src";
  corpus.target_suffix = "tgt";
  corpus.aligned = true;
  Generator generator(seed);
  draw_aligned_splits(
      corpus, generator,
      [&task](Generator& g) {
        std::vector<std::string> source = draw_symbols(g);
        std::vector<std::string> target = source;
        if (task == "reverse") std::reverse(target.begin(), target.end());
        // Single letters sort as strings in vocabulary order.
        if (task == "sort") std::sort(target.begin(), target.end());
        return align_symbol_pair(task, join_words(source), join_words(target));
      },
      train_size, symbol_valid_size, symbol_test_size);
  return corpus;
}

void draw_aligned_splits(Corpus& corpus, Generator& generator, const AlignedPairDrawer& draw_pair,
                         int64_t train_size, int64_t valid_size, int64_t test_size) {
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
      AlignedPair pair = draw_pair(generator);
      if (!drawn.insert({pair.source, pair.target}).second) continue;   // already in this or an earlier split
      split.source.push_back(std::move(pair.source));
      split.target.push_back(std::move(pair.target));
      if (!corpus.aligned) continue;
      split.alignments.push_back(std::move(pair.alignment));
      split.tags.push_back(std::move(pair.tags));
    }
  };
  fill(corpus.test, test_size, "test");
  fill(corpus.valid, valid_size, "valid");
  fill(corpus.train, train_size, "train");
}

// A task without gold alignments (cloze) draws through the same rule.
void draw_splits(Corpus& corpus, Generator& generator, const PairDrawer& draw_pair, int64_t train_size,
                 int64_t valid_size, int64_t test_size) {
  auto text_only = [&draw_pair](Generator& g) {
    auto [source, target] = draw_pair(g);
    return AlignedPair{std::move(source), std::move(target), {}, {}};
  };
  draw_aligned_splits(corpus, generator, text_only, train_size, valid_size, test_size);
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
  for (const auto& [name, split] : splits) {
    std::vector<std::pair<std::string, std::vector<std::string>>> files = {
        {corpus.source_suffix, split->source}, {corpus.target_suffix, split->target}};
    if (corpus.aligned) {
      files.push_back({"align", {}});
      files.push_back({"tags", {}});
      for (size_t k = 0; k < split->size(); ++k) {
        files[2].second.push_back(format_alignment(split->alignments[k]));
        files[3].second.push_back(format_tags(split->tags[k]));
      }
    }
    for (const auto& [suffix, lines] : files) {
      fs::path path = fs::path(directory) / (std::string(name) + "." + suffix);
      write_lines(path, lines);
      written.push_back({path.string(), lines.size()});
    }
  }
  return written;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
