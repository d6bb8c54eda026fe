// external.cpp — PLACEHOLDER, being written: refuses to build the module so that nothing silently uses it.
#include "attention/attention.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::unique_ptr<Attention> make_external_attention(const AttentionConfig&, AttentionUse, int64_t, int64_t, double,
                                              Generator&) {
  throw Error("external attention is not implemented yet");
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
