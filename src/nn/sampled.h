// sampled.h — choices a forward pass makes by sampling, and what they are owed once the loss is known.
//
// Backpropagation differentiates numbers, not choices. A module that samples a discrete choice — hard attention
// draws one key per query (attention/hard.cpp) — gets no gradient for *where* it chose from the loss. It learns
// from a reward instead (REINFORCE, the score function): the log-likelihood log p(y_t) the translation earned
// with the choices made. So what a sampling forward owes travels with the forward, as micrograd's ops carry their
// _backward with their result: each sampling module adds a SampledChoice to the SampledChoices the caller (the
// training step) hands the ForwardContext — what it drew, and a function that turns the batch's rewards into its
// score-function term. The loss writes the rewards beside them; the step then asks for every term in one place:
//     loss = model.loss(…, ctx) + score_function_loss(sampled)          (train/step.cpp, translation_part)
// Nothing is kept on the model or the modules between the forward and that call.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class Module;

// What a training batch's targets earned: log p(y_t | the choices made) of every target position, computed
// without a graph (a constant).
struct Rewards {
  int64_t batch = 0, positions = 0;   // B, T
  std::vector<double> log_p;          // [B, T]: log p(y_bt); 0 at padding
  std::vector<uint8_t> real;          // [B, T]: 1 for a real target token
  double tokens = 0;                  // the real target tokens: the loss's divisor
  double sentence(int64_t b) const;   // Σ_t log p(y_bt): the sentence's log-likelihood
};

// One module's draws in one forward pass.
struct SampledChoice {
  const Module* by = nullptr;         // the module that drew them (a replay pass finds its own)
  std::vector<int64_t> keys;          // what was drawn: one key per (sentence, head, query); −1: none drawn
  std::vector<uint8_t> soft;          // [B]: 1 for a sentence that used the expectation instead of a draw
  // The score-function term these draws owe, given the batch's rewards: [1] in the graph, or an undefined
  // tensor when there is nothing to add. Empty when the draws owe nothing (evaluation's samples).
  std::function<Tensor(const Rewards&)> score_function;
};

// Every draw of one forward pass, and the rewards the loss measured for them.
struct SampledChoices {
  std::vector<SampledChoice> choices;  // in the order the modules ran
  Rewards rewards;                     // set by the loss (Seq2Seq::loss) when there are choices
  const SampledChoice* of(const Module& module) const;   // the draws of `module`, or null
};

// Σ of every choice's score-function term under sampled.rewards: [1], or undefined when there is nothing to add.
Tensor score_function_loss(const SampledChoices& sampled);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
