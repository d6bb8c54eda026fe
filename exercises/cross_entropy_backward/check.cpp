// check.cpp — cross_entropy_backward against the library's backward on one case, then central differences.
//
// cross_entropy_with_your_backward() is the loss as an op of the engine whose backward function is yours: the
// forward is the library's (src/autograd/ops/cross_entropy.cpp), and record() (autograd/graph.h) links the loss
// to the logits with a backward that calls cross_entropy_backward(logits, targets, ε, ignore_id, ∂L/∂loss) and
// adds the result into the logits' gradient. run_gradcheck (autograd/gradcheck.h) then compares it with
// (L(z + h·e_i) − L(z − h·e_i)) / 2h, L = loss · R, R a fixed random number (so g = R), for every logit.
// Before that, one direct call on logits [4, 5] with a padding position is compared with what the usual
// mistakes give, to name one.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

Tensor cross_entropy_with_your_backward(const Tensor& logits, const TokenIds& targets, real epsilon,
                                        int32_t ignore_id) {
  Tensor y;                                                          // [1], the loss
  {
    NoGradGuard forward_only;                                        // the library's forward, with no graph
    y = cross_entropy(logits, targets, epsilon, ignore_id);
  }
  record(y, "cross_entropy with your backward", {logits}, [logits, targets, epsilon, ignore_id](TensorNode& out) {
    const Tensor dz = cross_entropy_backward(logits, targets, epsilon, ignore_id, out.grad[0]);   // yours
    if (!dz.defined() || dz.shape() != logits.shape()) return;      // (the check below reports it)
    const real* yours = dz.data();
    add_to_grad(logits, [=](int64_t i) { return yours[i]; });        // ∂logits += yours (ops/add_to_grad.h)
  });
  return y;
}

// The library's own ∂L/∂logits for L = g · loss: what cross_entropy's backward puts into the logits.
Tensor library_gradient(const Tensor& logits, const TokenIds& targets, real epsilon, int32_t ignore_id, real g) {
  Tensor z = logits.detach();
  z.set_requires_grad(true);
  scale(cross_entropy(z, targets, epsilon, ignore_id), g).backward();
  return Tensor::from_values(logits.shape(), z.grad_values());
}

// ∂L/∂z = sign · g · (p − q) / N, with the choices a usual mistake changes (the right one: the defaults).
struct Rule {
  real epsilon = 0;
  int32_t ignore_id = -1;
  real g = 1;
  bool spread_over_others = false;   // q_c = ε/(V − 1) off the target and q_t = 1 − ε (the library: ε/V for all)
  bool skip_padding = true;          // a padding row gets 0
  bool count_padding = false;        // N counts every row
  bool mean = true;                  // divide by N
  real sign = 1;
};

Tensor gradient_by(const Rule& rule, const Tensor& logits, const TokenIds& targets) {
  const int64_t rows = logits.shape().rows(), V = logits.shape().cols();
  const auto padding = [&](int64_t r) { return targets.values[static_cast<size_t>(r)] == rule.ignore_id; };
  int64_t n = 0;                                                     // N
  for (int64_t r = 0; r < rows; ++r) n += rule.count_padding || !padding(r) ? 1 : 0;
  Tensor dz = Tensor::zeros(logits.shape());                         // [..., V]
  const real factor = rule.sign * rule.g / (rule.mean && n > 0 ? static_cast<real>(n) : 1);
  for (int64_t r = 0; r < rows; ++r) {
    if (rule.skip_padding && padding(r)) continue;
    const int32_t t = targets.values[static_cast<size_t>(r)];
    const real* z = logits.data() + r * V;                           // [V]
    const real m = *std::max_element(z, z + V);
    real sum_exp = 0;
    for (int64_t c = 0; c < V; ++c) sum_exp += std::exp(z[c] - m);
    for (int64_t c = 0; c < V; ++c) {
      const real off_target = rule.spread_over_others ? rule.epsilon / static_cast<real>(V - 1)
                                                      : rule.epsilon / static_cast<real>(V);
      const real on_target = rule.spread_over_others ? 1 - rule.epsilon : 1 - rule.epsilon + off_target;
      const real q = c == t ? on_target : off_target;
      dz.data()[r * V + c] = factor * (std::exp(z[c] - m) / sum_exp - q);
    }
  }
  return dz;
}

const std::string hint =
    "∂L/∂z_c = g · (p_c − q_c) / N, p = softmax(z), q_c = (1 − ε)[c = t] + ε/V, N the positions that are not "
    "padding; a padding row gets 0. The opening comment of src/autograd/ops/cross_entropy.cpp derives it.";
const std::string zero_hint =
    "Your cross_entropy_backward returns zeros here (the shipped stub): fill in the TODO in "
    "exercises/cross_entropy_backward/exercise.cpp.";

std::vector<Mistake> usual_mistakes(const Rule& right, const Tensor& logits, const TokenIds& targets) {
  const auto with = [&](void (*change)(Rule&)) {
    Rule rule = right;
    change(rule);
    return gradient_by(rule, logits, targets);
  };
  const std::string padding_fix =
      "a position whose target is ignore_id (padding) is not in the loss: skip it, so its row of ∂logits stays 0, "
      "and do not count it in N (as PyTorch's ignore_index).";
  return {
      {"sum_not_mean", "∂logits is N × the right one: the 1/N of the mean over the N positions is missing",
       with([](Rule& r) { r.mean = false; }),
       "the loss is the MEAN of H over the N positions that are not padding, so every position's gradient carries "
       "1/N: ∂z_c = g · (p_c − q_c) / N."},
      {"padding_counted", "∂logits is divided by every position, padding included, not by the N counted ones",
       with([](Rule& r) { r.count_padding = true; }), padding_fix},
      {"padding_not_zeroed", "the padding position (target = ignore_id) has a gradient; it must get 0",
       with([](Rule& r) { r.skip_padding = false; }), padding_fix},
      {"padding_not_zeroed", "the padding position (target = ignore_id) has a gradient and counts in N",
       with([](Rule& r) { r.skip_padding = false, r.count_padding = true; }), padding_fix},
      {"smoothing_over_v_minus_1",
       "ε is spread over the V − 1 other classes (q_c = ε/(V − 1), q_t = 1 − ε); the library spreads it over all V",
       with([](Rule& r) { r.spread_over_others = true; }),
       "the library, like PyTorch's label_smoothing, mixes the one-hot target with the uniform distribution over "
       "ALL V classes: q_c = (1 − ε)[c = t] + ε/V, so the target's own q_t = 1 − ε + ε/V "
       "(src/autograd/ops/cross_entropy.cpp)."},
      {"sign", "∂logits is −1 × the right one: q − p where it is p − q", with([](Rule& r) { r.sign = -1; }),
       "∂(−log p_k)/∂z_c = p_c − [c = k] (log p_k = z_k − log Σ_j e^(z_j)); weighted by q and summed, "
       "∂H/∂z_c = p_c − q_c: the model's probability minus the target's."},
      {"missing_g", "∂logits leaves out g, the gradient the loss itself receives", with([](Rule& r) { r.g = 1; }),
       "the chain rule multiplies by g = ∂L/∂loss (1 for a plain loss.backward(), here another number): "
       "∂z_c = g · (p_c − q_c) / N."},
      {"no_smoothing", "ε is ignored: q is the one-hot target", with([](Rule& r) { r.epsilon = 0; }),
       "with label smoothing the target is q_c = (1 − ε)[c = t] + ε/V, not the one-hot [c = t]."}};
}

void check() {
  // One direct call first: logits [4, 5] (4 positions, V = 5), position 1 padding, ε = 0.1, g = 0.7.
  Generator gen(7);
  const Tensor logits = Tensor::randn({4, 5}, gen, 2);               // [4, 5]
  const TokenIds targets{{4}, {3, pad_id, 1, 4}};                    // [4]
  const real epsilon = real(0.1), g = real(0.7);
  const Tensor right = library_gradient(logits, targets, epsilon, pad_id, g);
  const Tensor yours = cross_entropy_backward(logits, targets, epsilon, pad_id, g);
  std::vector<std::string> input = tensor_lines("logits", logits);
  input.push_back("targets [4] = [3, 0, 1, 4], ignore_id = 0 (pad_id): row 1 is padding, N = 3");
  input.push_back("ε = 0.1, g = ∂L/∂loss = 0.7");
  diagnose(right, yours, usual_mistakes(Rule{epsilon, pad_id, g}, logits, targets), input);
  if (!yours.defined() || yours.shape() != logits.shape()) {
    fail("cross_entropy_backward must return ∂L/∂logits shaped like the logits", input,
         "the logits are " + logits.shape().str() + ", yours is " +
             (yours.defined() ? yours.shape().str() : "an empty Tensor") + ": start from Tensor::zeros(logits.shape()).");
  }

  struct Case {
    const char* what;
    Shape shape;
    TokenIds targets;
    real epsilon;
    int32_t ignore_id;
  };
  for (const Case& c : {Case{"logits [4, 5], ε = 0.1, position 1 is padding", {4, 5}, {{4}, {3, 0, 1, 4}}, 0.1, 0},
                        Case{"logits [2, 3, 7], ε = 0.1, three padding positions: leading axes are positions too",
                             {2, 3, 7}, {{2, 3}, {3, 6, 0, 1, 0, 0}}, 0.1, 0},
                        Case{"logits [3, 6], ε = 0, no padding (ignore_id = −1)", {3, 6}, {{3}, {0, 5, 2}}, 0, -1},
                        Case{"logits [2, 4], every position padding: the loss is the constant 0", {2, 4},
                             {{2}, {0, 0}}, 0.1, 0}}) {
    const GradcheckCase gradcheck{
        "cross_entropy_backward", c.what,
        [c](Generator& gen) { return std::vector<Tensor>{Tensor::randn(c.shape, gen, 2)}; },
        [c](const std::vector<Tensor>& inputs) {
          return cross_entropy_with_your_backward(inputs[0], c.targets, c.epsilon, c.ignore_id);
        }};
    expect_gradients(gradcheck, {"logits"}, {hint}, zero_hint);
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("cross_entropy_backward", attnlab::exercises::hint,
                                       attnlab::exercises::check);
}
