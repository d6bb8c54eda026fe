// alignment_report.h — every method of alignment_methods.h scored against a corpus's gold alignments: AER,
// precision and recall (alignment_error.h), per phenomenon, and how faithful each is (faithfulness.h).
//
// For each sentence pair of the split, teacher-forced on the reference:
//   1. every attention-based method (the cross-attention heads and their means, value norms, rollout, ALTI+) —
//      one recorded pass each — gives a word matrix, its argmax a hard alignment A (each target word to one source
//      word), counted against the gold's sure and possible links; and per phenomenon tag of the pair, the same
//      counted over the tag's target words only;
//   2. on the first `gradient_limit` pairs (the gradient subset), also gradient × input and integrated gradients
//      (T backward passes each: far slower), and the deletion test of every method and of a random ranking;
//   3. the model's own translation (greedy, or decode.beam of the run) of every source: where it equals the
//      reference, the teacher-forced pass on the reference IS the pass on the model's own output, and those pairs
//      are counted a second time into `own` — the alignment of what the model actually said.
// The rates come from counts summed over sentences (Och & Ney's corpus-level AER).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/alignment.h"
#include "data/alignment_error.h"
#include "inspect/align/faithfulness.h"
#include "run/run.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A split's sentence pairs and their gold.
struct AlignmentCorpus {
  std::string source_file, target_file, alignment_file, tags_file;   // tags_file empty: the corpus has no .tags
  std::vector<std::string> sources, targets;
  std::vector<Alignment> gold;                                        // one per pair
  std::vector<std::vector<PhenomenonTag>> tags;                       // one per pair, or empty
};

// The run config's `split` (valid | test: data.<split>_src, data.<split>_tgt) and its gold: the target file's
// .align (alignment_path_for) and, when it exists, .tags. Throws attnlab::Error for a split the config does not
// name or names as a TSV file, and when the .align file is missing ("this corpus has no alignments: regenerate it
// with attnlab corpus …"), has another line count than the corpus, or holds an index outside its pair.
AlignmentCorpus read_alignment_corpus(const RunConfig& config, const std::string& split);

struct MethodScore {
  std::string name, family;                        // as MethodMatrix (alignment_methods.h)
  int64_t layer = -1, head = -1;
  int64_t sentences = 0;                           // pairs it was scored on
  AlignmentCounts reference;                       // teacher-forced on the reference, every pair scored
  AlignmentCounts own;                             // the pairs whose own translation equals the reference
  int64_t own_sentences = 0;                       // how many of those it was scored on
  std::map<std::string, AlignmentCounts> phenomena;   // per tag name, over the tag's target words
  DeletionSums deletion;                           // the deletion test, on the gradient subset
};

struct AlignmentScoreOptions {
  int64_t limit = 0;              // score the first `limit` pairs (0: all)
  int64_t gradient_limit = 200;   // the gradient methods and the deletion test on the first this many (0: none)
  int64_t integration_steps = 16; // integrated gradients' steps m
  FaithfulnessOptions faithfulness;
};

struct AlignmentReport {
  std::string checkpoint;
  int64_t step = 0;
  int64_t sentences = 0;            // pairs scored by the attention-based methods
  int64_t own_sentences = 0;        // of those, pairs whose own translation equals the reference
  int64_t gradient_sentences = 0;   // pairs also scored by the gradient methods and the deletion test
  int64_t skipped_empty = 0;        // pairs with an empty side (nothing to align)
  int64_t skipped_long = 0;         // pairs longer than the model's positions
  int64_t integration_steps = 0, deletions = 0;   // m and K
  double loss = 0;                  // −log p per target token (</s> included), teacher-forced on the scored pairs
  std::vector<MethodScore> methods; // in the order the first pair gave them
  DeletionSums random;              // the random ranking's deletion sums
  std::vector<std::string> notes;   // kinds scored their own way (kind_notes), a method left out and why
  double seconds_translation = 0, seconds_attention = 0, seconds_gradient = 0, seconds_deletion = 0;
};

// Scores run's model on `corpus` (see the file comment); logs progress lines (spdlog, stderr) every 10 seconds.
// Throws attnlab::Error when no pair is left to score or a sentence's tokens cannot be put back into words.
AlignmentReport score_alignments(LoadedRun& run, const AlignmentCorpus& corpus, const AlignmentScoreOptions& options);

// The method with the lowest AER on the reference among those of `family` (any family when empty); null when none.
const MethodScore* best_method(const AlignmentReport& report, const std::string& family = "");

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
