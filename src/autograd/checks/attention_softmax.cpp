// checks/attention_softmax.cpp — PLACEHOLDER, being written.
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> softmax_attention_checks() { return {}; }

}  // namespace attnlab::inline ATTNLAB_PRECISION
