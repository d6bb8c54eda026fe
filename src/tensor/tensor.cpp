// tensor.cpp — making tensors and reading their numbers.
#include "tensor/tensor.h"

#include <cstdio>

#include "tensor/parallel.h"
#include "tensor/storage.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor Tensor::zeros(const Shape& shape, bool requires_grad) { return full(shape, 0, requires_grad); }

Tensor Tensor::full(const Shape& shape, real fill, bool requires_grad) {
  auto node = std::make_shared<TensorNode>();
  node->shape = shape;
  node->value = acquire_storage(shape.numel(), fill);                  // a pooled buffer when one fits
  node->requires_grad = requires_grad;
  return Tensor(std::move(node));
}

Tensor Tensor::empty(const Shape& shape) {
  auto node = std::make_shared<TensorNode>();
  node->shape = shape;
  node->value = acquire_storage_uninitialized(shape.numel());          // no fill: the caller writes every number
  return Tensor(std::move(node));
}

Tensor Tensor::from_values(const Shape& shape, std::vector<real> values, bool requires_grad) {
  if (static_cast<int64_t>(values.size()) != shape.numel()) {
    throw Error("Tensor::from_values: shape " + shape.str() + " holds " + std::to_string(shape.numel()) +
                " numbers, but " + std::to_string(values.size()) + " were given");
  }
  auto node = std::make_shared<TensorNode>();
  node->shape = shape;
  node->value = std::move(values);
  node->requires_grad = requires_grad;
  return Tensor(std::move(node));
}

Tensor Tensor::randn(const Shape& shape, Generator& gen, real stddev, bool requires_grad) {
  Tensor t = zeros(shape, requires_grad);
  for (real& v : t.values()) v = static_cast<real>(gen.normal(0.0, stddev));
  return t;
}

Tensor Tensor::uniform(const Shape& shape, Generator& gen, real low, real high, bool requires_grad) {
  Tensor t = zeros(shape, requires_grad);
  for (real& v : t.values()) v = static_cast<real>(gen.uniform(low, high));
  return t;
}

TensorNode::~TensorNode() {
  release_storage(value);
  release_storage(grad);
}

TensorNode& Tensor::node() {
  if (!node_) throw Error("this Tensor is empty (default-constructed): nothing to read");
  return *node_;
}

const TensorNode& Tensor::node() const {
  if (!node_) throw Error("this Tensor is empty (default-constructed): nothing to read");
  return *node_;
}

real Tensor::item() const {
  if (numel() != 1) throw Error("item() needs a tensor with one number, but the shape is " + shape().str());
  return node().value[0];
}

real Tensor::at(std::initializer_list<int64_t> index) const {
  const Shape& s = shape();
  if (static_cast<int>(index.size()) != s.rank()) {
    throw Error("at(): " + std::to_string(index.size()) + " indices for a tensor of shape " + s.str());
  }
  int64_t offset = 0;
  int axis = 0;
  for (int64_t i : index) {
    if (i < 0 || i >= s[axis]) {
      throw Error("at(): index " + std::to_string(i) + " is out of range on axis " + std::to_string(axis) +
                  " of shape " + s.str());
    }
    offset = offset * s[axis] + i;
    ++axis;
  }
  return node().value[static_cast<size_t>(offset)];
}

MatrixMap Tensor::matrix() { return MatrixMap(data(), shape().rows(), shape().cols()); }

ConstMatrixMap Tensor::matrix() const { return ConstMatrixMap(data(), shape().rows(), shape().cols()); }

Tensor& Tensor::set_requires_grad(bool flag) {
  node().requires_grad = flag;
  return *this;
}

real* Tensor::grad() const {
  node();  // throws for an empty handle
  TensorNode& n = *node_;
  if (n.grad.empty()) n.grad = acquire_storage(static_cast<int64_t>(n.value.size()), 0);
  return n.grad.data();
}

real* Tensor::grad_for_overwrite() const {
  node();  // throws for an empty handle
  TensorNode& n = *node_;
  if (!n.grad.empty()) throw Error("grad_for_overwrite(): this tensor already has a gradient; add to it with grad()");
  n.grad = acquire_storage_uninitialized(static_cast<int64_t>(n.value.size()));
  return n.grad.data();
}

MatrixMap Tensor::grad_matrix() const { return MatrixMap(grad(), shape().rows(), shape().cols()); }

void Tensor::zero_grad() const {
  node();  // throws for an empty handle
  TensorNode& n = *node_;
  real* g = n.grad.data();
  for_each_chunk(static_cast<int64_t>(n.grad.size()), [g](int64_t begin, int64_t end) {   // on every thread
    std::fill(g + begin, g + end, real(0));
  });
}

std::string describe(const Tensor& t, int max_values) {
  if (!t.defined()) return "(empty tensor)";
  std::string text = t.shape().str() + " [";
  int64_t shown = std::min<int64_t>(t.numel(), max_values);
  char number[32];
  for (int64_t i = 0; i < shown; ++i) {
    std::snprintf(number, sizeof number, "%s%.4g", i ? ", " : "", static_cast<double>(t.data()[i]));
    text += number;
  }
  if (shown < t.numel()) text += ", …";
  return text + "]";
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
