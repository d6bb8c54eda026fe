// bench_bf16.cpp — the bfloat16 product against the float32 packed GEMM at the model's shapes (see bench_bf16.h).
#include "lab/bench_bf16.h"

#include <chrono>

#include "lab/bench.h"
#include "tensor/product/bf16_product.h"
#include "tensor/random.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The operands of one shape — x [rows, in], W [out, in], G [rows, out] — and the results of the three products.
struct LayerOperands {
  LayerOperands(const GemmShape& s, Generator& gen) : shape(s), x(s.rows, s.in), W(s.out, s.in), G(s.rows, s.out) {
    for (FloatMatrix* M : {&x, &W, &G})
      for (int64_t i = 0; i < M->size(); ++i) M->data()[i] = static_cast<float>(gen.normal());
    y.setZero(s.rows, s.out);
    dx.setZero(s.rows, s.in);
    dW.setZero(s.out, s.in);
  }

  // C += op(X) · op(Y) by the float32 packed GEMM (packed = true) or the bf16 product on the model's path (tiles or
  // fast).
  static void add(FloatMatrix& C, const FloatMatrix& X, bool tx, const FloatMatrix& Y, bool ty, bool packed) {
    if (packed) {
      add_product(MatrixMap(C.data(), C.rows(), C.cols()), ConstMatrixMap(X.data(), X.rows(), X.cols()), tx,
                  ConstMatrixMap(Y.data(), Y.rows(), Y.cols()), ty, Gemm::packed);
    } else {
      add_bf16_product(FloatMatrixMap(C.data(), C.rows(), C.cols()), ConstFloatMatrixMap(X.data(), X.rows(), X.cols()),
                       tx, ConstFloatMatrixMap(Y.data(), Y.rows(), Y.cols()), ty, fastest_bf16_path());
    }
  }

  double seconds(bool packed) {
    const auto start = std::chrono::steady_clock::now();
    add(y, x, false, W, true, packed);                                  // y += x · Wᵀ
    add(dx, G, false, W, false, packed);                                // ∂x += G · W
    add(dW, G, true, x, false, packed);                                 // ∂W += Gᵀ · x
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  double flops() const { return 3 * 2.0 * static_cast<double>(shape.rows * shape.in * shape.out); }

  GemmShape shape;
  FloatMatrix x, W, G, y, dx, dW;
};

// GFLOP/s per shape and over the step (each shape counted as often as a step runs it), from seconds[s] per repeat.
GemmSpeed speed_of(const std::vector<LayerOperands>& layers, const std::vector<std::vector<double>>& seconds) {
  GemmSpeed speed;
  double total_flops = 0, total_seconds = 0;
  for (size_t s = 0; s < layers.size(); ++s) {
    const double t = median(seconds[s]), count = static_cast<double>(layers[s].shape.count);
    speed.shape_gflops.push_back(layers[s].flops() / t / 1e9);
    total_flops += count * layers[s].flops();
    total_seconds += count * t;
  }
  speed.gflops_per_second = total_flops / total_seconds / 1e9;
  return speed;
}

}  // namespace

Bf16Speed measure_bf16_product(const std::vector<GemmShape>& shapes, int repeats) {
  Bf16Speed result;
  result.support = bf16_support();
  result.measured = bf16_fast_available();
  if (!result.measured) return result;
  Generator gen(13);
  std::vector<LayerOperands> layers;
  for (const GemmShape& shape : shapes) layers.emplace_back(shape, gen);
  std::vector<std::vector<double>> packed(shapes.size()), bf16(shapes.size());   // [shape][repeat]
  for (int repeat = -1; repeat < repeats; ++repeat) {                   // a first, untimed round warms both
    for (size_t s = 0; s < layers.size(); ++s) {
      const double packed_time = layers[s].seconds(true), bf16_time = layers[s].seconds(false);
      if (repeat < 0) continue;
      packed[s].push_back(packed_time);
      bf16[s].push_back(bf16_time);
    }
  }
  result.packed = speed_of(layers, packed);
  result.bf16 = speed_of(layers, bf16);
  return result;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
