// checks/embedding.cpp — gradient checks for the ops of ops/embedding.cpp. (To be written: see ops.h.)
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> embedding_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
