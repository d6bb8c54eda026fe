// context.cpp — the slow half of ForwardContext::trace, run only when a tracer is set.
#include "nn/context.h"

#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::string ForwardContext::trace_name(const Module& where, const char* stage) {
  std::string path = where.path();
  if (stage[0] == '\0') return path;
  return path.empty() ? std::string(stage) : path + "." + stage;
}

Tensor ForwardContext::masked_for_trace(const Tensor& scores, const Tensor& additive_mask) {
  NoGradGuard no_graph;                              // a copy for the reader, not part of the model
  return add(scores, additive_mask);                 // [B, h, Tq, Tk] + [B, 1, Tq, Tk]
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
