// mask.cpp — which keys a query may see: padding, causality and the restricted window, in one rule.
//
//   allowed(b, i, j) = key j of sentence b is a real token
//                      and (not causal or j ≤ i)
//                      and (no window or i − left ≤ j ≤ i + right)
// The softmax kinds turn it into an additive mask (0 or −∞) so that e^(score − ∞) = 0 removes the key.
#include <limits>

#include "attention/attention.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

bool AttentionMask::allowed(int64_t b, int64_t i, int64_t j, const AttentionConfig& config) const {
  if (!key_is_real[static_cast<size_t>(b * key_len + j)]) return false;
  if (causal && j > i) return false;
  if (config.has_window && (j < i - config.window_left || j > i + config.window_right)) return false;
  return true;
}

Tensor AttentionMask::additive(const AttentionConfig& config) const {
  const real minus_infinity = -std::numeric_limits<real>::infinity();
  Tensor mask = Tensor::zeros({batch, 1, query_len, key_len});                  // [B, 1, Tq, Tk]
  real* m = mask.data();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < query_len; ++i)
      for (int64_t j = 0; j < key_len; ++j) {
        if (!allowed(b, i, j, config)) m[(b * query_len + i) * key_len + j] = minus_infinity;
      }
  return mask;
}

Tensor AttentionMask::band_additive(const AttentionConfig& config, int64_t left, int64_t width) const {
  const real minus_infinity = -std::numeric_limits<real>::infinity();
  Tensor mask = Tensor::zeros({batch, 1, query_len, width});                    // [B, 1, Tq, W]
  real* m = mask.data();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < query_len; ++i)
      for (int64_t w = 0; w < width; ++w) {
        const int64_t j = i - left + w;                                         // the key of column w
        if (j < 0 || j >= key_len || !allowed(b, i, j, config)) m[(b * query_len + i) * width + w] = minus_infinity;
      }
  return mask;
}

AttentionMask make_length_mask(const std::vector<int64_t>& key_lengths, int64_t query_len, int64_t key_len,
                               bool causal) {
  AttentionMask mask;
  mask.batch = static_cast<int64_t>(key_lengths.size());
  mask.query_len = query_len;
  mask.key_len = key_len;
  mask.causal = causal;
  for (int64_t length : key_lengths)
    for (int64_t j = 0; j < key_len; ++j) mask.key_is_real.push_back(j < length ? 1 : 0);
  return mask;
}

Tensor real_keys(const std::vector<uint8_t>& key_is_real, const Shape& shape) {
  Tensor keep = Tensor::zeros(shape);                                           // B · Tk numbers, in `shape`
  for (size_t t = 0; t < key_is_real.size(); ++t) keep.data()[t] = key_is_real[t] ? 1 : 0;
  return keep;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
