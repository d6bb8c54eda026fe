// additive.cpp — PLACEHOLDER, being written: refuses to build the module so that nothing silently uses it.
#include "attention/attention.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::unique_ptr<Attention> make_additive_attention(const AttentionConfig&, AttentionUse, int64_t, int64_t, double,
                                              Generator&) {
  throw Error("additive attention is not implemented yet");
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
