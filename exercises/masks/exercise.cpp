// Exercise masks (chapter model): the attention masks of a batch — padding, and causal for the decoder.
//
// Sentences in a batch have different lengths, so the shorter ones are padded with pad_id (0) up to the
// longest. A query must not attend to padding: it is not a word. And in the decoder, position i predicts token
// i + 1, so it must not see the tokens after i — or training would teach it to copy the answer (causal mask).
//
//   query i of sentence b may see key j  ⇔  keys[b, j] ≠ pad_id  and  (not causal  or  j ≤ i)
//
// Attention adds the mask to the scores before the softmax: 0 where the key may be seen, −∞ where it may not,
// so that e^(score − ∞) = 0 and the key gets weight exactly 0. Write −∞ itself,
// -std::numeric_limits<real>::infinity() (from <limits>), as the library does (src/attention/mask.cpp).
// A large negative number such as −1e9 gives weight 0 too (e^(−1e9) underflows to 0), and the check accepts it
// with a note; where −∞ matters is a query that sees no key at all (an empty sentence, a padded query whose
// window holds only padding): softmax (src/autograd/ops/softmax.cpp) finds that row's max is −∞ and gives it
// weights 0 and no gradient, where with −1e9 the row would quietly average the hidden keys. The fused kernel and
// the KV cache test for −∞ the same way, and the library's masks are compared exactly, −∞ to −∞.
// The three masks of the Transformer (src/model/masks.h):
//   encoder self-attention   keys = the source, Tq = Tk,  not causal
//   decoder self-attention   keys = the target, Tq = Tk,  causal
//   cross-attention          keys = the source, Tq = the target's length,  not causal
//
// Shapes: keys.shape is [B, Tk] and keys.values holds its ids row-major (keys.values[b * Tk + j]). The result is
// [B, 1, Tq, Tk] — the 1 is the heads axis, which softmax broadcasts over — and element (b, 0, i, j) is at
// mask.data()[(b * Tq + i) * Tk + j].
//
// Check:  tools/exercise.sh masks
//   compares your mask with the library's make_padding_mask(keys, Tq, causal).additive(…)
//   (src/model/masks.cpp builds which keys are real, src/attention/mask.cpp turns that into 0 and −∞).
#include <limits>

#include "exercise.h"

namespace attnlab::exercises {

Tensor attention_mask(const TokenIds& keys, int64_t query_len, bool causal) {
  const int64_t B = keys.shape[0], Tk = keys.shape[1];
  Tensor mask = Tensor::zeros({B, 1, query_len, Tk});                // [B, 1, Tq, Tk], all visible so far
  // TODO: −∞ for every key that query i of sentence b may not see.
  return mask;
}

}  // namespace attnlab::exercises
