// intervention.h — experiments on a trained model while it translates: switch a head off, mask a source word,
// put another checkpoint's weights into one layer, and see what the translation becomes.
//
// Switching off head h of one attention layer. Multi-head attention (§3.2.2) is a sum over its heads:
//     out = Concat(head_1, …, head_H) W_Oᵀ + b_O  =  Σ_h head_h W_O,hᵀ + b_O,      head_h = a_h V_h
// where W_O,h [d_model, d_v] are the d_v columns of W_O that read head h. Switched off, the head's weights a_h are
// all 0 (no longer a distribution): head_h = 0 · V_h = 0, its term leaves the sum, b_O and the other heads stay —
// Michel et al. 2019's head mask ξ_h = 0 ("Are Sixteen Heads Really Better than One?").
// Why zero and not the uniform distribution over the keys: a uniform head still hands the decoder the mean of the
// source's values, a bag of its words, so "every cross-attention head uniform" can still translate; zero cuts the
// path from source to target, which is the question "what does this head carry?" asks.
// How: W_O,h is set to 0 for the experiment instead of a line in the attention files. 0 · x = 0 exactly, so the
// numbers are those of a zeroed head_h bit for bit, on every path the model computes by (the paper's chain, the
// fused kernels, the decoder's cached steps) and for every kind with W_O; sagan attention, one head and no W_O
// (out = γ · head), has γ set to 0. Nothing asked, nothing changes: the forward code has no new line at all.
//
// Masking source word s: its id becomes <unk> before the encoder reads it. The position stays (the sentence keeps
// its length, the other words their positions); what the word was is gone, from the encoder's self-attention as
// much as from cross-attention. (Removing it from the keys instead would hide it from cross-attention only while
// the encoder still mixed it into its neighbours.) It is how attnlab align deletes words to test faithfulness.
//
// Swapping a layer: every parameter named "<encoder|decoder>.layers.L.…" takes the value of the same-named
// parameter of another checkpoint — an earlier step of the run, or another run of the same shape: which layer
// holds what was learned, and when.
//
// InterventionScope applies the parameter changes while it lives and puts the saved values back when it ends
// (an exception included), so one loaded model serves experiment after experiment.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// One head of one attention layer: model.attention.<use>'s module in layer `layer`, head `head` (both 0-based,
// as the parameter names and the maps count them).
struct HeadRef {
  AttentionUse use = AttentionUse::cross;
  int64_t layer = 0;
  int64_t head = 0;
};

// One layer's parameters from another checkpoint: "encoder.layers.1" or "decoder.layers.0", and the tensors to
// copy in, named as in the model ("decoder.layers.0.encoder_attn.q_proj.weight", …).
struct LayerSwap {
  std::string layer;
  std::vector<NamedParameter> parameters;
};

struct Intervention {
  std::vector<HeadRef> switched_off;     // heads whose output is zeroed
  std::vector<int64_t> masked_source;    // source positions read as <unk>
  std::vector<LayerSwap> swaps;          // layers with another checkpoint's weights
  std::vector<std::string> described;    // what was asked, in words, for the output (filled by whoever reads specs)

  bool empty() const { return switched_off.empty() && masked_source.empty() && swaps.empty(); }
};

// "encoder.layers.0.self_attn", "decoder.layers.1.self_attn", "decoder.layers.1.encoder_attn": where a head's
// module sits (and what its map is named).
std::string attention_module_name(AttentionUse use, int64_t layer);
// How many heads the module of `use` has: model.heads, or 1 for sagan attention.
int64_t heads_of(const ModelConfig& config, AttentionUse use);
// How many layers have a module of `use`: encoder_layers for encoder self-attention, decoder_layers otherwise.
int64_t layers_of(const ModelConfig& config, AttentionUse use);
// Throws attnlab::Error naming the layer or head and the model's range when `head` is not in this model.
void check_head(const ModelConfig& config, const HeadRef& head);

// The source ids with every position of `masked` replaced by <unk>. Throws attnlab::Error naming the position
// and the sentence's length when a position is not in the sentence.
std::vector<int32_t> mask_source(std::vector<int32_t> source_ids, const std::vector<int64_t>& masked);

// Applies an intervention's parameter changes (switched-off heads, swapped layers; masks are the caller's, on the
// ids) to `model` while it lives. An Error (a head out of range, a swap whose tensors do not fit) leaves the model
// as it was. Swaps go first, so a head can be switched off in a swapped layer.
class InterventionScope {
 public:
  InterventionScope(Seq2Seq& model, const Intervention& intervention);
  ~InterventionScope();                                  // puts every saved value back
  InterventionScope(const InterventionScope&) = delete;
  InterventionScope& operator=(const InterventionScope&) = delete;

 private:
  void restore();
  // Saves `tensor`'s values (once: the first save is the original) before it is changed.
  void save(const std::string& name, const Tensor& tensor);
  void swap_layer(const std::map<std::string, Tensor>& parameters, const LayerSwap& swap);
  void switch_off(const std::map<std::string, Tensor>& parameters, const ModelConfig& config, const HeadRef& head);
  std::map<std::string, std::pair<Tensor, std::vector<real>>> saved_;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
