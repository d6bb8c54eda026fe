// kernel_gains.cpp — what each fused kernel saves against the chain of ops it replaces (docs/course/03-kernels.md).
//
// For every kernel of src/kernels/kernels.h, at the shapes of the base benchmark model (configs/bench/base.yaml:
// 64 sentences × 32 tokens, d_model 256, 4 heads, d_ff 1024, vocabulary 8000; the window at 4 × 512 tokens), both
// ways of computing the same thing are run forward and backward, and three things are measured for each:
//   graph nodes     the ops recorded between the inputs and the output (each node is a tensor written to memory
//                   and, usually, kept for backward)
//   kept (MiB)      memory held by the graph after forward, until backward frees it: what a training step's peak
//                   is made of (tensor/storage.h counts the live buffers)
//   ms              forward + backward, the median of 9 runs after 2 warm-up runs, on every core
// The two ways give the same numbers (tests/model/test_two_paths.cpp and each kernel's own test); this shows the cost.
//
//   build/release/kernel_gains            prints a Markdown table
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "tensor/storage.h"

using namespace attnlab;

namespace {

struct Cost {
  int64_t nodes = 0;
  double kept_mib = 0;
  double ms = 0;
};

// The ops recorded from the leaves to `output`: every node reachable through inputs that was made by an op.
int64_t graph_nodes(const Tensor& output) {
  std::set<const TensorNode*> seen;
  std::vector<const TensorNode*> todo{output.node_ptr().get()};
  int64_t count = 0;
  while (!todo.empty()) {
    const TensorNode* node = todo.back();
    todo.pop_back();
    if (!seen.insert(node).second || node->inputs.empty()) continue;    // a leaf records no op
    ++count;
    for (const Tensor& input : node->inputs) todo.push_back(input.node_ptr().get());
  }
  return count;
}

// `forward` builds the output from fixed inputs; the loss is Σ output ⊙ R (R fixed), so every output number
// receives a gradient. The two ops of that loss are the same on both paths and are not counted.
Cost measure(const std::function<Tensor()>& forward) {
  Generator gen(3);
  Tensor probe = forward();
  const bool scalar = probe.numel() == 1;
  const Tensor R = scalar ? Tensor() : Tensor::randn(probe.shape(), gen);
  probe = Tensor();
  Cost cost;
  std::vector<double> times;
  for (int run = 0; run < 11; ++run) {
    const int64_t before = storage_counts().live_bytes;
    const auto start = std::chrono::steady_clock::now();
    Tensor out = forward();
    Tensor loss = scalar ? out : sum(mul(out, R));                     // [1]
    const int64_t kept = storage_counts().live_bytes - before;
    if (run == 0) cost.nodes = graph_nodes(out);
    loss.backward();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (run >= 2) times.push_back(ms);
    cost.kept_mib = static_cast<double>(kept) / (1 << 20);
  }
  std::sort(times.begin(), times.end());
  cost.ms = times[times.size() / 2];
  return cost;
}

void row(const char* kernel, const char* chain, const Cost& reference, const Cost& fused) {
  std::printf("| `%s` | %s | %lld → %lld | %.1f → %.1f | %.2f → %.2f | %.2f× |\n", kernel, chain,
              static_cast<long long>(reference.nodes), static_cast<long long>(fused.nodes), reference.kept_mib,
              fused.kept_mib, reference.ms, fused.ms, reference.ms / fused.ms);
}

}  // namespace

int main() {
  constexpr int64_t B = 64, T = 32, d = 256, heads = 4, d_ff = 1024, V = 8000;
  constexpr real p = 0.1;
  Generator gen(1);
  std::printf("kernel_gains: %d threads; each cell is reference → fused\n\n", omp_get_max_threads());
  std::printf("| kernel | the chain it replaces | graph nodes | kept for backward (MiB) | forward + backward (ms) "
              "| speed-up |\n|---|---|---|---|---|---|\n");

  {  // Linear: y = x Wᵀ + b, the FFN's first layer
    Tensor x = Tensor::randn({B, T, d}, gen, 1, true), W = Tensor::randn({d_ff, d}, gen, 0.05, true);
    Tensor b = Tensor::randn({d_ff}, gen, 0.05, true);
    row("linear", "add(matmul(x, W, false, true), b)", measure([&] { return add(matmul(x, W, false, true), b); }),
        measure([&] { return linear(x, W, b); }));
  }
  {  // the output layer and the loss
    Tensor h = Tensor::randn({B, T, d}, gen, 1, true), W = Tensor::randn({V, d}, gen, 0.05, true);
    TokenIds targets{{B, T}, std::vector<int32_t>(static_cast<size_t>(B * T))};
    for (int32_t& t : targets.values) t = static_cast<int32_t>(gen.integer(0, V));
    row("linear_cross_entropy", "cross_entropy(matmul(h, W, false, true), targets, 0.1, pad)",
        measure([&] { return cross_entropy(matmul(h, W, false, true), targets, real(0.1), pad_id); }),
        measure([&] { return linear_cross_entropy(h, W, targets, real(0.1), pad_id); }));
  }
  {  // the residual connection
    Tensor x = Tensor::randn({B, T, d}, gen, 1, true), s = Tensor::randn({B, T, d}, gen, 1, true);
    Generator a(5), f(5);
    row("add_dropout", "add(x, dropout(s, p))", measure([&] { return add(x, dropout(s, p, a)); }),
        measure([&] { return add_dropout(x, s, p, f); }));
  }
  {  // the feed-forward hidden layer
    Tensor h = Tensor::randn({B, T, d_ff}, gen, 1, true);
    Generator a(5), f(5);
    row("relu_dropout", "dropout(relu(h), p)", measure([&] { return dropout(relu(h), p, a); }),
        measure([&] { return relu_dropout(h, p, f); }));
  }
  {  // decoder self-attention: causal, 4 heads, dropout on the weights
    Tensor q = Tensor::randn({B, T, d}, gen, 1, true), k = Tensor::randn({B, T, d}, gen, 1, true);
    Tensor v = Tensor::randn({B, T, d}, gen, 1, true);
    const AttentionMask causal = make_length_mask(std::vector<int64_t>(B, T), T, T, /*causal=*/true);
    const AttentionConfig plain;
    const Tensor hidden = causal.additive(plain);                       // [B, 1, T, T]
    const real s = score_scale(d / heads);
    Generator a(5), f(5);
    row("scaled_dot_attention", "split_heads → matmul → scale → softmax → dropout → matmul → merge_heads",
        measure([&] {
          Tensor weights = softmax(scale(matmul(split_heads(q, heads), split_heads(k, heads), false, true), s),
                                   hidden);                             // [B, h, T, T]
          return merge_heads(matmul(dropout(weights, p, a), split_heads(v, heads)));  // [B, T, d]
        }),
        measure([&] { return scaled_dot_attention(q, k, v, heads, s, hidden, p, &f); }));
  }
  {  // a window [8, 8] over long sentences: 4 sentences × 512 tokens, one head's worth of d_k = 64 × 4 heads
    constexpr int64_t Bw = 4, Tw = 512, left = 8, right = 8;
    Tensor Q = Tensor::randn({Bw, heads, Tw, d / heads}, gen, 1, true);
    Tensor K = Tensor::randn({Bw, heads, Tw, d / heads}, gen, 1, true);
    Tensor Vt = Tensor::randn({Bw, heads, Tw, d / heads}, gen, 1, true);
    AttentionConfig window;
    window.has_window = true;
    window.window_left = left;
    window.window_right = right;
    const AttentionMask all = make_length_mask(std::vector<int64_t>(Bw, Tw), Tw, Tw, /*causal=*/false);
    const Tensor full_mask = all.additive(window);                      // [Bw, 1, Tw, Tw]
    const Tensor band_mask = all.band_additive(window, left, left + right + 1);  // [Bw, 1, Tw, W]
    const real s = score_scale(d / heads);
    Generator a(5), f(5);
    row("band_scores, band_dropout, band_mix", "the full [T, T] chain with the window as a mask (T = 512, W = 17)",
        measure([&] {
          Tensor weights = softmax(scale(matmul(Q, K, false, true), s), full_mask);  // [Bw, h, T, T]
          return matmul(dropout(weights, p, a), Vt);                    // [Bw, h, T, d_k]
        }),
        measure([&] {
          Tensor weights = softmax(scale(band_scores(Q, K, left, right), s), band_mask);  // [Bw, h, T, W]
          return band_mix(band_dropout(weights, left, Tw, p, f), Vt, left);
        }));
  }
  return 0;
}
