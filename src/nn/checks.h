// nn/checks.h — gradient checks for the layers of chapter 3, and the helper that turns a module into a check.
//
// The op checks (src/autograd/checks/) prove each backward function on its own; module checks prove that the
// modules wire the ops together correctly — a parameter that is used but never receives its gradient, a residual
// connection that drops a term, a mask that lets gradient leak — by comparing every parameter's analytic
// gradient with central differences.
//
// How a module becomes a GradcheckCase: the module is built once, from a fixed seed, and kept alive by a
// shared_ptr that both functions capture. make_inputs returns {the float inputs…, every parameter handle from
// named_parameters()}; apply runs the module's forward and ignores the parameter inputs, because the module
// holds the very same handles and the checker nudges their numbers in place. make_inputs clears the
// parameters' gradients first, so a case can be run more than once.
//
// Each checked number costs two forward passes, so the sizes are tiny.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/gradcheck.h"
#include "nn/module.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

inline constexpr uint64_t module_seed = 20170612;  // the day "Attention Is All You Need" appeared on arXiv

// Appends every parameter of `module` to `inputs`, after clearing their gradients from any earlier run.
inline std::vector<Tensor> with_parameters(std::vector<Tensor> inputs, const Module& module) {
  module.zero_grad();
  for (const NamedParameter& p : module.named_parameters()) inputs.push_back(p.tensor);
  return inputs;
}

// A case for a module whose float inputs have the given shapes; `forward` receives the module and those inputs.
template <typename M>
GradcheckCase module_case(std::string name, std::string what, std::shared_ptr<M> module, std::vector<Shape> shapes,
                          std::function<Tensor(M&, const std::vector<Tensor>&)> forward) {
  return {std::move(name), std::move(what),
          [module, shapes](Generator& gen) {
            std::vector<Tensor> inputs;
            for (const Shape& shape : shapes) inputs.push_back(Tensor::randn(shape, gen));
            return with_parameters(std::move(inputs), *module);
          },
          [module, forward](const std::vector<Tensor>& in) { return forward(*module, in); }};
}


// Linear, Embedding, the learned positions, LayerNorm and FeedForward ("layer.*"; src/nn/checks/layers.cpp), their
// weights drawn from `init` (all_gradcheck_cases passes one Generator(module_seed) through every module check).
std::vector<GradcheckCase> nn_layer_checks(Generator& init);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
