// flow.h — where information flows: beyond the raw attention weights of one sentence pair.
//
// A weight α_ij says how much query i draws from key j in ONE head of ONE layer. A learner asking "which source
// words did this output word depend on?" needs more than that, and three answers are computed here:
//
// 1. Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", §3). Each layer adds
//    its attention to a residual stream, so a layer's token mixing is half attention, half identity:
//        Ã = 0.5 · Ā + 0.5 · I          Ā the weights averaged over heads, each row renormalised to sum to 1
//    and the layers compose by matrix product. Through an encoder–decoder (our extension of the paper's
//    encoder-only rollout to Figure 1's two stacks):
//        R_enc = Ã_enc^N ··· Ã_enc^1                                           [S, S]
//        decoder position t starts as itself: [R_tgt | R_src] = [I | 0]        [T, T | S]
//        self-attention layer:   [R_tgt | R_src] ← Ã_self · [R_tgt | R_src]
//        cross-attention layer:  [R_tgt | R_src] ← 0.5 · [R_tgt | R_src] + 0.5 · [0 | Ā_cross · R_enc]
//    Every row of [R_tgt | R_src] sums to 1: the share of what decoder position t holds that came from each
//    target input token and each source token. A row that sees no key (Ā's row all 0) keeps only its residual;
//    external attention's keys are learned slots, not tokens, so its layers mix no tokens (Ā = I).
// 2. Value-weighted norms (Kobayashi et al. 2020, "Attention is Not Only a Weight", §3): what head h adds to
//    query i from key j is the vector α_ij · f_h(x_j), f_h(x_j) = W_O[:, head h] · v_hj, and its length
//        ‖α_ij · f_h(x_j)‖ = α_ij · ‖W_O[:, h·d_k : (h+1)·d_k] · v_hj‖
//    — a large weight on a short vector moves little. SAGAN has f(x_j) = γ · v_j; external attention's values
//    are the memory slots M_v[s].
// 3. Gradient attribution of F_t = log p(y_t | y_<t, x), target token t's log-probability, to the source token
//    embeddings e_s = E[x_s] · √d_model (positions kept as they are; Simonyan et al. 2014, Sundararajan et al. 2017):
//        gradient × input     a_ts = e_s · ∂F_t/∂e_s
//        integrated gradients a_ts = e_s · (1/m) Σ_{k=1..m} ∂F_t/∂e_s (α_k e),  α_k = (k − ½)/m  (midpoints)
//    with the baseline e' = 0. Completeness: Σ_s IG_ts = F_t(e) − F_t(0) exactly in the limit m → ∞; the error
//    at the m used is reported beside the numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/trace.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Rollout of the maps (encoder_self, decoder_self and cross, as record_attention orders them) of a sentence
// pair with S source tokens and T decoder positions. Throws attnlab::Error for a map whose size does not fit.
Rollout attention_rollout(const std::vector<AttentionMapRecord>& maps, int64_t S, int64_t T);

// Throws attnlab::Error naming `method` ("rollout", "ALTI+") and the map when the map is not queries × keys (the
// keys of external attention, its memory slots, are not checked). Rollout and ALTI+ check every map they read.
void check_map_size(const AttentionMapRecord& map, int64_t queries, int64_t keys, const std::string& method);

// Sets map.value_norms from the values the pass traced (`<map>.v`, [1, h, T_key, d_k]) and the module's
// W_O (`<map>.out_proj.weight`), SAGAN's γ or external attention's M_v. Leaves it empty when they are missing.
void attach_value_norms(AttentionMapRecord& map, const SentenceTrace& trace, const Module& model);

// Gradient × input and integrated gradients with `steps` steps (≥ 1) for every target position: one forward
// and backward pass per target token, on a batch of steps + 2 copies of the sentence (the m points α_k e, e
// itself and the baseline 0). decoder_input = bos + target, target_output = target + eos (the same length T).
// Leaves the model's parameter gradients zero.
Attribution attribute_to_source(Seq2Seq& model, const std::vector<int32_t>& source,
                                const std::vector<int32_t>& decoder_input, const std::vector<int32_t>& target_output,
                                int64_t steps);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
