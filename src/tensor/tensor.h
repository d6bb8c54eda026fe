// tensor.h — an n-dimensional array of numbers that remembers how it was made.
//
// A Tensor is a handle (a shared pointer) to a TensorNode. The node holds
//   * the values: `real` numbers, row-major and contiguous (see shape.h for the offset formula), and
//   * for automatic differentiation (chapter 2, src/autograd/): the gradient ∂loss/∂value, the input tensors
//     the value was computed from, and the function that pushes the gradient back to those inputs.
// Copying a Tensor copies the handle, not the numbers — like a Python variable naming a torch.Tensor.
//
// Shapes are [batch, time, feature] throughout attnlab, as in PyTorch, so a learner can compare numbers with a
// PyTorch notebook line by line. For matrix work a tensor is seen through an Eigen row-major Map: a
// [B, T, d] tensor as a [B·T, d] matrix costs nothing, because the numbers are already laid out that way.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tensor/random.h"
#include "tensor/real.h"
#include "tensor/shape.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Row-major Eigen matrices and zero-copy views onto a tensor's numbers.
using Matrix = Eigen::Matrix<real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;
using Vector = Eigen::Matrix<real, Eigen::Dynamic, 1>;

class Tensor;
struct TensorNode;

// The function that, given the output node (its `grad` filled in), adds its contribution to the gradients of
// the inputs. Each op writes one right next to its forward computation (see src/autograd/ops/).
using BackwardFunction = std::function<void(TensorNode& output)>;

struct TensorNode {
  Shape shape;
  std::vector<real> value;            // shape.numel() numbers
  std::vector<real> grad;             // empty until a gradient arrives, then shape.numel() numbers
  bool requires_grad = false;         // true for parameters and for anything computed from them

  // The graph (empty for leaves — tensors made directly rather than computed by an op):
  std::vector<Tensor> inputs;         // what this tensor was computed from
  BackwardFunction backward;          // pushes `grad` to the inputs' grads
  const char* op = "leaf";            // the op's name, for error messages and `attnlab trace`

  TensorNode() = default;
  TensorNode(const TensorNode&) = delete;
  TensorNode& operator=(const TensorNode&) = delete;
  ~TensorNode();                      // hands value's and grad's memory back to the pool (storage.h)
};

class Tensor {
 public:
  Tensor() = default;  // an empty handle; defined() is false

  // ---- making tensors ----
  static Tensor zeros(const Shape& shape, bool requires_grad = false);
  static Tensor full(const Shape& shape, real fill, bool requires_grad = false);
  // Numbers left as the reused buffer held them (torch.empty): for an op's output that it writes in full.
  static Tensor empty(const Shape& shape);
  static Tensor from_values(const Shape& shape, std::vector<real> values, bool requires_grad = false);
  static Tensor randn(const Shape& shape, Generator& gen, real stddev = 1, bool requires_grad = false);
  static Tensor uniform(const Shape& shape, Generator& gen, real low, real high, bool requires_grad = false);

  // ---- what it is ----
  bool defined() const { return node_ != nullptr; }
  const Shape& shape() const { return node().shape; }
  int rank() const { return shape().rank(); }
  int64_t size(int axis) const { return shape()[axis]; }
  int64_t numel() const { return shape().numel(); }

  // ---- its numbers ----
  real* data() { return node().value.data(); }
  const real* data() const { return node().value.data(); }
  std::vector<real>& values() { return node().value; }
  const std::vector<real>& values() const { return node().value; }
  real item() const;                                 // the one number of a [1] tensor
  real at(std::initializer_list<int64_t> index) const;  // bounds-checked element read, for tests and printing
  MatrixMap matrix();                                // [rows, last axis] view of the values
  ConstMatrixMap matrix() const;

  // ---- its gradient ----
  bool requires_grad() const { return node().requires_grad; }
  Tensor& set_requires_grad(bool flag);
  bool has_grad() const { return !node().grad.empty(); }
  // The gradient is bookkeeping attached to the node, not part of the tensor's value: ops receive their inputs
  // as `const Tensor&` and still add into the inputs' gradients, so these are const on the handle.
  real* grad() const;                                // allocated (as zeros) on first use
  // For a backward function that writes EVERY number of the first gradient a tensor receives (= instead of +=):
  // the gradient buffer, allocated without the zero fill — one pass over the memory saved. Only when has_grad()
  // is false (throws otherwise); kernels/gradient_buffer.h chooses between the two.
  real* grad_for_overwrite() const;
  const std::vector<real>& grad_values() const { return node().grad; }
  MatrixMap grad_matrix() const;
  void zero_grad() const;                               // forget the accumulated gradient

  // ---- autograd (implemented in src/autograd/graph.cpp) ----
  void backward();                                   // from this [1] tensor: fills every input's grad
  Tensor detach() const;                             // same numbers (copied), no history, no grad

  const char* op() const { return node().op; }
  TensorNode& node();
  const TensorNode& node() const;
  const std::shared_ptr<TensorNode>& node_ptr() const { return node_; }
  explicit Tensor(std::shared_ptr<TensorNode> node) : node_(std::move(node)) {}

 private:
  std::shared_ptr<TensorNode> node_;
};

// "[2, 3] [0.1, -0.5, 2, …]" — shape and the first few values, for messages and the debugger.
std::string describe(const Tensor& t, int max_values = 6);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
