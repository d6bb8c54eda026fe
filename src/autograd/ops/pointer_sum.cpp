// pointer_sum.cpp — the attention-sum of a pointer reader (Kadlec et al. 2016, "Text Understanding with the
// Attention Sum Reader Network", eq. 3; used as is by attention-over-attention, Cui et al. 2017, eq. 7):
// the probability that word w is the answer is the attention on every document position where w stands.
//
//   forward                                          backward (g = ∂loss/∂P)
//   P[b, w] = Σ_{i : D[b, i] = w} s[b, i]            ∂s[b, i] += g[b, D[b, i]]
//
//   s [B, n]  attention over the document positions (each row sums to 1; padded positions hold 0)
//   D [B, n]  the document's token ids: which word stands at position i
//   P [B, V]  a distribution over the vocabulary (V = vocab), 0 for every word absent from the document
//
// It is a matrix product with one-hot rows, P[b] = s[b] · onehot(D[b]) [n, V], done without building the one-hot
// matrix (as embedding() is). Forward scatter-adds: a word seen three times collects three attentions; backward
// gathers: each position receives the gradient of the word that stands there. The ids are constants: they
// receive no gradient.
#include <string>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor pointer_sum(const Tensor& s, const TokenIds& document, int64_t vocab) {
  if (s.rank() != 2 || document.shape.rank() != 2 || s.size(0) != document.shape[0] ||
      s.size(1) != document.shape[1]) {
    throw Error("pointer_sum: attention s " + s.shape().str() + " and document ids " + document.shape.str() +
                " must both be [batch, n] with the same sizes");
  }
  const int64_t B = s.size(0), n = s.size(1);
  for (int64_t p = 0; p < B * n; ++p) {
    const int32_t id = document.values[static_cast<size_t>(p)];
    if (id < 0 || id >= vocab) {
      throw Error("pointer_sum: id " + std::to_string(id) + " at position " + document.shape.index_of(p) +
                  " of the document " + document.shape.str() + " is outside the vocabulary [0, " +
                  std::to_string(vocab) + ")");
    }
  }
  Tensor P = Tensor::zeros({B, vocab});                                 // [B, V]
  const real* ps = s.data();
  real* pP = P.data();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < n; ++i) pP[b * vocab + document.values[static_cast<size_t>(b * n + i)]] += ps[b * n + i];
  }

  record(P, "pointer_sum", {s}, [s, ids = document.values, B, n, vocab](TensorNode& out) {
    const real* g = out.grad.data();                                    // [B, V]
    real* gs = s.grad();                                                // [B, n]
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t i = 0; i < n; ++i) gs[b * n + i] += g[b * vocab + ids[static_cast<size_t>(b * n + i)]];  // gather
    }
  });
  return P;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
