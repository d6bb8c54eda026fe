// checks/layer_norm.cpp — gradient checks for the ops of ops/layer_norm.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> layer_norm_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
