// checks/dropout.cpp — gradient checks for the ops of ops/dropout.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> dropout_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
