// test_cloze.cpp — facts about the cloze readers (attention/reader.h, cloze/cloze_reader.h, cloze/cloze_training.h);
// the corpus itself is tested in test_cloze_corpus.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "attention/reader.h"
#include "autograd/ops.h"
#include "cloze/cloze_reader.h"
#include "cloze/cloze_training.h"
#include "data/synthetic/cloze_question.h"
#include "run/config_io.h"
#include "test_support.h"
#include "train/optimizer.h"
#include "util/error.h"
#include "util/files.h"

using namespace attnlab;

namespace {

// A tiny reader: vocabulary 12, d_model 16, one encoder layer, no dropout.
ModelConfig tiny_reader_config(ReaderKind reader) {
  ModelConfig config = testing::small_model_config(12, 16, 2, 32, 1);
  config.task = Task::cloze;
  config.reader = reader;
  return config;
}

// Two questions of different lengths: the second is padded in both its document and its query.
std::vector<ClozeExample> two_questions() {
  return {{{4, 5, 6, 7, 8, 9, 5}, {10, 6, 11}, 0, 9}, {{6, 7, 4}, {11, 10}, 1, 4}};
}

}  // namespace

TEST_CASE("attention over attention: changing the vectors at padded positions leaves s unchanged") {
  Generator gen(3);
  const ReaderPadding padding{2, 5, 3, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {1, 1, 1, 1, 1, 0}};
  Tensor D = Tensor::randn({2, 5, 4}, gen), Q = Tensor::randn({2, 3, 4}, gen);   // [2, 5, 4], [2, 3, 4]
  AoaMaps maps;
  const Tensor s = attention_over_attention(D, Q, padding, &maps);
  Tensor D2 = D.detach(), Q2 = Q.detach();                 // copies
  for (int64_t k = 0; k < 4; ++k) {
    D2.data()[(5 + 3) * 4 + k] = 100;                  // document 1, position 3 (padding)
    D2.data()[(5 + 4) * 4 + k] = -7;                   // document 1, position 4 (padding)
    Q2.data()[(3 + 2) * 4 + k] = 55;                   // query 1, word 2 (padding)
  }
  const Tensor s2 = attention_over_attention(D2, Q2, padding);
  for (int64_t i = 0; i < s.numel(); ++i) CHECK(s2.data()[i] == doctest::Approx(s.data()[i]).epsilon(1e-6));
  CHECK(s.data()[5 + 3] == 0);                         // padded positions get no attention
  CHECK(s.data()[5 + 4] == 0);
  CHECK(maps.beta_mean.data()[3 + 2] == 0);            // a padded query word gets no weight
  for (int64_t b = 0; b < 2; ++b) {                    // s and β̄ are distributions
    double s_sum = 0, beta_sum = 0;
    for (int64_t i = 0; i < 5; ++i) s_sum += s.data()[b * 5 + i];
    for (int64_t j = 0; j < 3; ++j) beta_sum += maps.beta_mean.data()[b * 3 + j];
    CHECK(s_sum == doctest::Approx(1).epsilon(1e-5));
    CHECK(beta_sum == doctest::Approx(1).epsilon(1e-5));
  }
}

TEST_CASE("both readers: a question padded in a batch gets the same P as the same question alone") {
  for (ReaderKind reader_kind : {ReaderKind::aoa, ReaderKind::as_reader}) {
    INFO(name_of(reader_kind));
    Generator init(5);
    ClozeReader reader(tiny_reader_config(reader_kind), init);
    ForwardContext ctx;
    const std::vector<ClozeExample> questions = two_questions();
    const Tensor together = reader.answer_distribution(make_cloze_batch(questions), ctx);   // [2, 12]
    const Tensor alone = reader.answer_distribution(make_cloze_batch({questions[1]}), ctx);  // [1, 12]
    double total = 0;
    for (int64_t w = 0; w < 12; ++w) {
      CHECK(together.data()[12 + w] == doctest::Approx(alone.data()[w]).epsilon(1e-5));
      total += alone.data()[w];
    }
    CHECK(total == doctest::Approx(1).epsilon(1e-5));
    CHECK(alone.data()[pad_id] == 0);                  // no probability for padding or absent words
    CHECK(alone.data()[9] == 0);
  }
}

TEST_CASE("a tiny attention-over-attention reader learns a few questions: its loss goes down") {
  Generator init(7);
  ClozeReader reader(tiny_reader_config(ReaderKind::aoa), init);
  const ClozeBatch batch = make_cloze_batch(two_questions());
  OptimizerOptions adam;
  Optimizer optimizer(reader.named_parameters(), adam);
  ForwardContext ctx;
  double first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    reader.zero_grad();
    Tensor loss = reader.loss(batch, ctx);
    (step == 0 ? first : last) = loss.item();
    loss.backward();
    optimizer.step(0.01);
  }
  CHECK(last < 0.5 * first);
  CHECK(predicted_answers(reader.answer_distribution(batch, ctx), batch) == std::vector<int32_t>{9, 4});
}

TEST_CASE("cloze accuracy: the answer is the document word of highest P, the first among equals") {
  const ClozeBatch batch = make_cloze_batch({{{4, 5, 6}, {7, 8}, 0, 5}, {{6, 4, 4}, {8, 7}, 1, 4},
                                             {{5, 6}, {8}, 0, 6}});
  Tensor P = Tensor::zeros({3, 9});                    // [3, V = 9]
  P.data()[0 * 9 + 5] = 0.6f;                          // question 0: 5 (right)
  P.data()[0 * 9 + 8] = 0.9f;                          //   (8 is not in the document: ignored)
  P.data()[1 * 9 + 6] = 0.3f;                          // question 1: 6 (wrong; the answer 4 has 0.2)
  P.data()[1 * 9 + 4] = 0.2f;
  P.data()[2 * 9 + 5] = 0.5f;                          // question 2: 5 and 6 tie; 5 comes first (wrong)
  P.data()[2 * 9 + 6] = 0.5f;
  const std::vector<int32_t> predicted = predicted_answers(P, batch);
  CHECK(predicted == std::vector<int32_t>{5, 6, 5});
  CHECK(answer_accuracy(predicted, batch.answer) == doctest::Approx(1.0 / 3));
  CHECK(answer_accuracy({}, {}) == 0);
  CHECK_THROWS_AS(answer_accuracy({1}, {1, 2}), Error);
}

TEST_CASE("attnlab train with model.task: cloze trains a reader; eval scores it; a bad reader name is refused") {
  const std::filesystem::path dir = testing::fresh_directory("test_cloze", "train_and_eval");
  const std::string d = std::string(ATTNLAB_SOURCE_DIR) + "/data/cloze/";   // the shipped corpus
  const std::string config = "data: {train_src: " + d + "train.question, train_tgt: " + d + "train.answer, "
                             "valid_src: " + d + "valid.question, valid_tgt: " + d + "valid.answer, "
                             "test_src: " + d + "test.question, test_tgt: " + d + "test.answer}\n"
                             "tokenizer: {kind: word, shared: true}\n"
                             "model: {task: cloze, reader: aoa, d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1}\n"
                             "train: {max_steps: 4, batch_tokens: 2000, lr: 0.001, schedule: constant, warmup_steps: 0, "
                             "valid_every: 2, threads: 1}\n";
  write_file_atomically((dir / "cloze.yaml").string(), config);
  TrainingObserver quiet;
  const TrainSummary summary = train_cloze({(dir / "cloze.yaml").string(), (dir / "run").string(), {}, false}, quiet);
  CHECK(summary.step == 4);
  CHECK(summary.losses.size() == 4);
  CHECK(is_cloze_run((dir / "run").string()));
  LoadedClozeRun run = load_cloze_run((dir / "run").string());
  const ClozeSplit test = load_cloze_split(run.config, *run.tokenizers.src, "test");
  const ClozeScore score = evaluate_cloze(*run.reader, test);
  CHECK(score.questions == 250);
  CHECK(score.accuracy >= 0);
  CHECK(score.accuracy <= 1);
  CHECK(std::isfinite(score.loss));
  CHECK_THROWS_WITH_AS(parse_config("model: {task: cloze, reader: bidaf}\n", "test"),
                       doctest::Contains("model.reader"), Error);
}

TEST_CASE("a cloze start that fails leaves no run folder behind (no tokenizer files), and --resume says why not") {
  const std::filesystem::path dir = testing::fresh_directory("test_cloze", "failed_start");
  const std::string d = std::string(ATTNLAB_SOURCE_DIR) + "/data/cloze/";
  // The validation questions are missing: found only after the tokenizer was trained and written.
  const std::string config = "data: {train_src: " + d + "train.question, train_tgt: " + d + "train.answer, "
                             "valid_src: " + (dir / "missing.question").string() + ", valid_tgt: " + d +
                             "valid.answer}\n"
                             "tokenizer: {kind: word, shared: true}\n"
                             "model: {task: cloze, reader: aoa, d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1}\n"
                             "train: {max_steps: 2, batch_tokens: 2000, threads: 1}\n";
  write_file_atomically((dir / "cloze.yaml").string(), config);
  TrainingObserver quiet;
  const std::string run = (dir / "run").string();
  CHECK_THROWS_WITH_AS(train_cloze({(dir / "cloze.yaml").string(), run, {}, false}, quiet),
                       doctest::Contains("missing.question"), Error);
  CHECK_FALSE(std::filesystem::exists(run));
  // A folder the user had keeps what it held, and only that.
  std::filesystem::create_directories(run);
  write_file_atomically(run + "/notes.txt", "mine\n");
  CHECK_THROWS_AS(train_cloze({(dir / "cloze.yaml").string(), run, {}, false}, quiet), Error);
  CHECK(std::distance(std::filesystem::directory_iterator(run), std::filesystem::directory_iterator()) == 1);
  // A trained cloze run refuses --resume and says why.
  train_cloze({(dir / "cloze.yaml").string(), (dir / "done").string(), {"data.valid_src=" + d + "valid.question"},
               false},
              quiet);
  CHECK_THROWS_WITH_AS(train_cloze({"", (dir / "done").string(), {}, true}, quiet),
                       doctest::Contains("do not keep the shuffle's state"), Error);
  // The translation loop refuses a reader's config (and its run folder) rather than train something else.
  CHECK_THROWS_WITH_AS(train({(dir / "cloze.yaml").string(), (dir / "other").string(), {}, false}, quiet),
                       doctest::Contains("model.task: cloze"), Error);
  CHECK_FALSE(std::filesystem::exists(dir / "other"));
  CHECK_THROWS_WITH_AS(train({"", (dir / "done").string(), {}, true}, quiet), doctest::Contains("model.task: cloze"),
                       Error);
}
