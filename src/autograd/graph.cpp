// graph.cpp — recording the graph and walking it backwards.
#include "autograd/graph.h"

#include <memory>
#include <unordered_set>

#include "autograd/backward_hook.h"
#include "tensor/storage.h"
#include "util/error.h"
#include "util/profile.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {
thread_local bool grad_mode = true;
}

bool grad_enabled() { return grad_mode; }

NoGradGuard::NoGradGuard() : previous_(grad_mode) { grad_mode = false; }
NoGradGuard::~NoGradGuard() { grad_mode = previous_; }

bool no_graph(Tensor& output, const char* op) {
  if (grad_mode) return false;
  record(output, op, {}, nullptr);
  return true;
}

void record(Tensor& output, const char* op, std::vector<Tensor> inputs, BackwardFunction backward) {
  profile::forward_done(op);                       // `attnlab bench --profile`: the op's forward ends here
  TensorNode& node = output.node();
  node.op = op;
  if (!grad_mode) return;
  bool any_input_requires_grad = false;
  for (const Tensor& input : inputs) any_input_requires_grad |= wants_grad(input);
  if (!any_input_requires_grad) return;
  node.requires_grad = true;
  node.inputs = std::move(inputs);
  node.backward = std::move(backward);
}

// Reverse-mode sweep. First a depth-first search from the loss lists every node of the graph so that each
// node comes after all of its inputs (a topological order); walking that list backwards then reaches every
// node only after all its users have added their contributions to its gradient.
void Tensor::backward() { attnlab::backward(*this, nullptr); }

void backward(const Tensor& loss, const GradientFinal& gradient_final) {
  if (loss.numel() != 1) {
    throw Error("backward() starts from a single number (a loss), but this tensor has shape " +
                loss.shape().str());
  }
  if (!loss.requires_grad()) {
    throw Error("backward(): this tensor was not computed from any tensor that requires a gradient "
                "(or it was computed inside a NoGradGuard)");
  }

  // Iterative DFS (a long sequence makes a deep graph; recursion could overflow the stack).
  std::vector<std::shared_ptr<TensorNode>> order;  // strong references: keep every node alive until the end
  std::unordered_set<TensorNode*> visited;
  struct Frame {
    std::shared_ptr<TensorNode> node;
    size_t next_input;
  };
  std::vector<Frame> stack{{loss.node_ptr(), 0}};
  visited.insert(loss.node_ptr().get());
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next_input < frame.node->inputs.size()) {
      const Tensor& input = frame.node->inputs[frame.next_input++];
      if (input.defined() && input.requires_grad() && visited.insert(input.node_ptr().get()).second) {
        stack.push_back({input.node_ptr(), 0});
      }
    } else {
      order.push_back(std::move(frame.node));
      stack.pop_back();
    }
  }

  // ∂loss/∂loss = 1, then the chain rule from the loss back to the leaves.
  // Memory is given back as the sweep goes, not at the end. When node n is reached, every tensor that used n has
  // already pushed its gradient into n's, so once n's own backward has run, n's gradient is spent and n's edges
  // (its inputs, and its backward function with the tensors it saved) are no longer needed: they are dropped at
  // once, and a forward tensor whose last user is done goes back to the storage pool there and then. Without
  // this, the forward pass's tensors and all of their gradients would be alive together at the end — twice
  // the memory. Parameters and other leaves keep their gradients; a computed tensor's gradient is released
  // (as in PyTorch, where a non-leaf's .grad is None unless asked for).
  loss.grad()[0] += 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    TensorNode& n = **it;
    const bool computed = static_cast<bool>(n.backward);
    if (computed && !n.grad.empty()) {
      const auto started = profile::now();                         // for `attnlab bench --profile` (util/profile.h)
      n.backward(n);
      profile::add(n.op, profile::Pass::backward, started);        // counted only while a profile runs
    }
    if (!computed && gradient_final) gradient_final(n);              // a leaf: every user has pushed its part
    n.backward = nullptr;                                            // release the graph: history forgotten
    n.inputs.clear();
    if (computed && it != order.rbegin()) release_storage(n.grad);   // spent (the loss keeps its 1)
    it->reset();                                                     // the sweep's own reference
  }
}

Tensor Tensor::detach() const {
  return Tensor::from_values(shape(), acquire_storage_copy(values()), /*requires_grad=*/false);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
