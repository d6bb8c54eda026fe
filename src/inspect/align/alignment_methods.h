// alignment_methods.h — every way attnlab draws "which source word did this target word come from?", for one
// sentence pair, as a soft matrix over words that an alignment can be read from.
//
// The explorer (chapter "Looking inside") shows many pictures of one sentence: the weights of each head, rollout,
// value norms, gradient attributions. Each is an answer to the same question, and a gold alignment
// (src/data/alignment.h) can say which answer is right. This file turns each picture into a matrix
//     W_m [target words J, source words I]        W_m[j, i]: how much method m says target word j drew from word i
// from ONE teacher-forced pass on the reference — every method sees the same target, so their differences are
// theirs, not the decoder's. The methods:
//   cross.l<L>.h<H>        cross-attention weights of layer L, head H (row t: the decoder position that PREDICTS
//                          target token t, which reads token t − 1 — the convention of alignment pictures)
//   cross.l<L>.mean        the mean over that layer's heads
//   value_norms.l<L>       Σ_h ‖α_hij · f_h(x_j)‖ (Kobayashi et al. 2020; flow.h), summed over the layer's heads
//   rollout                attention rollout through the whole encoder–decoder, source part (flow.h)
//   alti_plus              ALTI+ (alti.h): rollout of how close each token's vector is to the layer's output
//   gradient_x_input       e_s · ∂ log p(y_t)/∂e_s (flow.h), signed: the most positive source word aligns
//   integrated_gradients   the same integrated from the zero embedding (flow.h), signed
// Tokens become words by word_pieces.h: sum over a word's source pieces, mean over its target pieces, the </s>
// row dropped. A hard alignment is read off by alignment_error.h's argmax_alignment: each target word to its
// highest-scoring source word.
// Kinds whose weights are not token-to-token: linear attention never forms its weights but implies them,
// φ(q_i)·φ(k_j) / Σ_k φ(q_i)·φ(k_k), and those are scored; hard attention's recorded weights are its distribution
// a (its argmax is the key it picks with hard_eval: argmax); external attention cannot be cross-attention (its
// keys are memory slots; the config refuses it), and where it is self-attention rollout and ALTI+ count its
// layers as mixing no tokens. kind_notes() says so in one line per kind the model uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inspect/align/word_pieces.h"
#include "run/run.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct MethodMatrix {
  std::string name;              // "cross.l1.h2", "rollout", … (the list above)
  std::string family;            // head | head_mean | value_norms | rollout | alti_plus | gradient_x_input |
                                 // integrated_gradients
  int64_t layer = -1, head = -1; // for the per-layer and per-head methods; −1 otherwise
  std::vector<double> words;     // [J, I], row-major
};

struct SentenceAlignment {
  WordPieces source, target;          // the sentence pair's words and tokens
  std::vector<MethodMatrix> methods;  // in the order of the list above
  std::vector<double> log_prob;       // [target tokens + 1]: log p(y_t | y_<t, x) of the pass, </s> last
  std::string alti_error;             // why ALTI+ is missing (empty when it is there)
};

// The matrices of every attention-based method for `source` → `target` (lines of the corpus; `where` names them
// in errors), from one teacher-forced pass on the paper's path. Throws attnlab::Error when a sentence has no words
// or its tokens cannot be put back into words (word_pieces.h). ALTI+ is left out, saying why in alti_error, when a
// layer's output is not a sum of per-token terms (alti.h).
SentenceAlignment align_sentence(LoadedRun& run, const std::string& source, const std::string& target,
                                 const std::string& where);

struct AttentionPicture;   // inspect/maps/attention_maps.h

// Adds to `pair` (its words and tokens set) the methods one recorded picture holds: every cross-attention head, the
// head mean and value norms per layer, rollout, and — when the picture has them (attribution.steps > 0) —
// gradient × input and integrated gradients. align_sentence() and the explorer's gold (gold_on_picture.h) use it.
void add_picture_methods(const AttentionPicture& picture, SentenceAlignment& pair);

// Adds gradient_x_input and integrated_gradients (integration_steps ≥ 1 steps) to `pair`: T forward and backward
// passes of a batch of integration_steps + 2 copies of the sentence (flow.h's attribute_to_source).
void add_gradient_methods(Seq2Seq& model, SentenceAlignment& pair, int64_t integration_steps);

// One line per attention use of the model whose kind is scored in a way of its own, or "" for none: "cross-
// attention is linear: …". For the table's notes.
std::vector<std::string> kind_notes(const ModelConfig& config);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
