// attention.h — what every member of the attention family has in common.
//
// Attention lets each query position i build its output as a weighted mix of values at key positions j:
//     out_i = Σ_j a_ij · v_j,      a_i· = a normalised score of how well query i matches key j.
// The kinds differ in how the scores are made and normalised (one file each in src/attention/):
//   scaled_dot  a = softmax(q kᵀ / √d_k)                      (Vaswani et al. 2017; the default)
//   additive    a = softmax(vᵀ tanh(W_q q + W_k k))           (Bahdanau et al. 2015)
//   simplified  scaled_dot with Q = K = V = x (no projections)
//   sagan       scaled_dot with Q, K projected to d/8, no output projection, output · γ (γ starts at 0)
//   external    a = L1-normalise_slots(softmax_tokens(q M_kᵀ)), out = a M_v  (Guo et al. 2021)
//   linear      out_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ_j φ(k_j), φ = elu + 1  (Katharopoulos et al. 2020)
// and the softmax kinds take an optional window [left, right]: query i sees only keys j ∈ [i − left, i + right].
//
// Every kind is a Module with the same forward(): queries from one sequence, keys and values from another
// (the same one for self-attention), a mask saying which keys each query may see, and a context.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nn/context.h"
#include "nn/module.h"

namespace attnlab::inline ATTNLAB_PRECISION {

// Where an attention module sits in the Transformer.
enum class AttentionUse {
  encoder_self,  // source attends to source
  decoder_self,  // target attends to earlier target positions (causal)
  cross,         // target attends to the encoder's output
};
const char* use_name(AttentionUse use);  // "encoder", "decoder", "cross" — the config keys

// One use's settings: model.attention.encoder / .decoder / .cross in the YAML config.
struct AttentionConfig {
  std::string kind = "scaled_dot";  // scaled_dot | additive | simplified | sagan | external | linear
  bool scale = true;                // divide scores by √d_k (softmax kinds); false shows what the √d_k is for
  bool has_window = false;          // restrict query i to keys j ∈ [i − window_left, i + window_right]
  int64_t window_left = 0;
  int64_t window_right = 0;
  int64_t memory_slots = 64;        // S, for external attention
};

// Which keys each query may see. Built once per batch by the model (src/model/masks.cpp) and shared by layers.
struct AttentionMask {
  int64_t batch = 0, query_len = 0, key_len = 0;
  std::vector<uint8_t> key_is_real;  // [batch · key_len]: 1 for a real token, 0 for padding
  bool causal = false;               // query i may see key j only when j ≤ i (decoder self-attention)

  // May query i of sentence b attend to key j, under this mask and the config's window?
  bool allowed(int64_t b, int64_t i, int64_t j, const AttentionConfig& config) const;
  // The additive mask of the softmax kinds: [B, 1, Tq, Tk], 0 where allowed(), −∞ elsewhere
  // (broadcast over the heads axis by softmax()).
  Tensor additive(const AttentionConfig& config) const;
  // The same for scores kept as a band (autograd/ops.h, band_scores): [B, 1, Tq, W], column w of row i standing
  // for key j = i − left + w; −∞ also where that key does not exist (j < 0 or j ≥ Tk).
  Tensor band_additive(const AttentionConfig& config, int64_t left, int64_t width) const;
};

// A mask for sentences with key_lengths[b] real keys followed by padding up to key_len (tests and checks build
// masks this way; the model builds them from token ids, src/model/masks.h).
AttentionMask make_length_mask(const std::vector<int64_t>& key_lengths, int64_t query_len, int64_t key_len,
                               bool causal);

class Attention : public Module {
 public:
  // query_input [B, Tq, d_model]; memory [B, Tk, d_model] — pass query_input again for self-attention.
  // Returns [B, Tq, d_model]. When ctx.recorder is set, hands it the map [B, heads, Tq, Tk] (or slots) as `name`.
  virtual Tensor forward(const Tensor& query_input, const Tensor& memory, const AttentionMask& mask,
                         ForwardContext& ctx) = 0;
  std::string name;  // "encoder.layers.0.self_attn", set by the layer that owns it, for the recorder
};

// Builds the module a config asks for. Throws attnlab::Error for an unknown kind (suggesting the closest), a
// window on a kind that has no softmax, external attention used as cross-attention, or sizes that do not fit
// (d_model not divisible by heads, …).
std::unique_ptr<Attention> make_attention(const AttentionConfig& config, AttentionUse use, int64_t d_model,
                                          int64_t heads, double dropout, Generator& init);

// Multi-head plumbing shared by the kinds (heads.cpp):
//   split_heads: [B, T, h·d_k] → [B, h, T, d_k]     merge_heads: [B, h, T, d_k] → [B, T, h·d_k]
Tensor split_heads(const Tensor& x, int64_t heads);
Tensor merge_heads(const Tensor& x);

// The constructors behind make_attention, one per file.
std::unique_ptr<Attention> make_scaled_dot_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init);
std::unique_ptr<Attention> make_additive_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                   int64_t heads, double dropout, Generator& init);
std::unique_ptr<Attention> make_simplified_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init);
std::unique_ptr<Attention> make_sagan_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                int64_t heads, double dropout, Generator& init);
std::unique_ptr<Attention> make_external_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                   int64_t heads, double dropout, Generator& init);
std::unique_ptr<Attention> make_linear_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                 int64_t heads, double dropout, Generator& init);

// The kind names make_attention accepts, in the order of the README's table.
const std::vector<std::string>& attention_kinds();

}  // namespace attnlab::inline ATTNLAB_PRECISION
