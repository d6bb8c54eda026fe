// checks/attention_external_linear.cpp — PLACEHOLDER, being written.
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> external_linear_attention_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
