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
//   local_m     softmax(q kᵀ / √d_k) over the keys j ∈ [p_i − D, p_i + D], p_i = i   (Luong et al. 2015, §3.2)
//   local_p     the same around a predicted centre p_i = S · σ(v_pᵀ tanh(W_p x_i)), times e^(−(j − p_i)² / 2σ²)
//   hard        one key per query, sampled from softmax(q kᵀ / √d_k); learned by REINFORCE  (Xu et al. 2015, §4.1)
// and the softmax kinds take an optional window [left, right]: query i sees only keys j ∈ [i − left, i + right].
//
// Every kind is a Module with the same forward(): queries from one sequence, keys and values from another
// (the same one for self-attention), a mask saying which keys each query may see, and a context. They share one
// frame, MultiHeadAttention (multi_head.h): projections, heads, masks, the cache; a kind's file holds its score.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nn/context.h"
#include "nn/module.h"
#include "util/choice.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Where an attention module sits in the Transformer.
enum class AttentionUse {
  encoder_self,  // source attends to source
  decoder_self,  // target attends to earlier target positions (causal)
  cross,         // target attends to the encoder's output
};
const char* use_name(AttentionUse use);  // "encoder", "decoder", "cross" — the config keys

// The members of the family (the table above; make_attention in factory.cpp builds one from its kind).
enum class AttentionKind { scaled_dot, additive, simplified, sagan, external, linear, local_m, local_p, hard };
const std::vector<std::string>& choice_names(AttentionKind);  // "scaled_dot", … : the config's words (util/choice.h)

// What hard attention looks at when it is not training (hard.cpp).
enum class HardEval {
  argmax,       // the likeliest key
  expectation,  // the soft mix of every key, as scaled_dot would
  sample,       // a key drawn from a, as in training (the module's own generator, seeded 1)
};
const std::vector<std::string>& choice_names(HardEval);  // "argmax", "expectation", "sample"

// How hard attention's W_Q and W_K learn where to look, while training (hard.cpp).
enum class HardEstimator {
  reinforce,   // the score function: −(R − b) log π(s); unbiased, noisy
  gumbel_st,   // Gumbel-softmax straight-through: one-hot forward, softmax((z + g) / τ)'s gradient; biased, low noise
};
const std::vector<std::string>& choice_names(HardEstimator);  // "reinforce", "gumbel_st"

// What a sampled key is credited with (reinforce).
enum class HardReward {
  sentence,   // the sentence's log-likelihood Σ_t log p(y_t), for every sample of the sentence
  position,   // query t's samples: Σ_{u ≥ t} γ^(u − t) log p(y_u), the rest of the sentence (decoder and cross)
};
const std::vector<std::string>& choice_names(HardReward);  // "sentence", "position"

// What the reward is compared with (reinforce): b, which must not depend on the sample it judges.
enum class HardBaseline {
  moving,   // a moving average of past batches' rewards (per position with hard_reward: position)
  others,   // leave-one-out: the mean reward of the batch's other sentences (at the same position)
};
const std::vector<std::string>& choice_names(HardBaseline);  // "moving", "others"

// One use's settings: model.attention.encoder / .decoder / .cross in the YAML config.
struct AttentionConfig {
  AttentionKind kind = AttentionKind::scaled_dot;
  bool scale = true;                // divide scores by √d_k (softmax kinds); false shows what the √d_k is for
  bool has_window = false;          // restrict query i to keys j ∈ [i − window_left, i + window_right]
  int64_t window_left = 0;
  int64_t window_right = 0;
  int64_t memory_slots = 64;        // S, for external attention
  int64_t local_width = 2;          // D, the half-width of local_m / local_p's window [p_i − D, p_i + D]
  // Hard attention (hard.cpp), while training:
  double hard_expectation = 0;      // the probability that a sentence uses the expectation instead of a sample
  double hard_entropy = 0.01;       // λ_e, the weight of the entropy bonus
  double hard_baseline_decay = 0.9; // b ← decay · b + (1 − decay) · the batch's mean reward
  HardEval hard_eval = HardEval::argmax;  // at evaluation
  HardEstimator hard_estimator = HardEstimator::reinforce;
  HardReward hard_reward = HardReward::sentence;     // reinforce: what a sample is credited with
  double hard_discount = 1;         // γ of hard_reward: position (1: the whole rest of the sentence, unbiased)
  HardBaseline hard_baseline = HardBaseline::moving;
  bool hard_normalize = false;      // reinforce: advantages divided by their spread over the batch
  double hard_clip = 0;             // reinforce: the score term's gradient at the scores clipped to this norm (0: no)
  bool hard_clean_reward = false;   // reinforce: R from a second pass, dropout off, replaying the keys drawn
  double hard_temperature = 1;      // gumbel_st: τ_0
  double hard_temperature_min = 0.5;    // gumbel_st: τ never below this
  double hard_temperature_decay = 0;    // gumbel_st: τ = max(τ_min, τ_0 e^(−r n)), n training passes so far
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

// 1 for a real key, 0 for padding: key_is_real's B · Tk flags laid out in `shape` (e.g. [B, 1, Tk, 1], to broadcast).
Tensor real_keys(const std::vector<uint8_t>& key_is_real, const Shape& shape);

// A mask for sentences with key_lengths[b] real keys followed by padding up to key_len (tests and checks build
// masks this way; the model builds them from token ids, src/model/masks.h).
AttentionMask make_length_mask(const std::vector<int64_t>& key_lengths, int64_t query_len, int64_t key_len,
                               bool causal);

// ---- Incremental decoding (chapter "Decoding", src/decode/) ----
// A decoder generating token t+1 needs only its output at the newest position t. Under the causal mask that
// output reads the keys and values of positions 0 … t, and those of 0 … t−1 do not change when t is appended,
// so they are kept from step to step instead of recomputed: the KV cache. Per kind, what is kept:
//   softmax kinds, self-attention   K, V of every position so far                     (appended each step)
//                                   — with a window [left, right] only the newest left + 1 (a ring buffer)
//   softmax kinds, cross-attention  K, V of the source                                (projected once)
//   linear                          S = Σ_j φ(k_j) v_jᵀ and Z = Σ_j φ(k_j)           (the RNN state; cross: once)
//   external                        per head and slot s: M_s = max_j z_js, l_s = Σ_j e^(z_js − M_s), j ≤ i
//                                   (prefix_softmax's running max and sum, carried over from step to step)
//   local_m, local_p, hard          as the softmax kinds (K, V appended; cross: projected once); a step
//                                   weighs them by its own rule (the window and Gaussian; the argmax key)
// One struct holds any of them; a kind uses the fields it needs and leaves the others undefined.
struct AttentionCache {
  bool self = true;                  // self-attention (keys come from the steps) or cross (keys from the source)
  int64_t position = 0;              // the query position of the next step = the steps taken so far
  int64_t batch = 0;                 // B, the rows of every tensor below
  // Softmax kinds. Buffers with room for `capacity` keys; key j (of the `keys` appended so far) is in slot
  // j mod capacity. They double when full, up to `most_keys` when that is set: with a window a step reads only
  // the newest most_keys keys, so a full buffer becomes a ring, each new key overwriting one no query can see.
  Tensor K;                          // [B, h, capacity, d_k]
  Tensor V;                          // [B, h, capacity, d_v]
  int64_t keys = 0, capacity = 0;
  int64_t most_keys = 0;             // 0: keep every key; window [left, right]: left + 1
  std::vector<uint8_t> key_is_real;  // [B, capacity], by slot: 0 for a pad token (never attended to)
  int64_t slot(int64_t j) const { return j % capacity; }
  // Linear attention.
  Tensor S;                          // [B, h, d_k, d_k]   Σ_j φ(k_j) v_jᵀ over the real keys so far
  Tensor Z;                          // [B, h, d_k]        Σ_j φ(k_j)
  // External attention.
  Tensor running_max;                // [B, h, slots]      M = max_{j ≤ i} z_js (−∞ before the first real token)
  Tensor running_sum;                // [B, h, slots]      l = Σ_{j ≤ i} e^(z_js − M)
  // Cross-attention: row b reads the keys and values (or S, Z) of row source_row[b]. The beam's hypotheses of
  // one sentence share their sentence's, so reordering them moves indices, not numbers.
  std::vector<int64_t> source_row;   // [B]
  int64_t kv_row(int64_t b) const { return self ? b : source_row[static_cast<size_t>(b)]; }

  // Keep rows[r] as the new row r (rows may repeat and may drop rows): beam search follows its hypotheses,
  // and finished sentences leave the batch. Self-attention copies each kept row's filled keys.
  void reorder(const std::vector<int64_t>& rows);
};

class Attention : public Module {
 public:
  // query_input [B, Tq, d_model]; memory [B, Tk, d_model] — pass query_input again for self-attention.
  // Returns [B, Tq, d_model]. When ctx.recorder is set, hands it the map [B, heads, Tq, Tk] (or slots) as `name`.
  virtual Tensor forward(const Tensor& query_input, const Tensor& memory, const AttentionMask& mask,
                         ForwardContext& ctx) = 0;

  // Incremental decoding. The step gives, for the newest position, what forward() gives at that position of
  // the whole prefix (up to rounding). No graph is recorded (call under NoGradGuard) and no map is recorded.
  // An empty cache for causal self-attention over up to `capacity` steps (it grows if needed) of `batch` rows.
  virtual AttentionCache start_self_cache(int64_t batch, int64_t capacity) = 0;
  // A cache for cross-attention: the keys and values of memory [B, Tk, d_model], computed once;
  // memory_is_real [B · Tk] is 0 for the source's padding.
  virtual AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) = 0;
  // One position: x [B, 1, d_model] → [B, 1, d_model]. For self-attention x is also the new key, and
  // x_is_real [B] says which rows hold a real token (0: a pad token, hidden from later positions).
  virtual Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) = 0;

  // A kind that samples where it looks (hard attention) cannot learn that choice from the loss's gradient: while
  // training, its forward() leaves what it drew, and the score-function term the draws owe, in ctx.sampled
  // (nn/sampled.h); the training step adds the term to the loss.

  std::string name;  // "encoder.layers.0.self_attn", set by the layer that owns it, for the recorder
};

// Helpers for the softmax kinds' steps (cache.cpp).
// An empty causal self-attention cache: K [B, h, capacity, d_k], V [B, h, capacity, d_v]; with the config's
// window it never holds more than window_left + 1 keys.
AttentionCache make_kv_cache(int64_t batch, int64_t heads, int64_t capacity, int64_t d_k, int64_t d_v,
                             const AttentionConfig& config);
// A cross-attention cache holding K [B, h, Tk, d_k] and V [B, h, Tk, d_v] as they are.
AttentionCache make_kv_cache(const Tensor& K, const Tensor& V, const std::vector<uint8_t>& key_is_real);
// Appends one key and value per row: K_new [B, h, 1, d_k], V_new [B, h, 1, d_v] (into a ring's oldest slot).
void append_key(AttentionCache& cache, const Tensor& K_new, const Tensor& V_new, const std::vector<uint8_t>& is_real);
// The caches that keep a running state instead of keys (state_cache.cpp):
//   linear attention, an RNN: S = Σ_j φ(k_j) v_jᵀ [B, h, d_k, d_v] and Z = Σ_j φ(k_j) [B, h, d_k]
AttentionCache make_linear_state(int64_t batch, int64_t heads, int64_t d_k, int64_t d_v);   // self: empty
AttentionCache make_linear_state(const Tensor& phi_K, const Tensor& V);                    // cross: the source's
// S += φ(k_t) v_tᵀ, Z += φ(k_t) for the rows whose token is real; phi_k [B, h, 1, d_k], v [B, h, 1, d_v].
void add_to_linear_state(AttentionCache& cache, const Tensor& phi_k, const Tensor& v,
                         const std::vector<uint8_t>& is_real);
// φ(q_t)ᵀ S / (φ(q_t)ᵀ Z + ε): phi_q [B, h, 1, d_k] → [B, h, 1, d_v].
Tensor read_linear_state(const AttentionCache& cache, const Tensor& phi_q, real eps);
//   external attention's prefix softmax over tokens: per head and slot the running max M and sum l [B, h, S]
AttentionCache make_running_softmax(int64_t batch, int64_t heads, int64_t slots);
// The newest token's ã [B, h, 1, S] from its scores z [B, h, 1, S], M and l updated (0 and unchanged for a pad).
Tensor running_softmax(AttentionCache& cache, const Tensor& z, const std::vector<uint8_t>& is_real);
// The score of one query and one key: row = b · h + head, key points at that key's d_k numbers.
using StepScore = std::function<real(int64_t row, const real* key)>;
// How one query's scores become its weights, in place: a[j − first] holds the score of key j (−∞ for a key
// it may not see). The softmax kinds use softmax_in_place; local and hard attention bring their own rule.
using StepWeights = std::function<void(int64_t row, int64_t first, std::vector<real>& a)>;
// a ← softmax(a): subtract the max, exponentiate, divide by the sum; a row of −∞ only becomes a row of 0.
void softmax_in_place(std::vector<real>& a);
// The newest query's context: the weights (softmax unless `weights` says otherwise) of score(row, k_j) over the
// allowed cached keys (real, and in the window around cache.position; the rest get −∞), then Σ_j a_j v_j →
// [B, h, 1, d_v].
Tensor attend_cached(const AttentionCache& cache, const AttentionConfig& config, const StepScore& score,
                     const StepWeights& weights = {});
// Σ_c a_c · b_c over n numbers: row_dot (tensor/row_math.h), a vector register of products at a time (16 floats
// with AVX-512) in a fixed order — the plain loop, one add waiting for the one before, made this 8 % of batched
// greedy decoding with the base model.
real dot_product(const real* a, const real* b, int64_t n);

// Builds the module a config asks for. Throws attnlab::Error for a window on a kind that has no softmax over
// keys, external attention used as cross-attention, or sizes that do not fit (d_model not divisible by heads, …).
std::unique_ptr<Attention> make_attention(const AttentionConfig& config, AttentionUse use, int64_t d_model,
                                          int64_t heads, double dropout, Generator& init);

// Multi-head plumbing shared by the kinds (heads.cpp):
//   split_heads: [B, T, h·d_k] → [B, h, T, d_k]     merge_heads: [B, h, T, d_k] → [B, T, h·d_k]
Tensor split_heads(const Tensor& x, int64_t heads);
Tensor merge_heads(const Tensor& x);
// The score scale of the softmax kinds, 1/√d_k (§3.2.1): the one place it is computed.
real score_scale(int64_t d_k);

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
std::unique_ptr<Attention> make_local_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                int64_t heads, double dropout, Generator& init);   // local_m, local_p
std::unique_ptr<Attention> make_hard_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                               int64_t heads, double dropout, Generator& init);

// Every kind make_attention builds, in the order of docs/course/05-attention.md's table.
std::vector<AttentionKind> attention_kinds();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
