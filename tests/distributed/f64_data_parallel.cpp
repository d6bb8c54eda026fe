// f64_data_parallel.cpp — the idea of data parallelism (src/distributed/data_parallel.h) as facts, in float64 and in one
// process (tests/distributed/mpi_test.sh runs the real thing under mpirun):
//   * the shards of a batch are its rows, as evenly split as the rows allow, and their token weights add up to 1;
//   * the token-weighted sum of the shards' gradients is the whole batch's gradient, for shards of unequal token
//     counts too — the equation the ranks' all-reduce relies on;
//   * summing gradients over a job of one rank changes none, and gives none to a parameter that had none.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/ops.h"
#include "data/batching.h"
#include "distributed/data_parallel.h"
#include "model/transformer.h"

using namespace attnlab;

namespace {

// Seven pairs of different lengths (ids 4 … 12), so that the shards hold unequal numbers of target tokens.
Batch seven_pairs() {
  std::vector<EncodedPair> pairs;
  Generator generator(5);
  for (size_t i = 0; i < 7; ++i) {
    EncodedPair pair;
    for (int64_t k = 0, n = generator.integer(1, 9); k < n; ++k) pair.src.push_back(int32_t(generator.integer(4, 11)));
    for (int64_t k = 0, n = generator.integer(1, 9); k < n; ++k) pair.tgt.push_back(int32_t(generator.integer(4, 13)));
    pair.index = i;
    pairs.push_back(pair);
  }
  return make_batch(pairs, {0, 1, 2, 3, 4, 5, 6});
}

// One layer each side, d_model 8 in 2 heads, vocabularies 11 → 13, no dropout.
ModelConfig small_model() {
  ModelConfig c;
  c.src_vocab = 11, c.tgt_vocab = 13, c.d_model = 8, c.heads = 2, c.d_ff = 16;
  c.encoder_layers = c.decoder_layers = 1;
  c.dropout = 0;
  return c;
}

// Every parameter's gradient, in parameter order (zeros for none).
std::vector<std::vector<real>> gradients(const Seq2Seq& model) {
  std::vector<std::vector<real>> all;
  for (const NamedParameter& p : model.named_parameters()) {
    all.push_back(p.tensor.has_grad() ? p.tensor.grad_values() : std::vector<real>(size_t(p.tensor.numel()), 0));
  }
  return all;
}

}  // namespace

TEST_CASE("the shards of a batch are its rows, split evenly, and their token weights add up to 1") {
  const Batch batch = seven_pairs();   // B = 7
  for (int ranks : {1, 2, 3, 7, 9}) {
    CAPTURE(ranks);
    double weights = 0;
    int64_t rows = 0, largest = 0, smallest = 1 << 20, src_tokens = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      DataParallel parallel(rank, ranks);
      const Batch& shard = parallel.shard(batch);
      const int64_t b = shard.src.shape[0];
      if (b > 0) {   // its rows are the batch's rows rows … rows + b − 1, with the batch's padding
        CHECK(shard.src.shape[1] == batch.src.shape[1]);
        CHECK(shard.targets.shape[1] == batch.targets.shape[1]);
        const auto L = size_t(batch.targets.shape[1]);
        CHECK(std::equal(shard.targets.values.begin(), shard.targets.values.end(),
                         batch.targets.values.begin() + std::ptrdiff_t(size_t(rows) * L)));
        CHECK(shard.indices.front() == batch.indices[size_t(rows)]);
      }
      rows += b;
      largest = std::max(largest, b);
      smallest = std::min(smallest, b);
      src_tokens += shard.src_tokens;
      weights += DataParallel::shard_weight(shard, batch);
    }
    CHECK(rows == 7);
    CHECK(largest - smallest <= 1);   // 9 ranks for 7 rows: two ranks get none
    CHECK(src_tokens == batch.src_tokens);
    CHECK(weights == doctest::Approx(1).epsilon(1e-15));
  }
}

TEST_CASE("the token-weighted sum of the shards' gradients is the whole batch's gradient") {
  Generator init(3);
  Seq2Seq model(small_model(), init);
  const Batch batch = seven_pairs();
  ForwardContext ctx{/*training=*/true, &init, nullptr};
  const real label_smoothing = 0.1;

  model.zero_grad();
  Tensor whole = model.loss(batch.src, batch.tgt_in, batch.targets, label_smoothing, ctx);   // [1]
  whole.backward();
  const std::vector<std::vector<real>> expected = gradients(model);

  for (int ranks : {2, 3}) {
    CAPTURE(ranks);
    model.zero_grad();   // the ranks' backward passes add up here, as the all-reduce adds them up
    double loss = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      DataParallel parallel(rank, ranks);
      const Batch& shard = parallel.shard(batch);
      const double weight = DataParallel::shard_weight(shard, batch);   // n_r / n
      Tensor shard_loss = model.loss(shard.src, shard.tgt_in, shard.targets, label_smoothing, ctx);
      loss += weight * shard_loss.item();
      scale(shard_loss, real(weight)).backward();
    }
    CHECK(loss == doctest::Approx(whole.item()).epsilon(1e-12));
    const std::vector<std::vector<real>> summed = gradients(model);
    double worst = 0, largest = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      for (size_t j = 0; j < expected[i].size(); ++j) {
        worst = std::max(worst, std::abs(double(summed[i][j] - expected[i][j])));
        largest = std::max(largest, std::abs(double(expected[i][j])));
      }
    }
    CHECK(largest > 1e-3);              // there is a gradient to compare
    CHECK(worst <= 1e-12 * largest);
    // Without the weights (a plain mean of the shards' losses) the gradient is another one: the weights matter.
    model.zero_grad();
    for (int rank = 0; rank < ranks; ++rank) {
      DataParallel parallel(rank, ranks);
      const Batch& shard = parallel.shard(batch);
      scale(model.loss(shard.src, shard.tgt_in, shard.targets, label_smoothing, ctx), real(1.0 / ranks)).backward();
    }
    double unweighted = 0;
    const std::vector<std::vector<real>> mean = gradients(model);
    for (size_t i = 0; i < expected.size(); ++i) {
      for (size_t j = 0; j < expected[i].size(); ++j) {
        unweighted = std::max(unweighted, std::abs(double(mean[i][j] - expected[i][j])));
      }
    }
    CHECK(unweighted > 1e-6 * largest);
  }
}

TEST_CASE("summing gradients over a job of one rank changes none and gives none to a parameter without one") {
  Generator init(3);
  Seq2Seq model(small_model(), init);
  const Batch batch = seven_pairs();
  ForwardContext ctx{/*training=*/true, &init, nullptr};
  model.zero_grad();
  model.loss(batch.src, batch.tgt_in, batch.targets, 0, ctx).backward();
  std::vector<NamedParameter> parameters = model.named_parameters();
  parameters.front().tensor.node().grad.clear();             // one parameter without a gradient
  const std::vector<std::vector<real>> before = gradients(model);
  DataParallel(0, 2).sum_gradients(parameters);              // as rank 0 of 2; this job has one rank: Σ = itself
  CHECK_FALSE(parameters.front().tensor.has_grad());
  CHECK(gradients(model) == before);
}
