// test_evaluate.cpp — the attention entropy `attnlab eval` reports is a property of the real tokens: padding a
// sentence into a batch with a longer one does not change it, and every kind lies between 0 (one key) and
// ln(#keys) (uniform). Validation BLEU compares each translation with its own pair's reference text.
// A hard model is evaluated by argmax, expectation (scaled_dot on the same weights) and sample.
#include <doctest/doctest.h>

#include <cmath>

#include "data/batching.h"
#include "data/tokenizers/tokenizer.h"
#include "decode/bleu.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "lab/evaluate.h"
#include "test_support.h"
#include "train/validation.h"

using namespace attnlab;

namespace {

Seq2Seq small_model() {
  Generator init(3);
  return Seq2Seq(testing::small_model_config(12, 16, 2, 32, 2), init);
}

// True when some sentence has at least n words (so that BLEU has 4-grams to count).
bool some_sentence_has_words(const std::vector<std::string>& sentences, size_t n) {
  for (const std::string& s : sentences) {
    if (split_white_space(s).size() >= n) return true;
  }
  return false;
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

TEST_CASE("validation BLEU scores the detokenised greedy translations against each pair's own reference text") {
  TokenizerConfig word;
  word.kind = TokenizerKind::word;
  const std::vector<std::string> text{"a b c d e f", "g h i j k l", "b d f h j l", "c e g i k a"};
  std::unique_ptr<Tokenizer> tokenizer = train_tokenizer(word, text, "");
  Generator init(5);
  Seq2Seq model(testing::small_model_config(tokenizer->vocab_size(), 16, 2, 32, 1), init);
  DecodeConfig decode;
  decode.max_len_ratio = 1;
  decode.max_len_extra = 2;

  // Pairs listed in a different order than the text, as after filtering: pair.index points into the text.
  std::vector<EncodedPair> pairs;
  for (size_t i : {2, 0, 3, 1}) pairs.push_back({tokenizer->encode(text[i]), tokenizer->encode(text[i]), i});
  std::vector<Batch> batches{make_batch(pairs, {0, 1, 2, 3})};
  // The model's own translations, detokenised, as the references (placed at each pair's index).
  std::vector<std::string> own(text.size());
  for (const EncodedPair& pair : pairs) {
    own[pair.index] = tokenizer->decode(translate_ids(model, pad_batch({pair.src}), decode)[0]);
  }
  REQUIRE(some_sentence_has_words(own, 4));
  CHECK(run_validation(model, batches, pairs, 4, decode, tokenizer.get(), &own).bleu == doctest::Approx(100));
  // The same references in the wrong places score less; without a tokenizer there is no BLEU.
  std::vector<std::string> shifted{own[1], own[2], own[3], own[0]};
  CHECK(run_validation(model, batches, pairs, 4, decode, tokenizer.get(), &shifted).bleu < 100);
  CHECK(run_validation(model, batches, pairs, 4, decode).bleu == 0);
}

TEST_CASE("a hard model is evaluated three ways on the same weights; the run is left as it was") {
  for (AttentionKind cross : {AttentionKind::hard, AttentionKind::scaled_dot}) {
    CAPTURE(name_of(cross));
    LoadedRun run;
    const std::vector<std::string> sources{"a happy girl does not go .", "the old offices"},
        references{"une fille heureuse ne va pas .", "les vieux bureaux"};
    std::vector<std::string> text = sources;
    text.insert(text.end(), references.begin(), references.end());
    std::shared_ptr<Tokenizer> tokenizer = train_tokenizer(run.config.tokenizer, text, "");
    run.tokenizers = {tokenizer, tokenizer};
    ModelConfig& m = run.config.model;
    m.d_model = 16, m.heads = 2, m.d_ff = 32, m.encoder_layers = m.decoder_layers = 1;
    m.cross_attention.kind = cross;
    Generator init(7);
    run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), init);
    const Seq2Seq* before = run.model.get();
    const std::vector<HardEvalResult> modes = evaluate_hard_modes(run, sources, references, 1);
    CHECK(run.model.get() == before);                                        // the run's own model, back
    CHECK(run.config.model.cross_attention.hard_eval == HardEval::argmax);
    if (cross != AttentionKind::hard) {
      CHECK(modes.empty());
      continue;
    }
    REQUIRE(modes.size() == 3);
    CHECK(modes[0].mode == HardEval::argmax);
    CHECK(modes[0].result.hypotheses == evaluate(run, sources, references, 1).hypotheses);   // argmax: the run's
    // The expectation is scaled_dot's computation on the same weights: a scaled_dot model loaded with them.
    RunConfig soft_config = run.config;
    soft_config.model.cross_attention.kind = AttentionKind::scaled_dot;
    LoadedRun soft{soft_config, run.tokenizers, std::make_unique<Seq2Seq>(model_config_for(soft_config, run.tokenizers), init), "", 0};
    std::vector<NamedParameter> from = run.model->named_parameters(), to = soft.model->named_parameters();
    REQUIRE(from.size() == to.size());
    for (size_t p = 0; p < from.size(); ++p) std::copy(from[p].tensor.data(), from[p].tensor.data() + from[p].tensor.numel(), to[p].tensor.data());
    const EvalResult expected = evaluate(soft, sources, references, 1);
    const HardEvalResult& expectation = modes[1];
    CHECK(expectation.mode == HardEval::expectation);
    CHECK(expectation.result.hypotheses == expected.hypotheses);
    CHECK(expectation.result.attention_entropy.cross == doctest::Approx(expected.attention_entropy.cross));
    CHECK(modes[2].mode == HardEval::sample);
    CHECK(modes[2].result.attention_entropy.cross > 0.1);                   // untrained: a, not a one-hot row
  }
}
