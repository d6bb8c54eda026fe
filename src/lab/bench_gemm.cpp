// bench_gemm.cpp — each product backend at the model's shapes (see bench_gemm.h).
#include "lab/bench_gemm.h"

#include <algorithm>
#include <chrono>

#include "lab/bench.h"
#include "tensor/random.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GemmShape> model_gemm_shapes(const ModelConfig& m, int64_t B, int64_t T) {
  const int64_t rows = B * T, V = m.tgt_vocab;
  // kernels/linear_cross_entropy.cpp: about 4 M logits per chunk of rows
  const int64_t chunk = std::min(rows, std::max<int64_t>(16, (int64_t(1) << 22) / std::max<int64_t>(V, 1)));
  return {
      {"d->d", rows, m.d_model, m.d_model, 4 * m.encoder_layers + 8 * m.decoder_layers},
      {"d->d_ff", rows, m.d_model, m.d_ff, m.encoder_layers + m.decoder_layers},
      {"d_ff->d", rows, m.d_ff, m.d_model, m.encoder_layers + m.decoder_layers},
      {"d->V", chunk, m.d_model, V, (rows + chunk - 1) / chunk},
  };
}

namespace {

// The operands of one shape, random numbers, and the three products of a Linear layer on them.
struct LayerProducts {
  explicit LayerProducts(const GemmShape& s, Generator& gen)
      : shape(s), x(Tensor::randn({s.rows, s.in}, gen)), W(Tensor::randn({s.out, s.in}, gen)),
        G(Tensor::randn({s.rows, s.out}, gen)), y(Tensor::zeros({s.rows, s.out})), dx(Tensor::zeros({s.rows, s.in})),
        dW(Tensor::zeros({s.out, s.in})) {}

  double seconds(Gemm gemm) {
    const auto start = std::chrono::steady_clock::now();
    const int64_t n = shape.rows, in = shape.in, out = shape.out;
    add_product(MatrixMap(y.data(), n, out), ConstMatrixMap(x.data(), n, in), false,      // y += x · Wᵀ
                ConstMatrixMap(W.data(), out, in), true, gemm);
    add_product(MatrixMap(dx.data(), n, in), ConstMatrixMap(G.data(), n, out), false,     // ∂x += G · W
                ConstMatrixMap(W.data(), out, in), false, gemm);
    add_product(MatrixMap(dW.data(), out, in), ConstMatrixMap(G.data(), n, out), true,    // ∂W += Gᵀ · x
                ConstMatrixMap(x.data(), n, in), false, gemm);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  double flops() const { return 3 * 2.0 * static_cast<double>(shape.rows * shape.in * shape.out); }

  GemmShape shape;
  Tensor x, W, G, y, dx, dW;   // [rows, in], [out, in], [rows, out], and the three results
};

}  // namespace

std::vector<GemmSpeed> measure_gemm_backends(const std::vector<GemmShape>& shapes, int repeats) {
  const std::vector<Gemm> backends = built_gemms();
  Generator gen(11);
  std::vector<LayerProducts> layers;
  for (const GemmShape& shape : shapes) layers.emplace_back(shape, gen);
  // seconds[b][s]: backend b's times for shape s, one per repeat; a first, untimed round warms every backend
  std::vector<std::vector<std::vector<double>>> seconds(backends.size(), std::vector<std::vector<double>>(shapes.size()));
  for (int repeat = -1; repeat < repeats; ++repeat) {
    for (size_t b = 0; b < backends.size(); ++b) {
      for (size_t s = 0; s < layers.size(); ++s) {
        const double t = layers[s].seconds(backends[b]);
        if (repeat >= 0) seconds[b][s].push_back(t);
      }
    }
  }
  std::vector<GemmSpeed> speeds;
  for (size_t b = 0; b < backends.size(); ++b) {
    GemmSpeed speed;
    speed.gemm = backends[b];
    double total_flops = 0, total_seconds = 0;
    for (size_t s = 0; s < layers.size(); ++s) {
      const double t = median(seconds[b][s]), count = static_cast<double>(shapes[s].count);
      speed.shape_gflops.push_back(layers[s].flops() / t / 1e9);
      total_flops += count * layers[s].flops();
      total_seconds += count * t;
    }
    speed.gflops_per_second = total_flops / total_seconds / 1e9;
    speeds.push_back(speed);
  }
  return speeds;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
