// checks/activation.cpp — gradient checks for the ops of ops/activation.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> activation_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
