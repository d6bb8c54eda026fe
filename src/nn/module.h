// module.h — a layer with named parameters, the way PyTorch's nn.Module names them.
//
// A Module owns parameter tensors (requires_grad = true) and child modules. named_parameters() walks the tree
// and joins names with dots, so a model's parameters read like a PyTorch state dict:
//     encoder.layers.0.self_attn.q_proj.weight   [d_model, d_model]
// That is what lets a checkpoint written by attnlab be opened in Python and compared with a PyTorch model, and
// what lets the optimizer treat all parameters as one list.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor/product/product.h"
#include "tensor/tensor.h"
#include "util/choice.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The two paths every module can compute by (model.path, configs/README.md):
//   paper  the paper's chain of plain ops, written in the module right under its equation — what to read; its
//          matrix products are the matmul op's, on Eigen's GEMM (tensor/product/product.h)
//   fused  the fast kernels of src/kernels/ that stand for those chains, with attnlab's own packed GEMM under
//          their products (the default: the same numbers to rounding, less time and memory; tests/model/
//          test_two_paths.cpp checks the two agree)
// A model's path is its own and nothing else's: two models in one process may compute by different paths.
enum class ComputePath { paper, fused };
const std::vector<std::string>& choice_names(ComputePath);  // "paper", "fused": the config's words (util/choice.h)

struct NamedParameter {
  std::string name;  // "encoder.layers.0.self_attn.q_proj.weight"
  Tensor tensor;
};

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;             // parameters are shared handles: copying a module would alias them
  Module& operator=(const Module&) = delete;

  // Every parameter of this module and its children, depth first, in registration order.
  std::vector<NamedParameter> named_parameters() const;
  std::vector<Tensor> parameters() const;
  int64_t parameter_count() const;            // total number of learnable numbers
  void zero_grad() const;
  // Where this module sits in its model, dotted like its parameters: "encoder.layers.0.ffn" ("" for the root or
  // a module on its own). Computed on demand by walking up to the root; traces use it to name their lines.
  std::string path() const;
  // Which path this module computes by; use_compute_path sets it for this module and every child (a whole model
  // at once, as PyTorch's train()/eval() set the training flag).
  ComputePath compute_path() const { return compute_path_; }
  bool fused() const { return compute_path_ == ComputePath::fused; }
  void use_compute_path(ComputePath path);
  // Which GEMM the fused path's products run on (model.gemm, tensor/product/product.h); use_gemm resolves `auto` and sets
  // it for this module and every child. The paper's path always runs on Eigen's, the plain one.
  Gemm gemm() const { return gemm_; }
  void use_gemm(Gemm gemm);
  // The number format of the fused path's products (model.precision, tensor/product/bf16_product.h): float32, or
  // operands rounded to bfloat16 with float32 sums; use_precision checks it can run here (else attnlab::Error
  // naming the key) and sets it for this module and every child. The paper's path always computes in float32.
  Precision precision() const { return precision_; }
  void use_precision(Precision precision);

 protected:
  // Registers a parameter (sets requires_grad) and returns the handle to keep in a member.
  Tensor register_parameter(const std::string& name, Tensor tensor);
  // Registers a child whose parameters appear under "name.". The child must outlive nothing: it is owned here.
  template <typename M>
  M& register_module(const std::string& name, std::unique_ptr<M> child) {
    M& ref = *child;
    ref.parent_ = this;
    ref.name_in_parent_ = name;
    children_.emplace_back(name, std::move(child));
    return ref;
  }

 private:
  void collect(const std::string& prefix, std::vector<NamedParameter>& out) const;
  std::vector<NamedParameter> parameters_;
  std::vector<std::pair<std::string, std::unique_ptr<Module>>> children_;
  const Module* parent_ = nullptr;            // set by the parent's register_module
  std::string name_in_parent_;
  ComputePath compute_path_ = ComputePath::fused;
  Gemm gemm_ = Gemm::packed;
  Precision precision_ = Precision::float32;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
