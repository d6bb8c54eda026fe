// gradient_variance.h — how noisy is a parameter's gradient? (`attnlab gradvar`)
//
// Stochastic gradient descent follows a random gradient g whose mean E[g] is the direction that lowers the loss.
// How useful one step is depends on how that mean compares with the noise around it. From K gradients g_1 … g_K
// of one parameter (each flattened to a vector of its n numbers):
//     ḡ      = (1/K) Σ_k g_k                              the sample mean                           [n]
//     ‖ḡ‖²   = Σ_i ḡ_i²                                   its squared length: the signal
//     tr Σ̂   = 1/(K−1) Σ_k ‖g_k − ḡ‖²                     the trace of the sample covariance: the noise,
//                                                          the expected squared distance of ONE gradient from
//                                                          the mean (unbiased: K−1, not K)
//     SNR    = ‖ḡ‖² / tr Σ̂                                signal to noise of one gradient step
// SNR ≫ 1: every step points the same way; SNR ≪ 1: a single step is mostly noise and only the average of many
// steps moves the parameter somewhere. Since ḡ itself carries noise of expected squared length tr Σ / K, a
// parameter whose true mean gradient is 0 still shows SNR ≈ 1/K: an SNR near 1/K means "no signal detected".
//
// Where the randomness comes from, the `source`:
//   batch     the same training batch K times. With soft attention (and dropout off, as here) the K gradients
//             are identical and tr Σ̂ = 0 exactly; with hard attention each pass samples fresh keys, so what is
//             left is the estimator's own variance (REINFORCE or Gumbel-softmax; attention/hard.cpp).
//   batches   K different training batches (batch k of the training data, in the order epoch 0 of train.seed
//             draws them): the ordinary minibatch noise of SGD, plus, for hard attention, the sampling noise.
// The gradient is the one train_step() backpropagates: the label-smoothed loss of the batch plus, for hard
// attention, its score-function term (nn/sampled.h), before clipping. Dropout is off (model.dropout
// = 0 for the measurement), so the only randomness on one batch is hard attention's sampling. The moving-average
// reward baseline of hard attention starts at the first sample's mean reward and moves over the K samples as it
// does in training (it is not saved in checkpoints, so a loaded model starts it afresh anyway). Likewise
// hard_estimator: gumbel_st measures at its first temperature, hard_temperature (τ_0), whatever the step.
//
// The model is a run's step checkpoint (checkpoints/step-N.safetensors) or, for step 0, the weights train.seed
// draws before training. Cloze runs are refused: no reader samples anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct GradientStatistics {
  int64_t samples = 0;          // K
  int64_t numbers = 0;          // n, the parameter's size
  double mean_norm2 = 0;        // ‖ḡ‖²
  double variance_trace = 0;    // tr Σ̂ (0 for K = 1)
  double snr() const;           // ‖ḡ‖² / tr Σ̂; +∞ when tr Σ̂ = 0 and ‖ḡ‖² > 0, 0 when both are 0
};

// The statistics of K ≥ 2 gradients of equal length. Throws attnlab::Error for fewer than 2 or unequal lengths.
GradientStatistics gradient_statistics(const std::vector<std::vector<double>>& gradients);

struct GradientVarianceRequest {
  std::string run_dir;                   // a translation run (model.task: translate)
  std::vector<int64_t> steps;            // 0 (the initial weights) or steps with a checkpoint; empty: 0 and all
  std::vector<std::string> parameters;   // parameter names; empty: every cross-attention q_proj and k_proj weight
  int64_t samples = 32;                  // K
  std::vector<std::string> sources = {"batch", "batches"};
  uint64_t seed = 1;                     // draws hard attention's samples
};

struct GradientVarianceRow {
  int64_t step = 0;
  std::string parameter, source;
  GradientStatistics statistics;
};

// Every (step, source, parameter) of the request, in that order. Throws attnlab::Error naming what is wrong: not a
// run folder, a cloze run, a step without a checkpoint (listing those there are), an unknown parameter (with the
// closest name), K < 2 or an unknown source.
std::vector<GradientVarianceRow> measure_gradient_variance(const GradientVarianceRequest& request);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
