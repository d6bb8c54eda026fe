// synthetic.h — generated parallel corpora: what `attnlab corpus` writes, and the three symbol tasks.
//
// Before a model translates English it should be able to *copy*: a task whose answer is known lets a learner
// check that the whole pipeline (tokenizer → encoder → cross-attention → decoder → greedy decoding) works, and
// the attention picture of each task has a shape one can predict:
//
//   copy     "k c q a"  →  "k c q a"     the cross-attention is the diagonal
//   reverse  "k c q a"  →  "a q c k"     the anti-diagonal
//   sort     "k c q a"  →  "a c k q"     each output symbol looks at where that symbol sits in the input
//
// Sentences are space-separated symbols from a 20-word vocabulary ("a" … "t", sorted in that order), 3 to 15
// symbols long, one sentence per line. The files hold no end-of-sequence token: the model adds eos itself
// (src/data/batch.h) and the decoder learns to predict it, which is how it learns when to stop.
//
// Every corpus is split three ways, train / valid / test, and is a pure function of (task, seed, train size):
// every random choice draws from one Generator (src/tensor/random.h), so the files are identical byte for byte
// on every machine. The test split is drawn first, then valid, then train, so --size changes only train.
// No pair appears twice anywhere in the corpus, so valid and test measure translation of sentences the model
// has never seen. The toy English→French grammar lives in toy_en_fr.h and uses the same machinery.
//
// A generator knows which source word made each target word, so the tasks that can say it (copy, reverse, sort,
// toy-en-fr) also write the gold alignment of every pair and its phenomena, FILE.align and FILE.tags
// (data/alignment.h): the truth a picture of attention can be scored against. Copy links i-i, reverse
// i-(n−1−i); sort links each target symbol to where it sits in the source — surely when it occurs once, possibly
// to each occurrence when it repeats (which one "produced" it is not defined). In all three, the target words
// whose symbol occurs more than once in the sentence are tagged repeated_symbol: there, attention that looks at
// the symbol rather than the position can pick the wrong occurrence.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/alignment.h"
#include "tensor/random.h"
#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// One generated split, line-aligned: target[i] is the translation of source[i]. (Not data/corpus.h's
// ParallelText, which holds a corpus read from files: the generator and the reader are separate chapters of data.)
struct GeneratedSplit {
  std::vector<std::string> source;
  std::vector<std::string> target;
  std::vector<Alignment> alignments;              // gold of pair i (alignment.h), when the corpus is aligned
  std::vector<std::vector<PhenomenonTag>> tags;   // phenomena of pair i, on its target words, likewise
  size_t size() const { return source.size(); }
};

// A generated corpus, written as DIR/{train,valid,test}.{source_suffix,target_suffix}, and .align and .tags
// when it is aligned.
struct Corpus {
  std::string task;
  std::string source_suffix;   // "src" for the symbol tasks, "en" for toy-en-fr
  std::string target_suffix;   // "tgt",                      "fr"
  bool aligned = false;        // every split holds an alignment and tags per pair (every task but cloze)
  GeneratedSplit train, valid, test;
};

// One generated pair with its gold (alignment.h): the links from source to target words, and the phenomena the
// pair shows, on its target words.
struct AlignedPair {
  std::string source;
  std::string target;
  Alignment alignment;
  std::vector<PhenomenonTag> tags;
};

// One task `attnlab corpus` can generate, with its default sizes. valid and test sizes are fixed: --size sets
// only the train size.
struct CorpusTask {
  std::string name;
  std::string summary;
  int64_t train_size;
  int64_t valid_size;
  int64_t test_size;
};
const std::vector<CorpusTask>& corpus_tasks();     // copy, reverse, sort, toy-en-fr, cloze
std::vector<std::string> corpus_task_names();

constexpr uint64_t default_corpus_seed = 1;
constexpr int64_t max_corpus_train_size = 1000000;   // a corpus is held in memory while it is drawn

// Generates a task's corpus. train_size empty: the task's default. Throws attnlab::Error for an unknown task
// (suggesting the closest name) or a train size outside 1 … max_corpus_train_size.
Corpus generate_corpus(const std::string& task, uint64_t seed = default_corpus_seed,
                       std::optional<int64_t> train_size = std::nullopt);

// The symbol tasks on their own: task is "copy", "reverse" or "sort".
Corpus make_symbol_corpus(const std::string& task, uint64_t seed, int64_t train_size);
const std::vector<std::string>& symbol_vocabulary();   // "a" … "t", in sorting order
constexpr int64_t symbol_min_length = 3;
constexpr int64_t symbol_max_length = 15;

// The symbol tasks' gold: the alignment of a (source, target) pair of `task`, and its repeated_symbol tag.
AlignedPair align_symbol_pair(const std::string& task, const std::string& source, const std::string& target);

// The shared splitting rule. draw_pair makes one (source, target) pair from the generator; draw_splits calls
// it for test, then valid, then train, skipping any pair already drawn, until each split has its size. Throws
// attnlab::Error if the generator runs out of new pairs (asked for more than the task can make).
// draw_aligned_splits does the same with pairs that carry their gold alignment and tags, and keeps those when
// corpus.aligned is set; a pair is new when its text is (the first alignment drawn for a text is kept).
using PairDrawer = std::function<std::pair<std::string, std::string>(Generator&)>;
void draw_splits(Corpus& corpus, Generator& generator, const PairDrawer& draw_pair, int64_t train_size,
                 int64_t valid_size, int64_t test_size);
using AlignedPairDrawer = std::function<AlignedPair(Generator&)>;
void draw_aligned_splits(Corpus& corpus, Generator& generator, const AlignedPairDrawer& draw_pair,
                         int64_t train_size, int64_t valid_size, int64_t test_size);

// Writes the six files into directory (created if missing), and for an aligned corpus the six more
// {train,valid,test}.{align,tags}, each through a temporary file renamed into place, so no half-written file is
// ever left under the final name. Returns (path, line count) per file, in the order train, valid, test and,
// within a split, source, target, align, tags. Throws attnlab::Error naming the path on failure.
struct WrittenFile {
  std::string path;
  size_t lines;
};
std::vector<WrittenFile> write_corpus(const Corpus& corpus, const std::string& directory);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
