// checks/matmul.cpp — gradient checks for the ops of ops/matmul.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> matmul_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
