// checks/shape.cpp — gradient checks for the ops of ops/shape.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> shape_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
