// optimizer.h — Adam (Kingma & Ba 2015) and AdamW (Loshchilov & Hutter 2019): how parameters learn.
//
// Plain gradient descent moves every parameter by the same multiple of its gradient, p ← p − lr·g. Adam keeps,
// for every number p of every parameter, two running averages of its gradient g:
//     m ← β₁·m + (1 − β₁)·g          the first moment: a smoothed direction ("exp_avg" in PyTorch)
//     v ← β₂·v + (1 − β₂)·g²         the second moment: a smoothed squared size ("exp_avg_sq")
// Both start at 0, so in the first steps they are biased towards 0; dividing by 1 − βᵗ (t = steps taken,
// counting this one) removes that bias:
//     m̂ = m / (1 − β₁ᵗ)              v̂ = v / (1 − β₂ᵗ)
// and the step is
//     p ← p − lr · m̂ / (√v̂ + ε)
// Each number gets its own step size: lr divided by the typical size of its gradient, so a parameter whose
// gradients are tiny (a rarely seen embedding row) still moves. The Transformer paper uses β₁ = 0.9,
// β₂ = 0.98, ε = 10⁻⁹ (Vaswani et al. 2017, §5.3).
//
// AdamW adds weight decay *decoupled* from the gradient: every step also shrinks each parameter towards 0,
//     p ← p − lr · λ · p             (λ = weight_decay, applied to the value before this step's update)
// Adding λ·p to the gradient instead (L2 regularisation, "Adam with weight decay") would have the decay divided
// by √v̂ like the gradient and so decay each parameter differently; Loshchilov & Hutter show the decoupled form
// works better. attnlab refuses Adam with weight_decay > 0 rather than silently pick one of the two meanings.
// As in torch.optim.AdamW with one parameter group, the decay applies to every parameter (biases, LayerNorm
// gains and embeddings included).
//
// The state is PyTorch's: for parameter "<name>" the tensors "optimizer.exp_avg.<name>" and
// "optimizer.exp_avg_sq.<name>" (same shape as the parameter), plus the step count t. A checkpoint stores them,
// so a resumed run continues with the same moments and the same bias correction.
//
// With ZeRO stage 1 (sharded_optimizer.h) each of N processes keeps the moments of only 1/N of the numbers:
// keep_only() cuts the optimizer down to a stretch of the parameters laid end to end (flat_parameters.h), and
// step() then updates those numbers alone. Every number is updated by the same lines either way.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"
#include "tensor/safetensors.h"
#include "train/config.h"
#include "train/flat_parameters.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::adam;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;  // λ; AdamW only
};

// The optimizer part of the train: section ("optimizer", "beta1", "beta2", "eps", "weight_decay").
// Throws attnlab::Error naming the key for an unknown optimizer name.
OptimizerOptions optimizer_options(const TrainConfig& config);

class Optimizer {
 public:
  // Creates the moments (zeros, one pair per parameter) now, so that step() allocates nothing.
  // Throws attnlab::Error for Adam with weight_decay > 0 (use adamw), β outside [0, 1), ε < 0, a negative
  // weight decay, or two parameters with the same name.
  Optimizer(std::vector<NamedParameter> parameters, const OptimizerOptions& options);
  Optimizer(std::vector<NamedParameter> parameters, const TrainConfig& config)
      : Optimizer(std::move(parameters), optimizer_options(config)) {}

  // One update of every parameter (every number it owns: keep_only) from its current gradient, with learning
  // rate `lr`; t ← t + 1 first.
  // A parameter that has no gradient (none has reached it since it was made) is left as it is, moments and all.
  // The gradients are read, not cleared: call Module::zero_grad() before the next backward pass.
  void step(double lr);

  // t: how many steps have been taken (since construction, or as restored by load_state).
  int64_t steps() const { return steps_; }

  // The moments, named "optimizer.exp_avg.<name>" and "optimizer.exp_avg_sq.<name>", in parameter order.
  // These are handles to the live buffers, not copies: save them before the next step() changes them.
  // After keep_only(): the moments of the owned numbers only, a 1-D piece for a parameter owned in part, none
  // for a parameter not owned — not a checkpoint's state (save_checkpoint refuses it; gather it first).
  std::vector<NamedTensor> state_tensors() const;

  // Restores the moments and the step count from tensors named as state_tensors() names them. `tensors` may
  // hold other tensors too (a checkpoint also holds the model's weights); names not starting with
  // "optimizer." are ignored. Refuses, changing nothing, a missing moment, a moment whose shape differs from its
  // parameter's, an "optimizer.…" tensor for a parameter this optimizer does not have, or steps < 0; the
  // attnlab::Error names the tensor and both shapes. After keep_only() the tensors are still whole moments (as a
  // checkpoint has them), and the owned numbers are taken from them.
  void load_state(const std::vector<NamedTensor>& tensors, int64_t steps);

  // ZeRO (sharded_optimizer.h): from now on own only the numbers `range` of the parameters laid end to end —
  // their moments are kept, every other moment is freed, and step() updates those numbers alone. Only once, on
  // an optimizer that owns everything (throws attnlab::Error otherwise).
  void keep_only(FlatRange range);
  bool owns_all() const { return owns_all_; }
  int64_t moment_bytes() const;   // the bytes of m and v held here: 2 · 4 · (numbers owned) in float32

  const std::vector<NamedParameter>& parameters() const { return parameters_; }
  const OptimizerOptions& options() const { return options_; }

 private:
  std::vector<NamedParameter> parameters_;
  std::vector<Tensor> exp_avg_;     // m, one per parameter, same shape (after keep_only: its owned numbers)
  std::vector<Tensor> exp_avg_sq_;  // v, one per parameter, same shape (after keep_only: its owned numbers)
  struct Owned {
    int64_t from = 0, to = 0;       // the numbers [from, to) of the parameter that this optimizer updates
  };
  std::vector<Owned> owned_;        // one per parameter; all of each until keep_only()
  bool owns_all_ = true;
  OptimizerOptions options_;
  int64_t steps_ = 0;
  struct Piece {                    // a step's unit of work: at most 16 K numbers of one parameter (step())
    real* p;                        // the parameter's numbers
    const real* g;                  // their gradient
    real* m;                        // their first moment
    real* v;                        // their second moment
    int64_t count;
  };
  std::vector<Piece> pieces_;       // the last step's pieces, kept so that a step allocates nothing
};

// The names PyTorch gives the moments of parameter `name`.
std::string exp_avg_name(const std::string& parameter_name);     // "optimizer.exp_avg.<name>"
std::string exp_avg_sq_name(const std::string& parameter_name);  // "optimizer.exp_avg_sq.<name>"

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
