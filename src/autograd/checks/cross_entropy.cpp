// checks/cross_entropy.cpp — gradient checks for the ops of ops/cross_entropy.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> cross_entropy_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
