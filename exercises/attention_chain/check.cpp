// check.cpp — scaled_dot_product_attention against the library's chain, ScaledDotAttention::attention().
//
// The library's attention module (make_attention, attention/attention.h) runs on the paper's path, and a
// Tracer (nn/context.h) catches what attention() computes: the heads' Q, K, V and their "context" [B, h, Tq, d_k].
// Two runs of the same module on the same input:
//   run 1: the library's context, and ∂loss/∂x of loss = Σ context ⊙ R (R fixed random weights);
//   run 2: your function on run 2's Q, K, V (connected to x through the module's projections), the same loss.
// Your output must equal the library's context, and ∂x must be the same — which it is when the chain is made of
// ops, so that backward() can follow it.
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
    "the library's chain is attention() in src/attention/scaled_dot.cpp.";

struct Case {
  const char* what;
  AttentionUse use;
  int64_t query_len, key_len;
  std::vector<int64_t> key_lengths;                                  // real keys per sentence, then padding
  bool causal;
};

void check_case(const Case& c) {
  const int64_t d_model = 8, heads = 2;                              // d_k = 4: the scale 1/√d_k is 1/2
  Generator init(11);
  std::unique_ptr<Attention> attention = make_attention(AttentionConfig{}, c.use, d_model, heads, 0.0, init);
  attention->use_compute_path(ComputePath::paper);                   // attention(), the chain of ops
  const AttentionMask mask = make_length_mask(c.key_lengths, c.query_len, c.key_len, c.causal);
  const Tensor additive = mask.additive(AttentionConfig{});          // [B, 1, Tq, Tk], 0 or −∞
  const int64_t B = static_cast<int64_t>(c.key_lengths.size());
  const bool self = c.use != AttentionUse::cross;
  Generator gen(5);
  const Tensor x_values = Tensor::randn({B, c.query_len, d_model}, gen);           // queries' sequence
  const Tensor memory_values = Tensor::randn({B, c.key_len, d_model}, gen);        // keys' (cross-attention)

  // Run 1: the library.
  const Tensor x1 = x_values.detach().set_requires_grad(true);
  const Tensor memory1 = self ? x1 : memory_values.detach().set_requires_grad(true);
  StageCatcher library;
  ForwardContext ctx1;
  ctx1.tracer = &library;
  attention->forward(x1, memory1, mask, ctx1);
  const Tensor expected = library.stages.at("context");                            // [B, h, Tq, d_k]
  const Tensor R = Tensor::uniform(expected.shape(), gen, -1, 1);
  sum(mul(expected, R)).backward();

  // Run 2: yours, on the module's own Q, K, V.
  const Tensor x2 = x_values.detach().set_requires_grad(true);
  const Tensor memory2 = self ? x2 : memory_values.detach().set_requires_grad(true);
  StageCatcher module;
  ForwardContext ctx2;
  ctx2.tracer = &module;
  attention->forward(x2, memory2, mask, ctx2);
  const Tensor Q = module.stages.at("q"), K = module.stages.at("k"), V = module.stages.at("v");
  const Tensor yours = scaled_dot_product_attention(Q, K, V, additive);

  std::vector<std::string> input{std::string("case: ") + c.what,
                                 "the mask, one row per query ('.' seen: 0, 'x' hidden: −∞):"};
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

  // Wrong in a way worth naming? Try the chain without the scale and without the mask.
  std::string why = hint;
  if (all_zero(yours)) {
    why = "Your output is all zeros (the shipped stub): fill in the TODO in exercises/attention_chain/exercise.cpp. " +
          hint;
  } else if (yours.defined() && yours.shape() == expected.shape()) {
    NoGradGuard no_graph;
    const Tensor unscaled = matmul(softmax(matmul(Q, K, false, true), additive), V);
    const Tensor unmasked = matmul(softmax(scale(matmul(Q, K, false, true), score_scale(Q.size(3)))), V);
    auto equal = [](const Tensor& a, const Tensor& b) {
      for (int64_t i = 0; i < a.numel(); ++i) {
        if (!close(a.data()[i], b.data()[i], {1e-9, 1e-9})) return false;
      }
      return true;
    };
    if (equal(yours, unscaled)) why = "Yours is softmax(Q Kᵀ + mask) V: the scores are not divided by √d_k. " + hint;
    if (equal(yours, unmasked)) {
      why = "Yours ignores the mask: hidden keys still get weight. Hand it to softmax(scores, mask). " + hint;
    }
  }
  expect_same("the attention output (attention() calls it the context)", expected, yours, {1e-9, 1e-9}, input, why);

  if (!yours.requires_grad()) {
    fail("your output has the right numbers but no graph: backward() cannot reach Q, K, V", input,
         "Build it from ops (matmul, scale, softmax), not by writing numbers into a new tensor (or under a "
         "NoGradGuard): each op records how to differentiate itself (src/autograd/graph.h), and a tensor you fill "
         "by hand records nothing.");
  }
  sum(mul(yours, R)).backward();
  for (auto [name, library_input, your_input] : {std::tuple{"x", x1, x2}, std::tuple{"memory", memory1, memory2}}) {
    if (self && std::string(name) == "memory") continue;             // self-attention: memory is x
    if (!your_input.has_grad()) {
      fail(std::string("no gradient reached ") + name + " through your chain", input,
           "some step is computed outside the ops (a copy, detach(), numbers written by hand): backward() follows "
           "only what the ops recorded (src/autograd/graph.h). " + hint);
    }
    expect_same(std::string("∂loss/∂") + name + " through your chain",
                Tensor::from_values(library_input.shape(), library_input.grad_values()),
                Tensor::from_values(your_input.shape(), your_input.grad_values()), {1e-9, 1e-9}, input,
                "the forward numbers are right, so the graph is not: is any step computed outside the ops (a copy, "
                "detach(), numbers written by hand)? " + hint);
  }
}

void check() {
  check_case({"encoder self-attention, 2 sentences of 5 tokens, the second padded after 3", AttentionUse::encoder_self,
              5, 5, {5, 3}, false});
  check_case({"decoder self-attention (causal), 2 sentences of 4 tokens, the second padded after 2",
              AttentionUse::decoder_self, 4, 4, {4, 2}, true});
  check_case({"cross-attention, 3 target positions over 6 source tokens, the second source padded after 4",
              AttentionUse::cross, 3, 6, {6, 4}, false});
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("attention_chain", attnlab::exercises::hint, attnlab::exercises::check);
}
