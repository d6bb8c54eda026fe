// faithfulness.h — does the model USE what a method points at? Deletion curves, summed up as AOPC.
//
// A method can agree with the gold alignment and still not be what the model relies on: plausible is not faithful
// (Jacovi & Goldberg 2020; Jain & Wallace 2019). So ask the model itself. For target word j, rank the source words
// by a method's scores W_m[j, ·] (alignment_methods.h), delete the top k — every token of each such word replaced
// by <unk>, so the positions stay — run the teacher-forced pass again and see how far the word's log-probability
// falls:
//     drop_m(j, k) = log p(y_j | x) − log p(y_j | x with method m's top k words for j deleted),   k = 1 … K
// where log p(y_j) of a word is the sum of log p over its target tokens (the chain rule), the decoder reading the
// reference in both passes. The area over that perturbation curve (AOPC; Samek et al. 2017, "Evaluating the
// Visualization of What a Deep Neural Network Has Learned", eq. 12):
//     AOPC_m = 1/(K + 1) · Σ_{k=0..K} ⟨drop_m(j, k)⟩_j,      drop(j, 0) = 0,   ⟨·⟩_j the mean over target words
// The larger, the sooner deleting what the method ranks first hurts: the method points at what the model uses.
// A random ranking (seeded: the same numbers on every run) is the floor every method is compared with.
// K = 3 (the toy sentences have 3 to 15 words); a sentence of I < k words loses all of them at k. The words: every
// target word of the sentence, the final "." included. Ranks tie-break to the earlier source word.
// Cost: all of a sentence's deletions go in batches of one teacher-forced pass; a deleted set of words is one row,
// shared by every method and target word that asks for it (many heads rank the same word first).
#pragma once

#include <cstdint>
#include <vector>

#include "inspect/align/alignment_methods.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct FaithfulnessOptions {
  int64_t K = 3;        // the deletions k = 1 … K
  uint64_t seed = 1;    // the random ranking's
};

// One ranking's deletion curve summed over target words; += sums over sentences.
struct DeletionSums {
  std::vector<double> drop;   // [K]: Σ_j drop(j, k), k = 1 … K
  int64_t words = 0;          // the target words summed over
  DeletionSums& operator+=(const DeletionSums& other);
  std::vector<double> curve() const;   // [K]: the mean drop at each k (0 with no words)
  double aopc() const;                 // 1/(K + 1) Σ_{k=0..K} mean drop(k); 0 with no words
};

// The source words ranked by `scores` [I], highest first; ties: the smaller index first. A non-finite score ranks
// last.
std::vector<int32_t> rank_source_words(const double* scores, int64_t I);

// The deletion sums of every method of `pair` (in pair.methods' order), then of the random ranking (the last
// element). sentence_seed makes the random ranking differ between sentences yet repeat between runs. Throws
// attnlab::Error for K < 1.
std::vector<DeletionSums> deletion_sums(Seq2Seq& model, const SentenceAlignment& pair, const FaithfulnessOptions& options,
                                        uint64_t sentence_seed);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
