// optimizer.cpp — Adam and AdamW, vectorised with Eigen, on every thread.
//
// The update runs over each parameter's numbers as flat arrays (Eigen::Map onto the tensor's storage, no copy);
// Eigen evaluates each line below in one fused, SIMD loop without temporaries (the last, with its square root, is
// a plain loop the compiler vectorises: see there), piece by piece of the parameters so that the pieces share out
// over the threads and stay in the cache. The slow, obvious version of the same thing is written out in the
// comment beside it (and in tests/train/test_optim.cpp, which checks the bits).
#include "train/optimizer.h"

#include <Eigen/Core>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "tensor/parallel.h"
#include "util/error.h"
#include "util/quote.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

using Array = Eigen::Array<real, Eigen::Dynamic, 1>;
using ArrayMap = Eigen::Map<Array>;
using ConstArrayMap = Eigen::Map<const Array>;

const std::string exp_avg_prefix = "optimizer.exp_avg.";
const std::string exp_avg_sq_prefix = "optimizer.exp_avg_sq.";

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The shortest text that reads back as the same double: 1e-09, 0.98, 1200.
std::string number(double value) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// "first; second; third; … and 4 more" — at most five problems, so a message stays one readable line.
std::string list_problems(const std::vector<std::string>& problems) {
  std::string text;
  for (size_t i = 0; i < problems.size() && i < 5; ++i) text += (i ? "; " : "") + problems[i];
  if (problems.size() > 5) text += "; and " + std::to_string(problems.size() - 5) + " more";
  return text;
}

}  // namespace

std::string exp_avg_name(const std::string& parameter_name) {
  return exp_avg_prefix + parameter_name;
}
std::string exp_avg_sq_name(const std::string& parameter_name) {
  return exp_avg_sq_prefix + parameter_name;
}

const std::vector<std::string>& choice_names(OptimizerKind) {
  static const std::vector<std::string> names{"adam", "adamw"};
  return names;
}

OptimizerOptions optimizer_options(const TrainConfig& config) {
  OptimizerOptions options;
  options.kind = config.optimizer;
  options.beta1 = config.beta1;
  options.beta2 = config.beta2;
  options.eps = config.eps;
  options.weight_decay = config.weight_decay;
  return options;
}

Optimizer::Optimizer(std::vector<NamedParameter> parameters, const OptimizerOptions& options)
    : parameters_(std::move(parameters)), options_(options) {
  const std::string& kind = name_of(options.kind);
  if (!(options.beta1 >= 0 && options.beta1 < 1)) {
    throw Error(kind + ": beta1 (train.beta1) must be in [0, 1), got " + number(options.beta1));
  }
  if (!(options.beta2 >= 0 && options.beta2 < 1)) {
    throw Error(kind + ": beta2 (train.beta2) must be in [0, 1), got " + number(options.beta2));
  }
  if (!(options.eps > 0)) {
    // ε = 0 would divide 0 by 0 for any number whose gradient has always been 0 (a padding embedding row).
    throw Error(kind + ": eps (train.eps) must be > 0, got " + number(options.eps));
  }
  if (!(options.weight_decay >= 0)) {
    throw Error(kind + ": weight_decay (train.weight_decay) must be ≥ 0, got " +
                number(options.weight_decay));
  }
  if (options.kind == OptimizerKind::adam && options.weight_decay > 0) {
    throw Error("adam: weight_decay (train.weight_decay) is " + number(options.weight_decay) +
                ", but Adam has no decoupled weight decay; use optimizer: adamw (or set weight_decay: 0)");
  }

  std::set<std::string> names;
  for (const NamedParameter& parameter : parameters_) {
    if (!names.insert(parameter.name).second) {
      throw Error(kind + ": two parameters are both named \"" + parameter.name + "\"");
    }
    exp_avg_.push_back(Tensor::zeros(parameter.tensor.shape()));     // m₀ = 0
    exp_avg_sq_.push_back(Tensor::zeros(parameter.tensor.shape()));  // v₀ = 0
    owned_.push_back({0, parameter.tensor.numel()});                 // all of it
  }
}

void Optimizer::step(double lr) {
  steps_ += 1;
  const double t = static_cast<double>(steps_);
  // The bias corrections, in double: 1 − 0.98ᵗ is tiny in the first steps, and the moments are divided by it,
  // so it deserves the digits.
  const double bias_correction1 = 1 - std::pow(options_.beta1, t);  // 1 − β₁ᵗ
  const double bias_correction2 = 1 - std::pow(options_.beta2, t);  // 1 − β₂ᵗ

  const real beta1 = static_cast<real>(options_.beta1);
  const real beta2 = static_cast<real>(options_.beta2);
  const real eps = static_cast<real>(options_.eps);
  const real learning_rate = static_cast<real>(lr);
  const real m_hat_scale = static_cast<real>(1 / bias_correction1);  // m̂ = m · m_hat_scale
  const real v_hat_scale = static_cast<real>(1 / bias_correction2);  // v̂ = v · v_hat_scale
  const real decay = static_cast<real>(lr * options_.weight_decay);  // lr · λ (0 for Adam)

  // The work: every parameter's owned numbers, cut into pieces of at most 16 K numbers (parallel.h's chunk).
  std::vector<Piece>& pieces = pieces_;                                 // kept between steps: no allocation
  pieces.clear();
  for (size_t i = 0; i < parameters_.size(); ++i) {
    TensorNode& parameter = parameters_[i].tensor.node();
    if (parameter.grad.empty()) continue;  // no gradient has reached it: nothing to learn from
    const auto [from, to] = owned_[i];     // the numbers this optimizer updates (all, unless sharded)
    if (from == to) continue;
    const int64_t n = static_cast<int64_t>(parameter.value.size());
    if (parameter.grad.size() != parameter.value.size() || to - from != exp_avg_[i].numel() || to > n) {
      throw Error("optimizer step: parameter " + parameters_[i].name + " has " + std::to_string(n) +
                  " numbers and a gradient of " + std::to_string(parameter.grad.size()) +
                  ", but its moments were made for " + std::to_string(exp_avg_[i].numel()));
    }
    for (int64_t begin = 0; begin < to - from; begin += elementwise_chunk) {
      pieces.push_back({parameter.value.data() + from + begin, parameter.grad.data() + from + begin,
                        exp_avg_[i].data() + begin, exp_avg_sq_[i].data() + begin,
                        std::min(elementwise_chunk, to - from - begin)});
    }
  }

  // The same as, for every number j of every parameter:
  //   m[j] = β₁·m[j] + (1 − β₁)·g[j]
  //   v[j] = β₂·v[j] + (1 − β₂)·g[j]·g[j]
  //   p[j] = p[j] − lr·λ·p[j]                                           (AdamW; λ = 0 for Adam)
  //   p[j] = p[j] − lr · (m[j] / (1 − β₁ᵗ)) / (sqrt(v[j] / (1 − β₂ᵗ)) + ε)
  // piece by piece, the pieces of all parameters shared among the threads in one parallel loop: each piece's
  // p, g, m, v stay in the cache across the three lines, instead of three passes over the whole tensor. One loop
  // over all the pieces, not one per parameter: most parameters (biases, LayerNorm's γ and β, a 128 × 128
  // weight) are a single piece, which a loop of their own would run on one thread — Adam then sped up 1.3× on
  // two threads for the small benchmark model. The pieces differ in size, so they are handed out one at a time
  // (dynamic). Every number gets the same operations wherever it runs (no contraction to FMA, exact sqrt:
  // CMakeLists.txt), so the bits do not depend on the thread count.
  const int64_t piece_count = static_cast<int64_t>(pieces.size());
  const Piece* all = pieces.data();
#pragma omp parallel for schedule(dynamic, 1) if (worth_threads(piece_count * elementwise_chunk / 2))
  for (int64_t k = 0; k < piece_count; ++k) {
    const Piece& piece = all[k];
    const Eigen::Index count = static_cast<Eigen::Index>(piece.count);
    ArrayMap p(piece.p, count);
    ConstArrayMap g(piece.g, count);
    ArrayMap m(piece.m, count);
    ArrayMap v(piece.v, count);
    m = beta1 * m + (1 - beta1) * g;
    v = beta2 * v + (1 - beta2) * g.square();
    if (decay != 0) p -= decay * p;
    // p −= lr · m̂ / (√v̂ + ε) as a plain loop, not an Eigen line: Eigen 3.4 has no exact vector sqrt for float on
    // AVX-512 (only the approximate one of EIGEN_FAST_MATH, which CMakeLists.txt turns off), so as an Eigen
    // expression this line ran one number at a time — 77 % of Adam's time on an AVX-512 machine. The compiler
    // vectorises this loop with the exact vector sqrt (it may: -fno-math-errno, CMakeLists.txt). The same
    // operations in the same order, so the same bits.
    real* __restrict p_out = piece.p;
    const real* __restrict m_in = piece.m;
    const real* __restrict v_in = piece.v;
    for (Eigen::Index j = 0; j < count; ++j) {
      p_out[j] -= learning_rate * (m_in[j] * m_hat_scale) / (std::sqrt(v_in[j] * v_hat_scale) + eps);
    }
  }
}

std::vector<NamedTensor> Optimizer::state_tensors() const {
  std::vector<NamedTensor> state;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (exp_avg_[i].defined()) state.push_back({exp_avg_name(parameters_[i].name), exp_avg_[i]});
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (exp_avg_sq_[i].defined()) state.push_back({exp_avg_sq_name(parameters_[i].name), exp_avg_sq_[i]});
  }
  return state;
}

void Optimizer::keep_only(FlatRange range) {
  if (!owns_all_) throw Error("optimizer: keep_only() on an optimizer that is already sharded");
  // A parameter owned in part keeps its owned numbers' moments as a 1-D piece; one not owned keeps none.
  std::vector<Owned> owned(parameters_.size());
  for (const ParameterPart& part : parts_in(parameters_, range)) owned[part.parameter] = {part.from, part.to};
  auto cut = [](const Tensor& moment, Owned part) {
    if (part.from == part.to) return Tensor();
    if (part.from == 0 && part.to == moment.numel()) return moment;
    const std::vector<real>& all = moment.values();
    return Tensor::from_values(Shape{part.to - part.from},
                               std::vector<real>(all.begin() + part.from, all.begin() + part.to));
  };
  for (size_t i = 0; i < parameters_.size(); ++i) {
    exp_avg_[i] = cut(exp_avg_[i], owned[i]);
    exp_avg_sq_[i] = cut(exp_avg_sq_[i], owned[i]);
  }
  owned_ = std::move(owned);
  owns_all_ = false;
}

int64_t Optimizer::moment_bytes() const {
  int64_t numbers = 0;
  for (const Owned& part : owned_) numbers += 2 * (part.to - part.from);   // m and v
  return numbers * static_cast<int64_t>(sizeof(real));
}

void Optimizer::load_state(const std::vector<NamedTensor>& tensors, int64_t steps) {
  if (steps < 0) throw Error("optimizer state: the step count is " + std::to_string(steps) + ", must be ≥ 0");

  std::map<std::string, size_t> index_of;  // parameter name → position in parameters_
  for (size_t i = 0; i < parameters_.size(); ++i) index_of[parameters_[i].name] = i;

  // Find every moment first and check it; copy only when all are right, so a refused state changes nothing.
  std::vector<const Tensor*> found_m(parameters_.size(), nullptr);
  std::vector<const Tensor*> found_v(parameters_.size(), nullptr);
  std::vector<std::string> problems;
  for (const NamedTensor& named : tensors) {
    if (!starts_with(named.name, "optimizer.")) continue;
    std::vector<const Tensor*>* found = nullptr;
    std::string parameter_name;
    if (starts_with(named.name, exp_avg_prefix)) {
      found = &found_m;
      parameter_name = named.name.substr(exp_avg_prefix.size());
    } else if (starts_with(named.name, exp_avg_sq_prefix)) {
      found = &found_v;
      parameter_name = named.name.substr(exp_avg_sq_prefix.size());
    } else {
      problems.push_back("unexpected: " + shorten(named.name) + " (attnlab's Adam state is only exp_avg and exp_avg_sq)");
      continue;
    }
    auto at = index_of.find(parameter_name);
    if (at == index_of.end()) {
      problems.push_back("unexpected: " + shorten(named.name) + " (there is no parameter " + shorten(parameter_name) +
                         ")");   // names from a file, cut (found by fuzzing)
      continue;
    }
    (*found)[at->second] = &named.tensor;
    const Shape& expected = parameters_[at->second].tensor.shape();
    if (named.tensor.shape() != expected) {
      problems.push_back(named.name + " is " + named.tensor.shape().str() + " but the parameter " + parameter_name +
                         " is " + expected.str() + " here");
    }
  }
  for (size_t i = 0; i < parameters_.size(); ++i) {
    if (!found_m[i]) problems.push_back("missing: " + exp_avg_name(parameters_[i].name));
    if (!found_v[i]) problems.push_back("missing: " + exp_avg_sq_name(parameters_[i].name));
  }
  if (!problems.empty()) {
    throw Error("optimizer state does not fit this model's parameters: " + list_problems(problems));
  }

  for (size_t i = 0; i < parameters_.size(); ++i) {   // the owned numbers (all of them, unless sharded)
    const auto [from, to] = owned_[i];
    if (from == to) continue;
    std::copy(found_m[i]->values().begin() + from, found_m[i]->values().begin() + to, exp_avg_[i].values().begin());
    std::copy(found_v[i]->values().begin() + from, found_v[i]->values().begin() + to,
              exp_avg_sq_[i].values().begin());
  }
  steps_ = steps;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
