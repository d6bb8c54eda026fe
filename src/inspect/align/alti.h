// alti.h — ALTI+: how much of what a decoder position holds came from each source token, measured on the vectors
// the layers add up, not on their weights.
//
// Rollout (src/inspect/maps/flow.h) composes the attention WEIGHTS α and gives the residual a fixed half. But a
// weight on a short vector moves little (Kobayashi et al. 2020), and the residual is often far more than half of a
// layer's output. ALTI (Ferrando, Gállego & Costa-jussà 2022, "Measuring the Mixing of Contextual Information in
// the Transformer", §3) asks instead how close each token's own term is to the output it is a term of.
// An attention sublayer, post-norm (model.norm: post):
//     y_i = LN(u_i),  u_i = x_i + Σ_j z_ij + b_O,   z_ij = Σ_h α_hij · W_O[:, head h] · v_hj     [d]
// The layer norm is linear once its σ is fixed at the value it had: LN(u) = L_i(u) + β with
//     L_i(w) = γ ⊙ (w − mean(w)) / σ(u_i),        so   y_i = Σ_j T_i(j) + L_i(b_O) + β
//     T_i(j) = L_i(z_ij + δ_ij · x_i)             token j's term; token i's own carries the residual x_i
// and token j's contribution to token i is its term's closeness to the whole, in the L1 norm, made a share:
//     c_ij = max(0, ‖y_i‖₁ − ‖y_i − T_i(j)‖₁) / Σ_k max(0, ‖y_i‖₁ − ‖y_i − T_i(k)‖₁)
// (pre-norm: no norm after the sum, L_i = identity and y_i = u_i). The encoder's layers compose by matrix product,
//     R_enc = C^N ··· C^1                                                                  [S, S]
// the feed-forward sublayers left out, as in the paper: they work on each token alone.
// ALTI+ (Ferrando, Gállego, Alastruey, Escolano & Costa-jussà 2022, "Towards Opening the Black Box of Neural
// Machine Translation: Source and Target Contributions in the Transformer", §3) carries this through the decoder,
// the frame the explorer's rollout uses. A decoder position starts as itself, [R_tgt | R_src] = [I | 0] [T, T | S];
//     self-attention:   [R_tgt | R_src] ← C_self · [R_tgt | R_src]                 (causal: T × T)
//     cross-attention:  its terms are the decoder's residual stream, T_i(res) = L_i(x_i), and each encoder output
//                       m_j, T_i(j) = L_i(z_ij) — m_j a mix of source tokens, row j of R_enc:
//                       [R_tgt | R_src]_i ← c_i,res · [R_tgt | R_src]_i + Σ_j c_ij · [0 | R_enc_j]
// Each row of [R_tgt | R_src] sums to 1: the share of decoder position t (the one predicting target token t) that
// came from each target input token and each source token. R_src [T, S] is the alignment score.
//
// Per kind. It needs out_i = Σ_j z_ij + b_O, the sublayer's output as a sum of per-token vectors, and checks it on
// every layer (to 1e-3 of the output's size), so a layer where it does not hold is refused by name rather than
// measured wrongly. It holds for scaled_dot, additive, simplified, local_m, local_p (the recorded map is what mixes
// the values; local_p's rows sum to less than 1, which the sum above allows), linear (its implied map times V is
// its output), sagan (W_O^h v_hj is γ · v_j, no bias) and hard (α is the one-hot row of the key it chose, or with
// hard_eval: expectation its distribution a). External attention's keys are learned memory slots: its output for
// token i is not a sum of one vector per token, so an external layer counts as mixing no tokens (C = I), as in
// the explorer's rollout.
#pragma once

#include <cstdint>
#include <vector>

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/trace.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct AltiPlus {
  std::vector<double> encoder;          // [S, S]: R_enc, how much encoder output i holds of source token j
  std::vector<double> decoder_source;   // [T, S]: R_src, decoder position t ← source token s
  std::vector<double> decoder_target;   // [T, T]: R_tgt, the same position ← target input token u
};

// ALTI+ of one sentence pair from its maps (record_attention's order and classification) and the trace of the
// same pass (trace_sentence: it holds every sublayer's v, output, residual sum and norm output), with the model's
// parameters (W_O, b_O, γ, β). S source tokens, T decoder positions. Throws attnlab::Error naming the layer when
// its output is not the sum of its per-token terms, or when a tensor it needs was not traced.
AltiPlus alti_plus(const std::vector<AttentionMapRecord>& maps, const SentenceTrace& trace, const Seq2Seq& model,
                   int64_t S, int64_t T);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
