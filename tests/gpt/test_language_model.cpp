// test_language_model.cpp — a decoder-only model on one text (gpt/language_model.h): the text's blocks and the
// shift by one, the config's keys, sampling (temperature, top-k, top-p, the seed), training, loading and the
// errors of generate. Whether a trained model writes the toy grammar takes minutes of training: tools/lm_grammar.sh.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "data/corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "gpt/language_model.h"
#include "run/config_io.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::testing;

namespace {

class Quiet : public TrainingObserver {};

// A language model's config on `train` (and `valid`), with `extra` lines appended under train: and model:.
std::string write_config(const std::string& dir, const std::string& train, const std::string& valid,
                         const std::string& model_keys, const std::string& train_keys) {
  std::ofstream config(dir + "/lm.yaml");
  config << "data:\n  train_text: " << train << "\n" << (valid.empty() ? "" : "  valid_text: " + valid + "\n")
         << "  max_len: 32\ntokenizer:\n  kind: word\nmodel:\n  task: language_model\n" << model_keys
         << "train:\n  threads: 1\n  seed: 1\n  warmup_steps: 20\n  valid_every: 1000\n" << train_keys;
  return dir + "/lm.yaml";
}

std::string source(const std::string& path) { return std::string(ATTNLAB_SOURCE_DIR) + "/" + path; }

}  // namespace

TEST_CASE("a text becomes bos d eos documents in one stream, cut into blocks that overlap by one token") {
  const std::string dir = fresh_directory("test-language-model", "blocks").string();
  std::ofstream(dir + "/text") << "a b c\nd e\n";
  TokenizerConfig word;
  word.kind = TokenizerKind::word;
  const std::unique_ptr<Tokenizer> tokenizer = train_tokenizer(word, {"a b c", "d e"}, dir + "/tok");
  const TextBlocks text = text_blocks({"a b c", "", "d e"}, *tokenizer, 3, "the text");
  CHECK(text.documents == 2);                                        // the empty line is no document
  CHECK(text.tokens == 9);                                           // bos a b c eos bos d e eos
  REQUIRE(text.blocks.size() == 3);                                  // s0..s3, s3..s6, s6..s8
  CHECK(text.blocks[0].front() == bos_id);
  CHECK(text.blocks[0].back() == text.blocks[1].front());           // overlap by one
  CHECK(text.blocks[2].size() == 3);                                 // the last one shorter
  std::vector<int32_t> tokens, targets;
  shift_by_one(text.blocks[0], tokens, targets);
  CHECK(tokens == std::vector<int32_t>(text.blocks[0].begin(), text.blocks[0].end() - 1));
  CHECK(targets == std::vector<int32_t>(text.blocks[0].begin() + 1, text.blocks[0].end()));
  const TextBatch batch = text_batch(text, {0, 1, 2}, 0, 3);
  CHECK(batch.tokens.shape == Shape{3, 3});
  CHECK(batch.real_targets == 8);                                    // every token but the first, once
  CHECK(batch.targets.values.back() == pad_id);                      // the short block padded
  CHECK_THROWS_WITH_AS(text_blocks({"", ""}, *tokenizer, 3, "empty.txt"), doctest::Contains("empty.txt"), Error);
}

TEST_CASE("the config's text keys: each task refuses the other's data keys, naming them") {
  const std::string dir = fresh_directory("test-language-model", "config").string();
  const std::string lm = write_config(dir, "x.txt", "", "", "");
  CHECK(load_config(lm).model.task == Task::language_model);
  CHECK_THROWS_WITH_AS(load_config(lm, {"data.train_src=a.en", "data.train_tgt=a.fr"}),
                       doctest::Contains("data.train_text"), Error);
  CHECK_THROWS_WITH_AS(load_config(lm, {"model.task=translation"}), doctest::Contains("data.train_text"), Error);
  CHECK_THROWS_WITH_AS(load_config(lm, {"data.train_text="}), doctest::Contains("needs data.train_text"), Error);
  CHECK_THROWS_WITH_AS(load_config(lm, {"tokenizer.shared=false"}), doctest::Contains("tokenizer.shared"), Error);
  CHECK(load_config(source("configs/toy-en-lm.yaml")).model.task == Task::language_model);   // the shipped one
}

TEST_CASE("sampling: temperature 0 is argmax, top-k 1 too; a seed repeats the draws; bad settings are refused") {
  const std::vector<real> z{0, 0, 0, 1.0f, 3.0f, 2.5f, -1.0f};           // pad, bos, eos, then four tokens
  Generator g(1);
  CHECK(sample_next_token(z.data(), 7, {0.0, 0, 1.0}, g) == 4);
  int kept_to_one = 0;                                                 // top-1: only the likeliest, however hot
  for (int i = 0; i < 200; ++i) kept_to_one += sample_next_token(z.data(), 7, {5.0, 1, 1.0}, g) == 4;
  CHECK(kept_to_one == 200);
  std::map<int32_t, int> counts;
  Generator a(7);
  for (int i = 0; i < 2000; ++i) ++counts[sample_next_token(z.data(), 7, {1.0, 2, 1.0}, a)];
  CHECK(counts.size() == 2);                                           // top-2: tokens 4 and 5 only
  CHECK(counts[4] > counts[5]);
  CHECK(counts[5] > 400);                                              // p(5) = 1 / (1 + e^0.5) ≈ 0.38
  std::map<int32_t, int> nucleus;
  for (int i = 0; i < 500; ++i) ++nucleus[sample_next_token(z.data(), 7, {1.0, 0, 0.5}, a)];
  CHECK(nucleus.size() == 1);                                          // p(4) ≈ 0.55 ≥ 0.5 alone
  std::vector<int32_t> first, second;
  Generator s1(42), s2(42);
  for (int i = 0; i < 50; ++i) first.push_back(sample_next_token(z.data(), 7, {1.5, 0, 0.9}, s1));
  for (int i = 0; i < 50; ++i) second.push_back(sample_next_token(z.data(), 7, {1.5, 0, 0.9}, s2));
  CHECK(first == second);
  CHECK_THROWS_WITH_AS(check_sampling({-0.5, 0, 1.0}), doctest::Contains("--temperature"), Error);
  CHECK_THROWS_WITH_AS(check_sampling({1.0, -1, 1.0}), doctest::Contains("--top-k"), Error);
  CHECK_THROWS_WITH_AS(check_sampling({1.0, 0, 0.0}), doctest::Contains("--top-p"), Error);
  CHECK_THROWS_WITH_AS(check_sampling({1.0, 0, 1.5}), doctest::Contains("--top-p"), Error);
}

TEST_CASE("the next token's distribution: softmax(z / τ) over what top-k and top-p keep, likeliest first, sums to 1") {
  const std::vector<real> z{0, 0, 0, 1.0f, 3.0f, 2.5f, -1.0f};           // pad, bos, eos, then four tokens
  const auto total = [](const std::vector<TokenProbability>& kept) {
    double sum = 0;
    for (const TokenProbability& t : kept) sum += t.p;
    return sum;
  };
  const std::vector<TokenProbability> greedy = next_token_distribution(z.data(), 7, {0.0, 0, 1.0});
  REQUIRE(greedy.size() == 1);                                         // τ = 0: the argmax alone
  CHECK(greedy[0].token == 4);
  CHECK(greedy[0].p == 1.0);
  const std::vector<TokenProbability> all = next_token_distribution(z.data(), 7, {1.0, 0, 1.0});
  REQUIRE(all.size() == 5);                                            // every token but pad and bos (eos may come)
  CHECK(all[0].token == 4);
  CHECK(all[1].token == 5);
  const double e = std::exp(1.0);                                      // p(4) / p(5) = e^(3 − 2.5) at τ = 1
  CHECK(all[0].p / all[1].p == doctest::Approx(std::sqrt(e)));
  CHECK(total(all) == doctest::Approx(1.0));
  const std::vector<TokenProbability> cold = next_token_distribution(z.data(), 7, {0.5, 0, 1.0});
  const std::vector<TokenProbability> hot = next_token_distribution(z.data(), 7, {2.0, 0, 1.0});
  CHECK(cold[0].p / cold[1].p == doctest::Approx(e));                  // τ = 0.5: the ratio squared
  CHECK(hot[0].p / hot[1].p == doctest::Approx(std::pow(e, 0.25)));    // τ = 2: its square root
  CHECK(cold[0].p > all[0].p);
  CHECK(all[0].p > hot[0].p);
  const std::vector<TokenProbability> top3 = next_token_distribution(z.data(), 7, {1.0, 3, 1.0});
  REQUIRE(top3.size() == 3);
  CHECK(total(top3) == doctest::Approx(1.0));                          // renormalised after the cut
  CHECK(top3[0].p / top3[1].p == doctest::Approx(all[0].p / all[1].p));
  CHECK(next_token_distribution(z.data(), 7, {1.0, 0, 0.5}).size() == 1);   // p(4) ≈ 0.55 ≥ 0.5 alone
}

TEST_CASE("a language model trains on the toy English, and generate refuses what it cannot continue") {
  const std::string dir = fresh_directory("test-language-model", "train").string();
  const std::string config = write_config(dir, source("data/toy-en-fr/valid.en"), source("data/toy-en-fr/test.en"),
                                          "  d_model: 32\n  heads: 2\n  d_ff: 64\n  decoder_layers: 1\n",
                                          "  batch_tokens: 512\n  max_steps: 40\n  lr: 0.003\n  schedule: constant\n");
  Quiet quiet;
  const TrainSummary summary = train_language_model({config, dir + "/run", {}, false}, quiet);
  CHECK(summary.step == 40);
  CHECK(summary.losses.back() < 0.7 * summary.losses.front());
  CHECK(summary.validation.perplexity > 1);
  CHECK(summary.validation.perplexity < 60);                         // from ~150 words at random
  CHECK(read_bytes(dir + "/run/metrics.jsonl").find("\"perplexity\"") != std::string::npos);

  const LoadedLanguageModel run = load_language_model(dir + "/run");
  CHECK(generate_text(run, "the", 20, {1.0, 0, 1.0}, 3) == generate_text(run, "the", 20, {1.0, 0, 1.0}, 3));
  CHECK(generate_text(run, "the", 20, {0.0, 0, 1.0}, 1) == generate_text(run, "the", 20, {0.0, 0, 1.0}, 2));
  CHECK_THROWS_WITH_AS(generate_text(run, "xylophone zebra", 5, {}, 1), doctest::Contains("no token this model knows"),
                       Error);
  CHECK_THROWS_WITH_AS(generate_text(run, "the", 5, {-1.0, 0, 1.0}, 1), doctest::Contains("--temperature"), Error);
  std::string runaway;                                                 // a prompt longer than generate reads
  for (int i = 0; i < 5000; ++i) runaway += "the ";
  CHECK_THROWS_WITH_AS(generate_text(run, runaway, 5, {}, 1), doctest::Contains("4096 positions"), Error);
  CHECK_THROWS_WITH_AS(train_language_model({"", dir + "/run", {}, true}, quiet), doctest::Contains("--resume"), Error);

  std::filesystem::create_directories(dir + "/translation");          // a translation run: its config says so
  std::ofstream(dir + "/translation/config.yaml") << "data:\n  train_src: a.en\n  train_tgt: a.fr\n";
  CHECK_THROWS_WITH_AS(load_language_model(dir + "/translation"), doctest::Contains("attnlab translate"), Error);
}

