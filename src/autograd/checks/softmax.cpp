// checks/softmax.cpp — gradient checks for the ops of ops/softmax.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> softmax_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
