// check.cpp — scaled_dot_product_attention against the library's chain, MultiHeadAttention::attend()
// (src/attention/multi_head.cpp) with scaled_dot's score (src/attention/scaled_dot.cpp).
//
// The library's attention module (make_attention, attention/attention.h) runs on the paper's path, and a
// Tracer (nn/context.h) catches what attend() computes: the heads' Q, K, V and their "context" [B, h, Tq, d_k].
// Two runs of the same module on the same input:
//   run 1: the library's context, and ∂loss/∂x of loss = Σ context ⊙ R (R fixed random weights);
//   run 2: your function on run 2's Q, K, V (connected to x through the module's projections), the same loss.
// Your output must equal the library's context, and ∂x must be the same — which it is when the chain is made of
// ops, so that backward() can follow it.
//
// The first case, cross-attention of 3 queries over 4 keys, is not square, and its Tk equals d_k = 4, so that
// forgetting to transpose K gives numbers rather than a shape error. On it the check works out what each usual
// mistake gives (the scale ×√d_k, ÷d_k or none, K not transposed, softmax over the queries, the mask ignored or
// added after the softmax) and names the one yours matches.
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

// Keeps every stage a forward pass traces, by name ("q", "k", "v", "scores", "weights", "context").
class StageCatcher : public Tracer {
 public:
  void trace(const std::string& name, const Tensor& value) override { stages[name] = value; }
  std::map<std::string, Tensor> stages;
};

const std::string hint =
    "The output is softmax(Q Kᵀ / √d_k + mask) V, built from matmul, scale and softmax (src/autograd/ops.h); "
    "the library's chain is attend() in src/attention/multi_head.cpp, with the score of src/attention/scaled_dot.cpp.";

struct Case {
  const char* what;
  AttentionUse use;
  int64_t query_len, key_len;
  std::vector<int64_t> key_lengths;                                  // real keys per sentence, then padding
  bool causal;
};

// The mistakes that give numbers, on the case's Q, K, V (no graph: only their values matter here).
std::vector<Mistake> usual_mistakes(const Tensor& Q, const Tensor& K, const Tensor& V, const Tensor& mask) {
  NoGradGuard no_graph;
  const real d_k = static_cast<real>(Q.size(3));
  const Tensor QKt = matmul(Q, K, false, true);                      // [B, h, Tq, Tk]
  const Tensor scores = scale(QKt, 1 / std::sqrt(d_k));              // [B, h, Tq, Tk]
  std::vector<Mistake> mistakes{
      {"no_scale", "yours is softmax(Q Kᵀ + mask) V: the scores are not divided by √d_k",
       matmul(softmax(QKt, mask), V),
       "divide the scores by √d_k (here √4 = 2): scale(scores, 1 / √d_k). For random q, k of d_k unit-variance "
       "entries q·k has variance d_k; unscaled, the softmax saturates as d_k grows and its gradients vanish."},
      {"scale_times_sqrt_dk", "yours multiplies the scores by √d_k instead of dividing by it",
       matmul(softmax(scale(QKt, std::sqrt(d_k)), mask), V),
       "the factor is 1 / √d_k (here 1/2), not √d_k: scale(scores, 1 / std::sqrt(d_k))."},
      {"scale_by_dk", "yours divides the scores by d_k instead of √d_k", matmul(softmax(scale(QKt, 1 / d_k), mask), V),
       "the scale is 1 / √d_k (here 1/2, not 1/4): q·k has variance d_k, so its standard deviation is √d_k."},
      {"mask_ignored", "yours ignores the mask: padded keys still get weight", matmul(softmax(scores), V),
       "hand the mask to the softmax, softmax(scores, mask): it adds 0 to the keys a query may see and −∞ to the "
       "others, which then get weight exactly 0."},
      {"softmax_over_queries", "yours normalizes each column (over the queries) instead of each row (over the keys)",
       matmul(transpose(softmax(transpose(add(scores, mask), 2, 3)), 2, 3), V),
       "each query's weights over the keys sum to 1: the softmax runs along the last axis of [B, h, Tq, Tk], the "
       "keys — softmax(scores, mask) as it is, no transpose."}};
  if (K.size(2) == Q.size(3)) {                                      // Tk = d_k: Q K (no ᵀ) has the scores' shape
    mistakes.push_back({"k_not_transposed", "yours is softmax(Q K / √d_k + mask) V: K is not transposed",
                        matmul(softmax(scale(matmul(Q, K), 1 / std::sqrt(d_k)), mask), V),
                        "the score of query i and key j is q_i · k_j, a row of Q times a row of K: Q Kᵀ, "
                        "matmul(Q, K, false, true). Here Tk = d_k = 4, so Q K has the right shape by chance; on any "
                        "other length it is a shape error."});
  }
  return mistakes;
}

// Equal number by number, with NaN equal to NaN and an infinity to itself.
bool same_with_nan(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::isnan(a.data()[i]) != std::isnan(b.data()[i])) return false;
    if (!std::isnan(a.data()[i]) && !close(a.data()[i], b.data()[i], {1e-7, 1e-7})) return false;
  }
  return true;
}

// Names the usual mistake yours is, if any. The mask added after the softmax gives ±∞ and NaN, which diagnose()
// never calls equal, so it is compared here, NaN to NaN.
void name_mistake(const Tensor& expected, const Tensor& yours, const Tensor& Q, const Tensor& K, const Tensor& V,
                  const Tensor& mask, const std::vector<std::string>& input) {
  Tensor after;                                                      // softmax(scores) + mask, mixed
  {
    NoGradGuard no_graph;
    after = matmul(add(softmax(scale(matmul(Q, K, false, true), 1 / std::sqrt(real(Q.size(3))))), mask), V);
  }
  if (same_with_nan(after, yours)) {
    std::vector<std::string> details = input;
    for (const std::string& line : tensor_lines("yours", yours)) details.push_back(line);
    for (const std::string& line : tensor_lines("right", expected)) details.push_back(line);
    fail("yours is (softmax(Q Kᵀ / √d_k) + mask) V: the mask is added after the softmax", details,
         "add the mask to the scores before the softmax — softmax(scores, mask) does it — so that a hidden key's "
         "e^(score − ∞) = 0. Added after, the −∞ stays in the weights, and the mix with V gives ±∞ and NaN.",
         "mask_after_softmax");
  }
  diagnose(expected, yours, usual_mistakes(Q, K, V, mask), input);
}

// The case in words, and its mask drawn one row per query.
std::vector<std::string> describe(const Case& c, const Tensor& additive, const Tensor& Q, const Tensor& K,
                                  const Tensor& V) {
  std::vector<std::string> input{std::string("case: ") + c.what,
                                 "the mask, one row per query ('.' seen: 0, 'x' hidden: −∞):"};
  const int64_t B = static_cast<int64_t>(c.key_lengths.size());
  for (int64_t i = 0; i < c.query_len; ++i) {
    std::string row = "  query " + std::to_string(i) + " ";
    for (int64_t b = 0; b < B; ++b) {
      row += "   sentence " + std::to_string(b) + ": ";
      for (int64_t j = 0; j < c.key_len; ++j) {
        row += additive.data()[(b * c.query_len + i) * c.key_len + j] == 0 ? ". " : "x ";
      }
    }
    input.push_back(row);
  }
  input.push_back("Q " + Q.shape().str() + ", K " + K.shape().str() + ", V " + V.shape().str() +
                  " (the library's module's, from random x; d_k = 4)");
  return input;
}

// ∂loss/∂x (and ∂loss/∂memory for cross-attention) through yours must be the library's.
void expect_same_gradients(const std::vector<std::tuple<std::string, Tensor, Tensor>>& inputs,
                           const std::vector<std::string>& input) {
  for (const auto& [name, library_input, your_input] : inputs) {
    if (!your_input.has_grad()) {
      fail("no gradient reached " + name + " through your chain", input,
           "some step is computed outside the ops (a copy, detach(), numbers written by hand): backward() follows "
           "only what the ops recorded (src/autograd/graph.h). " + hint);
    }
    expect_same("∂loss/∂" + name + " through your chain",
                Tensor::from_values(library_input.shape(), library_input.grad_values()),
                Tensor::from_values(your_input.shape(), your_input.grad_values()), {1e-9, 1e-9}, input,
                "the forward numbers are right, so the graph is not: is any step computed outside the ops (a copy, "
                "detach(), numbers written by hand)? " + hint);
  }
}

void check_case(const Case& c, bool name_mistakes) {
  const int64_t d_model = 8, heads = 2;                              // d_k = 4: the scale 1/√d_k is 1/2
  Generator init(11);
  std::unique_ptr<Attention> attention = make_attention(AttentionConfig{}, c.use, d_model, heads, 0.0, init);
  attention->use_compute_path(ComputePath::paper);                   // attend(), the chain of ops
  const AttentionMask mask = make_length_mask(c.key_lengths, c.query_len, c.key_len, c.causal);
  const Tensor additive = mask.additive(AttentionConfig{});          // [B, 1, Tq, Tk], 0 or −∞
  const int64_t B = static_cast<int64_t>(c.key_lengths.size());
  const bool self = c.use != AttentionUse::cross;
  Generator gen(5);
  const Tensor x_values = Tensor::randn({B, c.query_len, d_model}, gen);           // queries' sequence
  const Tensor memory_values = Tensor::randn({B, c.key_len, d_model}, gen);        // keys' (cross-attention)

  // Run i: the library (i = 1), then yours on the module's own Q, K, V (i = 2).
  std::vector<Tensor> xs, memories;
  std::vector<StageCatcher> stages(2);
  for (StageCatcher& catcher : stages) {
    xs.push_back(x_values.detach().set_requires_grad(true));
    memories.push_back(self ? xs.back() : memory_values.detach().set_requires_grad(true));
    ForwardContext ctx;
    ctx.tracer = &catcher;
    attention->forward(xs.back(), memories.back(), mask, ctx);
  }
  const Tensor expected = stages[0].stages.at("context");                          // [B, h, Tq, d_k]
  const Tensor R = Tensor::uniform(expected.shape(), gen, -1, 1);
  sum(mul(expected, R)).backward();
  const Tensor Q = stages[1].stages.at("q"), K = stages[1].stages.at("k"), V = stages[1].stages.at("v");
  const Tensor yours = scaled_dot_product_attention(Q, K, V, additive);

  const std::vector<std::string> input = describe(c, additive, Q, K, V);
  std::string why = hint;
  if (all_zero(yours)) {
    why = "Your output is all zeros (the shipped stub): fill in the TODO in exercises/attention_chain/exercise.cpp. " +
          hint;
  } else if (name_mistakes && yours.defined() && yours.shape() == expected.shape()) {
    name_mistake(expected, yours, Q, K, V, additive, input);
  }
  expect_same("the attention output (attend() calls it the context)", expected, yours, {1e-9, 1e-9}, input, why);

  if (!yours.requires_grad()) {
    fail("your output has the right numbers but no graph: backward() cannot reach Q, K, V", input,
         "Build it from ops (matmul, scale, softmax), not by writing numbers into a new tensor (or under a "
         "NoGradGuard): each op records how to differentiate itself (src/autograd/graph.h), and a tensor you fill "
         "by hand records nothing.");
  }
  sum(mul(yours, R)).backward();
  std::vector<std::tuple<std::string, Tensor, Tensor>> inputs{{"x", xs[0], xs[1]}};
  if (!self) inputs.emplace_back("memory", memories[0], memories[1]);
  expect_same_gradients(inputs, input);
}

void check() {
  check_case({"cross-attention, 3 target positions over 4 source tokens, the second source padded after 2",
              AttentionUse::cross, 3, 4, {4, 2}, false},
             true);
  check_case({"encoder self-attention, 2 sentences of 5 tokens, the second padded after 3", AttentionUse::encoder_self,
              5, 5, {5, 3}, false},
             false);
  check_case({"decoder self-attention (causal), 2 sentences of 6 tokens, the second padded after 3",
              AttentionUse::decoder_self, 6, 6, {6, 3}, true},
             false);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("attention_chain", attnlab::exercises::hint, attnlab::exercises::check);
}
