// evaluate.h — how good a trained model is on a test set, by every measure attnlab knows.
//
// From the decoded translations (what a user sees):
//   BLEU         corpus BLEU, sacreBLEU's default (bleu.h)               0–100
//   chrF         character n-gram F-score, β = 2 (chrf.h)                0–100
//   exact match  share of sentences whose translation equals the reference exactly
// From the teacher-forced pass (the model reads the reference prefix, as in training):
//   loss, perplexity = e^loss, token accuracy (train/validation.h)
//   attention entropy  H(row) = − Σ_j a_ij · ln a_ij, in nats, averaged over every real query row, head and
//                      layer of each kind (encoder self, decoder self, cross). ln(#keys) is a uniform row,
//                      0 a row that looks at one key. External attention's rows are over its memory slots,
//                      not over tokens, so its entropy compares with ln(slots). Hard attention's rows are
//                      its distribution a, what the key is drawn from (not the one-hot row of the key).
// Sources and references get the clean-up the training text had (Unicode spaces normalised, lower-cased when
// data.lowercase is set), so a lower-casing run is scored against lower-cased references.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/transformer.h"
#include "run/config.h"
#include "run/run.h"
#include "train/validation.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct AttentionEntropy {
  double encoder = 0, decoder = 0, cross = 0;  // nats
};

struct EvalResult {
  double bleu = 0, chrf = 0, exact_match = 0;   // exact_match in [0, 1]
  ValidationResult teacher_forced;              // loss, perplexity, token_accuracy
  AttentionEntropy attention_entropy;
  int64_t sentences = 0;                        // translated (= hypotheses.size())
  int64_t teacher_forced_pairs = 0;             // pairs in the teacher-forced pass (both sides non-empty and
                                                // at most data.max_len tokens)
  std::vector<std::string> hypotheses;          // detokenised, one per source sentence
};

// Translates every source (with run.config.decode, beam = `beam`) and scores it against its reference.
// Throws attnlab::Error when the lists differ in length or are empty, and when a source has more tokens than the
// model has positions (learned positions: model.max_len) — scores of a cut source would mislead — naming that
// source as name_source(i) ("line 7 of test.en"; by default "source sentence 7").
EvalResult evaluate(LoadedRun& run, std::vector<std::string> sources, std::vector<std::string> references,
                    int64_t beam, const std::function<std::string(size_t)>& name_source = {});

// A model with hard attention (attention/hard.cpp), evaluated three ways — by the argmax key, by a sampled key
// and by the expectation (the soft mix) — so that "did not learn where to look" (all three poor) is told apart
// from "the argmax of a flat row" (expectation good, argmax poor) and from a row too spread to sample (sample
// poor). The same weights each time: only model.attention.<use>.hard_eval changes. Empty for a model without hard
// attention.
struct HardEvalResult {
  HardEval mode = HardEval::argmax;
  EvalResult result;
};
std::vector<HardEvalResult> evaluate_hard_modes(LoadedRun& run, const std::vector<std::string>& sources,
                                                const std::vector<std::string>& references, int64_t beam,
                                                const std::function<std::string(size_t)>& name_source = {});

// Mean entropy of the attention rows of each kind over a teacher-forced pass of `batches` (see above).
AttentionEntropy attention_entropy(Seq2Seq& model, const std::vector<Batch>& batches);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
