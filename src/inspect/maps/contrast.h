// contrast.h — "why `grande` and not `grand`?": the gap between two next tokens, attributed to the source words.
//
// flow.h attributes log p(y_t), the chosen token's log-probability, to the source words. But a learner rarely asks
// "why grande?" in a vacuum: they ask why grande rather than grand, and most of log p(grande) — that the next word
// is an adjective, French, feminine or not — is shared with the alternative. The contrast keeps only the difference
// (Yin & Neubig 2022, "Interpreting Language Models with Contrastive Explanations", §2):
//     Δ_t = log p(c | y_<t, x) − log p(a | y_<t, x) = z_c − z_a          c chosen, a the alternative, z the logits
// (the softmax's normaliser cancels: the gap is the difference of two logits). It is attributed to the source token
// embeddings e_s = E[x_s] · √d_model (positions kept) as flow.h attributes log p:
//     gradient × input       g_s = e_s · ∂Δ_t/∂e_s
//     integrated gradients   a_s = e_s · (1/m) Σ_{k=1..m} ∂Δ_t/∂e_s (α_k e),  α_k = (k − ½)/m,  baseline e' = 0
// Completeness (Sundararajan et al. 2017, §3): Σ_s a_s = Δ_t(e) − Δ_t(0) in the limit m → ∞, so the gap splits in two
//     Δ_t(e) = Δ_t(0)          what the target prefix alone says (every source embedding 0, the positions kept)
//            + Σ_s a_s         what the source words add, word by word
//            + error           Σ_s a_s − (Δ_t(e) − Δ_t(0)), reported: the midpoint rule's error falls like 1/m²
// a_s > 0: word s pushed towards c rather than a. Because Δ is linear in the log-probabilities, the contrast of c
// and a is IG(log p(c)) − IG(log p(a)) along the same path: swapping c and a flips every sign, and the contrasts
// c–a and a–b add up to c–b (tests/inspect/test_contrast.cpp checks both).
// Beside it, not contrastive: ALTI+ (src/inspect/align/alti.h) splits what decoder position t holds between the
// source tokens and the target prefix, Σ_s R_src[t][s] + Σ_u R_tgt[t][u] = 1 — how much of the input the prediction
// is read from came from the source, whichever token it then favours.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/trace.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// One contrast asked for: decoder position t and the alternative token's id; `chosen` -1: the token the
// translation has there (target_output[t]), else any other id (the tests ask for c–a and a–c).
struct ContrastQuestion {
  int64_t position = 0;
  int32_t alternative = 0;
  int32_t chosen = -1;
};

// The gap and its attributions at one position, from one forward and backward pass of a batch of m + 2 copies of
// the sentence (the m points α_k e, e itself and the baseline 0), prefix y_≤t. `trace`: the sentence's recorded
// pass (trace_sentence; it holds e). Fills everything but the ALTI+ fields and the tokens' text. Leaves the model's
// parameter gradients zero. Throws attnlab::Error naming the position or the token when either is out of range,
// or when chosen and alternative are the same token (a gap of 0 has nothing to explain).
Contrast contrast_at(Seq2Seq& model, const SentenceTrace& trace, const ContrastQuestion& question, int64_t steps);

// Reads "POS:TOKEN" (attnlab attention --contrast 2:grand; POS a decoder position from 0, TOKEN a target token as
// the decoding view shows it) into a question, against the target vocabulary and the picture's T positions. Throws
// attnlab::Error naming what is wrong: the form, a position past the translation, a token not in the vocabulary,
// the chosen token itself.
ContrastQuestion contrast_question(const std::string& spec, const Tokenizer& target, const AttentionPicture& picture);

// The questions of "all": at every position, each of the five likeliest tokens of the decoding view but the chosen
// one (4 or 5 a position, so up to 5 T contrasts, each a pass of m + 2 sentences).
std::vector<ContrastQuestion> likeliest_alternatives(const SentenceTrace& trace);

// The questions of attnlab attention --contrast: each SPEC "POS:TOKEN" (contrast_question), or "all"
// (likeliest_alternatives). Throws attnlab::Error as contrast_question does.
std::vector<ContrastQuestion> contrast_questions(const std::vector<std::string>& specs, const Tokenizer& target,
                                                 const AttentionPicture& picture, const SentenceTrace& trace);

// Answers the questions on the picture's sentence (`trace`: its recorded pass, record_attention's), with the tokens'
// text and ALTI+'s shares (computed once; when ALTI+ refuses a layer, alti_error says why).
std::vector<Contrast> contrasts_of(LoadedRun& run, const AttentionPicture& picture, const SentenceTrace& trace,
                                   const std::vector<ContrastQuestion>& questions, int64_t steps);

// One line for the terminal: "position 2, grande (p 0.81) over grand (p 0.07): gap 2.45 = 0.31 without the source
// + 2.14 from the source words (integrated gradients, m = 16, completeness error 0.0012); ALTI+: 58 % source".
std::string contrast_summary(const Contrast& contrast);

// One contrast as attention.json's "contrasts" hold it and serve's api/contrast answers it (attention_json.cpp has
// the schema).
nlohmann::ordered_json contrast_json(const Contrast& contrast);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
