// test_storage.cpp — tensors' memory is reused (src/tensor/storage.h): once warm, a training step of the
// Transformer allocates no tensor buffer, and a reused buffer holds exactly the numbers asked for.
#include <doctest/doctest.h>

#include "autograd/ops.h"
#include "model/transformer.h"
#include "tensor/storage.h"
#include "train/optimizer.h"

using namespace attnlab;

TEST_CASE("a reused buffer is filled like a fresh one") {
  trim_storage();  // an empty pool, whatever the tests before this one (in the same process) left in it
  { Tensor first = Tensor::full({3000}, 7); }  // dies: its buffer goes to the pool
  const StorageCounts before = storage_counts();
  Tensor second = Tensor::zeros({2900});  // same size class (2816 … 3072)
  CHECK(storage_counts().reused == before.reused + 1);
  for (real v : second.values()) REQUIRE(v == 0);
  CHECK(second.numel() == 2900);
}

TEST_CASE("trim_storage gives every pooled buffer back, and the next buffer is fresh") {
  { Tensor first = Tensor::full({5000}, 1); }  // dies: its buffer goes to the pool
  CHECK(storage_counts().pooled_bytes > 0);
  trim_storage();
  CHECK(storage_counts().pooled_bytes == 0);
  const StorageCounts before = storage_counts();
  Tensor second = Tensor::full({5000}, 2);  // the pool is empty: a fresh buffer
  CHECK(storage_counts().fresh == before.fresh + 1);
  CHECK(storage_counts().reused == before.reused);
  for (real v : second.values()) REQUIRE(v == 2);
}

// recycle_storage() hands the pool to malloc's heap, where the memory stays the process's: a buffer of another
// size taken afterwards is carved out of it, with no page faults (the figure the change was made for: 12 µs a
// page on the benchmark VM). trim_storage() gives it back to the system, and the same buffer faults every page.
// (Not under AddressSanitizer, whose allocator is its own: GCC says it is on with __SANITIZE_ADDRESS__, clang 14 only
// through __has_feature.)
#if defined(__SANITIZE_ADDRESS__)
#define STORAGE_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STORAGE_TEST_UNDER_ASAN 1
#endif
#endif
#if !defined(STORAGE_TEST_UNDER_ASAN)
#include <sys/resource.h>

static long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

TEST_CASE("after recycle_storage a buffer of another size reuses the process's memory; after trim_storage it faults") {
  const int64_t big = 2 << 20, other = 3 << 19;  // 8 MiB, then 6 MiB of floats
  { Tensor first = Tensor::full({big}, 1); }     // touched, then pooled
  recycle_storage();
  long before = minor_faults();
  { Tensor second = Tensor::full({other}, 2); }  // another size class: from the heap
  const long after_recycle = minor_faults() - before;
  trim_storage();
  before = minor_faults();
  { Tensor third = Tensor::full({other}, 3); }  // the heap was given back: fresh pages
  const long after_trim = minor_faults() - before;
  const long pages = other * static_cast<long>(sizeof(real)) / 4096;
  INFO("minor faults: ", after_recycle, " after recycle_storage, ", after_trim, " after trim_storage, of ", pages,
       " pages");
  CHECK(after_recycle < pages / 10);
  CHECK(after_trim > pages / 2);
  trim_storage();  // leave no 6 MiB buffer in the pool: it would take the budget of the tests after this one
}
#endif

// Trains steps 1 and 2 (warming the pool), then 3 to 5, and checks that 3 to 5 allocated no pooled-size buffer.
// fused_loss: the trainer's Seq2Seq::loss (output layer and loss in one op), or forward + cross_entropy.
static void check_warm_steps_allocate_nothing(bool fused_loss) {
  ModelConfig config;
  config.src_vocab = config.tgt_vocab = 40;
  config.d_model = 32;
  config.heads = 4;
  config.d_ff = 64;
  config.encoder_layers = config.decoder_layers = 1;
  config.dropout = 0.1;
  Generator init(1), dropout_generator(2), data(3);
  Seq2Seq model(config, init);
  std::vector<NamedParameter> parameters = model.named_parameters();
  Optimizer optimizer(parameters, OptimizerOptions{});
  const int64_t B = 8, T = 12;
  TokenIds src{{B, T}, {}}, tgt_in{{B, T}, {}}, targets{{B, T}, {}};
  for (int64_t i = 0; i < B * T; ++i) {
    src.values.push_back(static_cast<int32_t>(data.integer(4, 40)));
    tgt_in.values.push_back(static_cast<int32_t>(data.integer(4, 40)));
    targets.values.push_back(static_cast<int32_t>(data.integer(4, 40)));
  }
  auto step = [&] {
    model.zero_grad();
    ForwardContext ctx{/*training=*/true, &dropout_generator, /*recorder=*/nullptr};
    Tensor loss = fused_loss ? model.loss(src, tgt_in, targets, real(0.1), ctx)  // [1]
                             : cross_entropy(model.forward(src, tgt_in, ctx), targets, real(0.1), pad_id);
    loss.backward();
    optimizer.step(1e-3);
  };
  step();
  step();
  const StorageCounts warm = storage_counts();
  for (int i = 0; i < 3; ++i) step();
  const StorageCounts after = storage_counts();
  CHECK(after.fresh == warm.fresh);   // nothing new from the system
  CHECK(after.reused > warm.reused);  // and the pool was really used
}

TEST_CASE("training steps 3 to 5 of a Transformer take every pooled-size tensor buffer from the pool, none fresh") {
  SUBCASE("the trainer's Seq2Seq::loss: output layer and loss fused") {
    check_warm_steps_allocate_nothing(true);
  }
  SUBCASE("forward to [B, T, V] logits, then cross_entropy") {
    check_warm_steps_allocate_nothing(false);
  }
}
