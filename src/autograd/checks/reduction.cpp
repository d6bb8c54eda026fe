// checks/reduction.cpp — gradient checks for the ops of ops/reduction.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> reduction_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
