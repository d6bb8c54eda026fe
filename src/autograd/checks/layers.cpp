// checks/layers.cpp — PLACEHOLDER, being written.
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> layer_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
