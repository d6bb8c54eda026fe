// check.cpp — kv_cache_step against the library's causal self-attention over the whole sequence.
//
// The check builds the library's attention module (make_attention, scaled_dot, decoder self-attention, d_model 8,
// 2 heads: d_k = d_v = 4) and runs it once over a whole sequence with the causal mask, on the paper's path
// (multi_head.cpp). A Tracer (nn/context.h) keeps what that pass computes: the heads' Q, K, V and their
// "context" softmax(Q Kᵀ / √d_k + causal mask) V, all [1, h, T, d]. Then, head by head, a fresh cache and T
// calls of kv_cache_step with q_t, k_t, v_t: out_t must be row t of the context — what the library's own
// decoding step (step(), attend_cached() in cache.cpp) gives too — and after the last step the cache must hold
// all T keys and values, in order. A difference that a usual mistake explains is named.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "Step t appends k_t and v_t to the cache first, then out_t = Σ_j softmax_j(q_t · k_j / √d_k) v_j over every "
    "cached key j = 0 … t. The library's step: step() in src/attention/multi_head.cpp, append_key() and "
    "attend_cached() in src/attention/cache.cpp.";
const std::string zero_hint =
    "Your out_t is all zeros (the shipped stub): fill in the TODO in exercises/kv_cache_step/exercise.cpp. ";

// Keeps the stages a forward pass traces that are split into heads ("q", "k", "v", "context": [1, h, T, d]),
// one tensor per head: heads["q"][h] is head h's Q, [T, d], row t for position t.
class HeadCatcher : public Tracer {
 public:
  void trace(const std::string& name, const Tensor& value) override {
    if (value.rank() != 4) return;                                   // not a per-head stage
    const int64_t T = value.size(2), d = value.size(3);
    std::vector<Tensor>& split = heads[name];
    split.clear();                                                   // a stage traced again: its latest
    for (int64_t h = 0; h < value.size(1); ++h) {
      const real* first = value.data() + h * T * d;                  // head h's rows
      split.push_back(Tensor::from_values({T, d}, std::vector<real>(first, first + T * d)));
    }
  }
  std::map<std::string, std::vector<Tensor>> heads;
};

// Row t of x [T, d] as a tensor [d].
Tensor row(const Tensor& x, int64_t t) {
  const int64_t d = x.size(1);
  return Tensor::from_values({d}, std::vector<real>(x.data() + t * d, x.data() + (t + 1) * d));
}

// What a step gives when it reads keys first … last (last = t when the current key is in the cache), scales
// the scores by `scale`, and turns them into weights by softmax over the keys (or gives each key weight 1):
// the rows [T, d_v] of every step, for the mistakes below.
struct StepRule {
  bool earlier_keys = true;                                          // keys 0 … t−1 are kept
  bool current_key = true;                                           // key t is there when q_t reads
  real scale = 1;
  bool softmax = true;
};
Tensor steps_by(const Tensor& Q, const Tensor& K, const Tensor& V, const StepRule& rule) {
  const int64_t T = Q.size(0), d_k = Q.size(1), d_v = V.size(1);
  std::vector<real> out(static_cast<size_t>(T * d_v), 0);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t first = rule.earlier_keys ? 0 : t, last = rule.current_key ? t : t - 1;
    std::vector<real> a;
    for (int64_t j = first; j <= last; ++j) {
      a.push_back(rule.scale * dot_product(Q.data() + t * d_k, K.data() + j * d_k, d_k));   // s_j
    }
    if (rule.softmax) {
      softmax_in_place(a);
    } else {
      std::fill(a.begin(), a.end(), real(1));
    }
    for (int64_t j = first; j <= last; ++j)
      for (int64_t c = 0; c < d_v; ++c) out[t * d_v + c] += a[j - first] * V.data()[j * d_v + c];
  }
  return Tensor::from_values({T, d_v}, out);
}

std::vector<Mistake> usual_mistakes(const Tensor& Q, const Tensor& K, const Tensor& V) {
  const int64_t d_k = Q.size(1);
  const real right_scale = score_scale(d_k);
  return {
      {"attend_before_append", "yours is out_t over keys 0 … t−1: the query attended before k_t and v_t were appended",
       steps_by(Q, K, V, {true, false, right_scale, true}),
       "append k_t and v_t to the cache first, then attend: under the causal mask position t sees keys j ≤ t, "
       "itself included (the diagonal of the mask is visible). Attending first, step 0 has no key at all."},
      {"cache_overwritten", "yours is out_t = v_t: the cache holds only the newest key and value",
       steps_by(Q, K, V, {false, true, right_scale, true}),
       "append to the cache (K.insert(K.end(), …) or push_back), do not replace it (assign, =): the keys and values "
       "of positions 0 … t−1 are what the cache is for. With one key the softmax gives it weight 1, so out_t = v_t."},
      {"scale_missing", "yours is softmax(q · k_j) without the 1/√d_k",
       steps_by(Q, K, V, {true, true, real(1), true}),
       "divide the scores by √d_k (score_scale(d_k) in attention/attention.h): the library's attention does, in the "
       "whole-sequence pass and in its step alike."},
      {"scale_dk", "yours divides the scores by d_k instead of √d_k",
       steps_by(Q, K, V, {true, true, real(1) / static_cast<real>(d_k), true}),
       "the scale is 1/√d_k (score_scale(d_k)), not 1/d_k: q · k sums d_k products, so its spread grows like √d_k."},
      {"softmax_over_features",
       "yours gives every key weight 1: out_t = Σ_j v_j, the softmax did not run over the keys",
       steps_by(Q, K, V, {true, true, right_scale, false}),
       "the softmax sets the keys' scores against each other: a_tj = e^(s_j) / Σ_j' e^(s_j') over the cached keys "
       "j' = 0 … t. A softmax over one key's own d_k products (or over an axis of size 1) sums to 1 for each key "
       "alone, and every key gets weight 1."},
  };
}

// The rows of the cache as a tensor [rows, d], or a failure saying why they cannot be.
Tensor cache_rows(const std::vector<real>& numbers, int64_t d, const char* what,
                  const std::vector<std::string>& input) {
  if (d <= 0 || numbers.size() % static_cast<size_t>(d) != 0) {
    fail(std::string("the cache's ") + what + " hold " + std::to_string(numbers.size()) +
             " numbers: not whole rows of " + std::to_string(d),
         input, "append whole rows: all d numbers of each k_t (or v_t), and nothing else. " + hint);
  }
  return Tensor::from_values({static_cast<int64_t>(numbers.size()) / d, d}, numbers);
}

void check_head(const Tensor& Q, const Tensor& K, const Tensor& V, const Tensor& expected,
                std::vector<std::string> input) {
  const int64_t T = Q.size(0), d_k = Q.size(1), d_v = V.size(1);
  for (const auto& [name, x] : {std::pair{"q", Q}, std::pair{"k", K}, std::pair{"v", V}}) {
    for (const std::string& line : tensor_lines(name, x)) input.push_back(line);
  }
  input.push_back("(row t of q, k, v is step t's q_t, k_t, v_t; the cache starts empty)");
  KVCache cache{d_k, d_v, {}, {}};
  std::vector<real> outputs;                                         // [T, d_v], row t = out_t
  for (int64_t t = 0; t < T; ++t) {
    const Tensor out = kv_cache_step(cache, row(Q, t), row(K, t), row(V, t));
    if (!out.defined() || out.shape() != Shape({d_v})) {
      expect_same("out_t of step " + std::to_string(t), row(expected, t), out, {1e-9, 1e-9}, input, hint);
    }
    outputs.insert(outputs.end(), out.data(), out.data() + d_v);
  }
  const Tensor yours = Tensor::from_values({T, d_v}, outputs);
  diagnose(expected, yours, usual_mistakes(Q, K, V), input);
  expect_same("the output of the steps " + yours.shape().str() + " (row t: out_t)", expected, yours,
              {1e-9, 1e-9}, input, all_zero(yours) ? zero_hint + hint : hint);
  expect_same("the cache's keys after " + std::to_string(T) + " steps (row j: k_j)", K,
              cache_rows(cache.K, d_k, "keys", input), {0, 0}, input, hint);
  expect_same("the cache's values after " + std::to_string(T) + " steps (row j: v_j)", V,
              cache_rows(cache.V, d_v, "values", input), {0, 0}, input, hint);
}

void check_case(const char* what, int64_t T, real spread) {
  const int64_t d_model = 8, heads = 2;
  Generator init(17);
  std::unique_ptr<Attention> attention =
      make_attention(AttentionConfig{}, AttentionUse::decoder_self, d_model, heads, 0.0, init);
  attention->use_compute_path(ComputePath::paper);                   // multi_head.cpp's chain, traced
  Generator gen(9);
  const Tensor x = Tensor::randn({1, T, d_model}, gen, spread);      // [1, T, d_model]
  HeadCatcher library;
  ForwardContext ctx;
  ctx.tracer = &library;
  {
    NoGradGuard no_graph;
    attention->forward(x, x, make_length_mask({T}, T, T, /*causal=*/true), ctx);
  }
  for (int64_t h = 0; h < heads; ++h) {
    const std::vector<std::string> input{std::string("case: ") + what + ", head " + std::to_string(h) + " of " +
                                         std::to_string(heads) + " (d_k = d_v = 4, so 1/√d_k = 1/2)"};
    check_head(library.heads.at("q")[h], library.heads.at("k")[h], library.heads.at("v")[h],
               library.heads.at("context")[h], input);
  }
}

void check() {
  check_case("decoder self-attention, 3 steps", 3, 1);
  check_case("decoder self-attention, 6 steps, inputs of spread 3 (peaked weights)", 6, 3);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("kv_cache_step", attnlab::exercises::hint, attnlab::exercises::check);
}
