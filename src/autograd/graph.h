// graph.h — define-by-run automatic differentiation (reverse mode).
//
// The idea (micrograd, PyTorch autograd): every op computes its output *and* records how to differentiate it.
// Running the forward pass builds a graph whose nodes are tensors and whose edges point to the inputs each
// tensor was made from. loss.backward() then visits the nodes in reverse topological order — every tensor
// after all the tensors that used it — and applies the chain rule once per node:
//
//     ∂loss/∂input  +=  (∂output/∂input)ᵀ · ∂loss/∂output
//
// The "+=" is the multivariate chain rule: a tensor used three times receives three contributions, and a
// parameter's gradient keeps accumulating over backward calls until zero_grad() clears it.
// After backward the graph is released (each node forgets its inputs and backward function), so the memory
// of the forward pass is freed as soon as the last handle to it goes away.
//
// Inside a NoGradGuard scope nothing is recorded: inference pays for no graph at all.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Is the graph being recorded right now? (true unless a NoGradGuard is alive on this thread)
bool grad_enabled();

// While alive, ops record nothing: outputs have requires_grad = false and no history.
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// Called by every op after computing `output`: names the op and, when grad mode is on and any input requires
// a gradient, links `output` to its inputs with the op's backward function.
void record(Tensor& output, const char* op, std::vector<Tensor> inputs, BackwardFunction backward);

// Under NoGradGuard (decoding) record() keeps nothing, so an op may return before it builds what record() would be
// handed: the list of inputs and the backward closure. Each Tensor copied into those counts a shared_ptr up and
// down again — an atomic operation once the process has started a thread, at every op of every decoding step.
// That saving is for speed alone, so only the kernels chapter's ops take it (src/kernels/); the ops of this
// chapter read as forward, then record() with the backward closure, and nothing else.
//   if (no_graph(y, "linear")) return y;     does what record() does then (names the op) and says so
bool no_graph(Tensor& output, const char* op);

// True when the op should compute a gradient for this input: it asked for one.
inline bool wants_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
