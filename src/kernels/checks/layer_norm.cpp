// checks/layer_norm.cpp — gradient checks for fused_layer_norm (kernels/layer_norm.cpp): the op layer_norm's own
// cases (autograd/checks/layer_norm.cpp), one of them with more rows than a chunk, so that partial sums are added.
#include "autograd/gradcheck.h"
#include "kernels/checks.h"
#include "kernels/kernels.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> fused_layer_norm_checks() {
  return layer_norm_checks_for("fused_layer_norm", fused_layer_norm);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
