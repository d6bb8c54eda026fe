// masks.cpp — padding and causal masks from token ids.
#include "model/masks.h"

#include "model/config.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

AttentionMask make_padding_mask(const TokenIds& keys, int64_t query_len, bool causal) {
  if (keys.shape.rank() != 2) {
    throw Error("token ids for a batch must have shape [batch, time], got " + keys.shape.str());
  }
  AttentionMask mask;
  mask.batch = keys.shape[0];
  mask.key_len = keys.shape[1];
  mask.query_len = query_len;
  mask.causal = causal;
  mask.key_is_real.resize(keys.values.size());
  for (size_t i = 0; i < keys.values.size(); ++i) mask.key_is_real[i] = keys.values[i] != pad_id ? 1 : 0;
  return mask;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
