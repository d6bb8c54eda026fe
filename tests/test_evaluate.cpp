// test_evaluate.cpp — the attention entropy `attnlab eval` reports is a property of the real tokens: padding a
// sentence into a batch with a longer one does not change it, and every kind lies between 0 (one key) and
// ln(#keys) (uniform).
#include <doctest/doctest.h>

#include <cmath>

#include "data/batching.h"
#include "decode/evaluate.h"

using namespace attnlab;

namespace {

Seq2Seq small_model() {
  ModelConfig c;
  c.src_vocab = 12;
  c.tgt_vocab = 12;
  c.d_model = 16;
  c.heads = 2;
  c.d_ff = 32;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.dropout = 0;
  Generator init(3);
  return Seq2Seq(c, init);
}

}  // namespace

TEST_CASE("attention entropy ignores padding and lies between 0 and ln(#keys)") {
  Seq2Seq model = small_model();
  const EncodedPair short_pair{{4, 5, 6}, {7, 8}, 0};
  const EncodedPair long_pair{{4, 5, 6, 7, 8, 9, 10, 11}, {7, 8, 9, 10, 11, 4, 5}, 1};
  const AttentionEntropy alone = attention_entropy(model, {make_batch({short_pair}, {0})});
  const AttentionEntropy long_alone = attention_entropy(model, {make_batch({long_pair}, {0})});
  // The same two sentences in one padded batch: the rows are the same rows, so the mean is the mean of both
  // sentences' rows (weighted by their row counts), not disturbed by the padding positions.
  const AttentionEntropy together = attention_entropy(model, {make_batch({short_pair, long_pair}, {0, 1})});
  const double encoder_rows_short = 3, encoder_rows_long = 8, decoder_rows_short = 3, decoder_rows_long = 8;
  CHECK(together.encoder == doctest::Approx((alone.encoder * encoder_rows_short + long_alone.encoder * encoder_rows_long) /
                                            (encoder_rows_short + encoder_rows_long)).epsilon(1e-5));
  CHECK(together.decoder == doctest::Approx((alone.decoder * decoder_rows_short + long_alone.decoder * decoder_rows_long) /
                                            (decoder_rows_short + decoder_rows_long)).epsilon(1e-5));
  CHECK(together.cross == doctest::Approx((alone.cross * decoder_rows_short + long_alone.cross * decoder_rows_long) /
                                          (decoder_rows_short + decoder_rows_long)).epsilon(1e-5));
  // Bounds: 3 source tokens → at most ln 3 for encoder and cross rows; the decoder's causal rows see 1…3 keys.
  CHECK(alone.encoder > 0);
  CHECK(alone.encoder <= std::log(3.0) + 1e-6);
  CHECK(alone.cross <= std::log(3.0) + 1e-6);
  CHECK(alone.decoder >= 0);
  CHECK(alone.decoder <= (std::log(1.0) + std::log(2.0) + std::log(3.0)) / 3 + 1e-6);
}
