// backward_hook.h — backward that says when each parameter's gradient is complete.
//
// loss.backward() (graph.h) sweeps the graph in reverse topological order: it reaches a node only after every
// node that used it has pushed its contribution (the "+=" of the chain rule). So the moment the sweep reaches a
// leaf — a parameter — that leaf's gradient for this backward is complete, and nothing will add to it again.
// A parameter used twice is reached only after its second use: with tied embeddings the target embedding is
// looked up at the bottom of the decoder and multiplied at its top, and its gradient is complete only when the
// sweep has come all the way down — the position in the sweep accounts for that, whatever the model's wiring.
//
//     backward(loss, gradient_final)    = loss.backward(), calling gradient_final(leaf) for each leaf it reaches
//
// Data parallelism uses it (distributed/gradient_buckets.h): a bucket of the last layers' gradients starts on its way
// to the other ranks while backward still computes the layers below. An empty gradient_final is loss.backward().
#pragma once

#include <functional>

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

using GradientFinal = std::function<void(const TensorNode& leaf)>;
void backward(const Tensor& loss, const GradientFinal& gradient_final);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
