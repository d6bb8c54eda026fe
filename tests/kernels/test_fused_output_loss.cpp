// The output layer and the loss as one op (linear_cross_entropy, src/autograd/ops/cross_entropy.cpp) against
// the two ops it replaces, and Seq2Seq::loss against cross_entropy(forward(…)).
#include <doctest/doctest.h>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "model/transformer.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// Every number of a and b agrees to float rounding (relative 1e-4 with an absolute floor for tiny values).
void require_close(const real* a, const real* b, int64_t n, const char* what) {
  for (int64_t i = 0; i < n; ++i) {
    INFO(what, " element ", i);
    REQUIRE(double(a[i]) == doctest::Approx(double(b[i])).epsilon(1e-4).scale(1e-3));
  }
}

}  // namespace

TEST_CASE("linear_cross_entropy gives cross_entropy(h · Wᵀ)'s loss and gradients, across chunks, with padding, "
          "label smoothing and a scaled loss") {
  // V = 200000 makes a chunk 20 rows (2^22 logits), so 3 × 15 = 45 positions take three chunks, the last partial.
  Generator gen(21);
  const int64_t B = 3, T = 15, d = 8, V = 200000;
  TokenIds targets{{B, T}, {}};
  for (int64_t i = 0; i < B * T; ++i) targets.values.push_back(i % 7 == 3 ? 0 : static_cast<int32_t>((i * 7919) % V));
  for (real smoothing : {real(0), real(0.1)}) {
    INFO("label smoothing ", smoothing);
    Tensor h = Tensor::randn({B, T, d}, gen).set_requires_grad(true);                  // [B, T, d]
    Tensor w = Tensor::randn({V, d}, gen, real(0.5)).set_requires_grad(true);          // [V, d]
    Tensor h2 = h.detach().set_requires_grad(true), w2 = w.detach().set_requires_grad(true);
    Tensor fused = linear_cross_entropy(h, w, targets, smoothing, 0);                  // [1]
    Tensor reference = cross_entropy(matmul(h2, w2, false, true), targets, smoothing, 0);  // [1]
    REQUIRE(fused.item() == doctest::Approx(reference.item()).epsilon(1e-5));
    scale(fused, real(0.25)).backward();                                 // g = 0.25, as with 4 accumulated batches
    scale(reference, real(0.25)).backward();
    require_close(h.grad(), h2.grad(), h.numel(), "dL/dh");
    require_close(w.grad(), w2.grad(), w.numel(), "dL/dW");
  }
}

TEST_CASE("linear_cross_entropy with every position ignored is 0 with zero gradients, and refuses bad shapes") {
  Generator gen(22);
  Tensor h = Tensor::randn({2, 3, 4}, gen).set_requires_grad(true);
  Tensor w = Tensor::randn({5, 4}, gen).set_requires_grad(true);
  Tensor loss = linear_cross_entropy(h, w, TokenIds{{2, 3}, {0, 0, 0, 0, 0, 0}}, real(0.1), 0);
  CHECK(loss.item() == 0);
  loss.backward();
  for (int64_t i = 0; i < h.numel(); ++i) REQUIRE(h.grad()[i] == 0);
  for (int64_t i = 0; i < w.numel(); ++i) REQUIRE(w.grad()[i] == 0);
  CHECK_THROWS_WITH_AS(linear_cross_entropy(h, Tensor::zeros({5, 3}), TokenIds{{2, 3}, {1, 1, 1, 1, 1, 1}}, 0, 0),
                       doctest::Contains("weight [5, 3]"), Error);
  CHECK_THROWS_WITH_AS(linear_cross_entropy(h, w, TokenIds{{3, 2}, {1, 1, 1, 1, 1, 1}}, 0, 0),
                       doctest::Contains("targets"), Error);
  CHECK_THROWS_WITH_AS(linear_cross_entropy(h, w, TokenIds{{2, 3}, {1, 1, 9, 1, 1, 1}}, 0, 0),
                       doctest::Contains("target 9"), Error);
}

TEST_CASE("Seq2Seq::loss equals cross_entropy of Seq2Seq::forward's logits, with the same parameter gradients") {
  ModelConfig config;
  config.src_vocab = 23;
  config.tgt_vocab = 29;
  config.d_model = 16;
  config.heads = 2;
  config.d_ff = 32;
  config.encoder_layers = 1;
  config.decoder_layers = 2;
  config.dropout = 0;
  Generator init(5);
  Seq2Seq model(config, init);
  const TokenIds src{{2, 4}, {5, 6, 7, 0, 8, 9, 10, 11}};
  const TokenIds tgt_in{{2, 3}, {1, 12, 13, 1, 14, 0}};
  const TokenIds targets{{2, 3}, {12, 13, 2, 14, 2, 0}};
  ForwardContext ctx;
  Tensor loss = model.loss(src, tgt_in, targets, real(0.1), ctx);
  loss.backward();
  std::vector<std::vector<real>> fused_grads;
  for (const NamedParameter& p : model.named_parameters()) fused_grads.push_back(p.tensor.grad_values());
  model.zero_grad();
  Tensor reference = cross_entropy(model.forward(src, tgt_in, ctx), targets, real(0.1), 0);
  reference.backward();
  CHECK(loss.item() == doctest::Approx(reference.item()).epsilon(1e-5));
  size_t i = 0;
  for (const NamedParameter& p : model.named_parameters()) {
    INFO("parameter ", p.name);
    REQUIRE(p.tensor.grad_values().size() == fused_grads[i].size());
    require_close(fused_grads[i].data(), p.tensor.grad_values().data(), p.tensor.numel(), p.name.c_str());
    ++i;
  }
}
