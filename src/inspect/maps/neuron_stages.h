// neuron_stages.h — the numbers behind one attention map, for the explorer's neuron view.
//
// The neuron view shows how a kind gets from its inputs to its weights, stage by stage, with the model's own
// numbers: for scaled-dot attention q, k and the scores q·kᵀ/√d_k before the softmax; additive's tanh(W_q q + W_k k);
// linear's φ(q) and φ(k); external's two normalisations; for the local kinds the centre p_i, the window
// [p_i − D, p_i + D] the softmax saw and (local_p) the Gaussian exp(−(j − p_i)² / 2σ²); for hard attention its
// distribution and the key it chose. They are not recomputed here: each kind traces them by name during its
// forward pass (src/attention/<kind>.cpp), and attach_stages() picks this map's stages out of the trace.
#pragma once

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/trace.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Adds to map.stages the stages its kind traced in `trace` (the pass that recorded map), what the local kinds and
// hard attention decided from them (centre and window; the chosen key), and the parameters that enter its score
// (additive's w, SAGAN's γ, external's memory); sets map.score_scale for the kinds that scale q·k.
void attach_stages(AttentionMapRecord& map, const SentenceTrace& trace, const Module& model, const ModelConfig& config);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
