// module.cpp — registering and listing parameters.
#include "nn/module.h"

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

const std::vector<std::string>& choice_names(ComputePath) {
  static const std::vector<std::string> names{"paper", "fused"};
  return names;
}

void Module::use_compute_path(ComputePath path) {
  compute_path_ = path;
  for (const auto& child : children_) child.second->use_compute_path(path);
}

void Module::use_gemm(Gemm gemm) {
  gemm_ = resolve_gemm(gemm);
  for (const auto& child : children_) child.second->use_gemm(gemm_);
}

void Module::use_precision(Precision precision) {
  precision_ = resolve_precision(precision);
  for (const auto& child : children_) child.second->use_precision(precision_);
}

Tensor Module::register_parameter(const std::string& name, Tensor tensor) {
  tensor.set_requires_grad(true);
  parameters_.push_back({name, tensor});
  return tensor;
}

void Module::collect(const std::string& prefix, std::vector<NamedParameter>& out) const {
  for (const NamedParameter& p : parameters_) out.push_back({prefix + p.name, p.tensor});
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<NamedParameter> Module::named_parameters() const {
  std::vector<NamedParameter> out;
  collect("", out);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (NamedParameter& p : named_parameters()) out.push_back(p.tensor);
  return out;
}

int64_t Module::parameter_count() const {
  int64_t count = 0;
  for (const NamedParameter& p : named_parameters()) count += p.tensor.numel();
  return count;
}

std::string Module::path() const {
  if (!parent_) return "";
  std::string above = parent_->path();
  return above.empty() ? name_in_parent_ : above + "." + name_in_parent_;
}

void Module::zero_grad() const {
  for (const NamedParameter& p : named_parameters()) p.tensor.zero_grad();
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
