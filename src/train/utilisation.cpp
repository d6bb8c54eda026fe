// utilisation.cpp — the analytic FLOPs of a forward pass, the measured GEMM peak, and the MFU (utilisation.h).
#include "train/utilisation.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "tensor/product/product.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

double forward_flops(const ModelConfig& m, int64_t B, int64_t S, int64_t T) {
  const bool decoder_only = m.task == Task::language_model;                 // no encoder, no cross-attention
  const double d = static_cast<double>(m.d_model), d_ff = static_cast<double>(m.d_ff);
  const double b = static_cast<double>(B), s = decoder_only ? 0.0 : static_cast<double>(S);
  const double t = static_cast<double>(T);
  const double encoder_layer = b * s * (8 * d * d + 4 * s * d + 4 * d * d_ff);
  const double self_and_ffn = b * t * (8 * d * d + 4 * t * d + 4 * d * d_ff);
  const double cross = decoder_only ? 0.0 : b * t * 4 * d * d + b * s * 4 * d * d + b * t * 4 * s * d;
  const double output = b * t * 2 * d * static_cast<double>(m.tgt_vocab);
  const double encoder_layers = decoder_only ? 0.0 : static_cast<double>(m.encoder_layers);
  return encoder_layers * encoder_layer + static_cast<double>(m.decoder_layers) * (self_and_ffn + cross) + output;
}

double measure_gemm_gflops(int64_t n, int repeats, Precision precision) {
  using Clock = std::chrono::steady_clock;
  NoGradGuard no_grad;
  Generator gen(7);
  Tensor a = Tensor::randn(Shape{n, n}, gen);            // [n, n]
  Tensor b = Tensor::randn(Shape{n, n}, gen);            // [n, n]
  Tensor c = Tensor::zeros(Shape{n, n});                 // [n, n]
  auto product = [&] {                                   // c = a · b, in the format asked for
    if (precision == Precision::float32) {
      c = matmul(a, b);
    } else {
      add_product(c.matrix(), std::as_const(a).matrix(), false, std::as_const(b).matrix(), false, Gemm::packed,
                  precision);
    }
  };
  product();                                             // warm-up: scratch buffers grow, threads start
  std::vector<double> seconds;
  for (int repeat = 0; repeat < std::max(1, repeats); ++repeat) {
    const auto start = Clock::now();
    product();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  return flops / seconds[seconds.size() / 2] / 1e9;
}

double Utilisation::mfu() const {
  if (peak_gflops <= 0 || step_seconds <= 0 || flops <= 0) return 0;
  return flops / step_seconds / (peak_gflops * 1e9 * std::max(1, ranks));
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
