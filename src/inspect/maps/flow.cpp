// flow.cpp — attention rollout, value-weighted norms and gradient attribution (the equations are in flow.h).
#include "inspect/maps/flow.h"

#include <cmath>
#include <string>

#include "autograd/graph.h"
#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A dense row-major matrix of doubles, just big enough for the rollout's products.
struct ShareMatrix {   // (tensor.h has a Matrix of its own)
  int64_t rows = 0, cols = 0;
  std::vector<double> at;   // [rows, cols]
  double& operator()(int64_t i, int64_t j) { return at[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return at[i * cols + j]; }
};

ShareMatrix identity(int64_t n) {
  ShareMatrix out{n, n, std::vector<double>(n * n, 0.0)};
  for (int64_t i = 0; i < n; ++i) out(i, i) = 1;
  return out;
}

ShareMatrix product(const ShareMatrix& a, const ShareMatrix& b) {   // [n, k] · [k, m] → [n, m]
  ShareMatrix out{a.rows, b.cols, std::vector<double>(a.rows * b.cols, 0.0)};
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t k = 0; k < a.cols; ++k) {
      if (a(i, k) == 0) continue;
      for (int64_t j = 0; j < b.cols; ++j) out(i, j) += a(i, k) * b(k, j);
    }
  }
  return out;
}

// Ā: the map's weights averaged over heads, each row renormalised to sum to 1 ([queries, keys]). A row that saw
// no key stays all 0. External attention's keys are memory slots: it mixes no tokens, so Ā = I.
ShareMatrix head_average(const AttentionMapRecord& map) {
  if (map.keys_are_slots()) return identity(map.queries);
  ShareMatrix mean{map.queries, map.keys, std::vector<double>(map.queries * map.keys, 0.0)};
  for (int64_t h = 0; h < map.heads; ++h) {
    for (int64_t i = 0; i < map.queries; ++i) {
      for (int64_t j = 0; j < map.keys; ++j) mean(i, j) += map.at(h, i, j) / double(map.heads);
    }
  }
  for (int64_t i = 0; i < map.queries; ++i) {
    double total = 0;
    for (int64_t j = 0; j < map.keys; ++j) total += mean(i, j);
    for (int64_t j = 0; total > 0 && j < map.keys; ++j) mean(i, j) /= total;
  }
  return mean;
}

// Ã = 0.5 · Ā + 0.5 · I for a self-attention map; a row of Ā that is all 0 keeps only the residual: Ã row = I row.
ShareMatrix with_residual(const ShareMatrix& mean) {
  ShareMatrix mixed = mean;
  for (int64_t i = 0; i < mixed.rows; ++i) {
    double total = 0;
    for (int64_t j = 0; j < mixed.cols; ++j) total += mean(i, j);
    const double attention_share = total > 0 ? 0.5 : 0.0;
    for (int64_t j = 0; j < mixed.cols; ++j) mixed(i, j) = attention_share * mean(i, j);
    mixed(i, i) += 1 - attention_share;
  }
  return mixed;
}

// The decoder's cross-attention step: [R_tgt | R_src] ← 0.5 · [R_tgt | R_src] + 0.5 · [0 | Ā · R_enc], row by row;
// a row of Ā that saw no source token keeps its residual whole.
void cross_step(const ShareMatrix& mean, const ShareMatrix& encoder, ShareMatrix& target, ShareMatrix& source) {
  const ShareMatrix reached = product(mean, encoder);                            // [T, S]
  for (int64_t t = 0; t < target.rows; ++t) {
    double total = 0;
    for (int64_t s = 0; s < reached.cols; ++s) total += reached(t, s);
    if (total <= 0) continue;
    for (int64_t u = 0; u < target.cols; ++u) target(t, u) *= 0.5;
    for (int64_t s = 0; s < source.cols; ++s) source(t, s) = 0.5 * source(t, s) + 0.5 * reached(t, s);
  }
}

}  // namespace

void check_map_size(const AttentionMapRecord& map, int64_t queries, int64_t keys, const std::string& method) {
  if (map.queries != queries || (!map.keys_are_slots() && map.keys != keys)) {
    throw Error(method + ": map '" + map.name + "' is " + std::to_string(map.queries) + " × " +
                std::to_string(map.keys) + ", expected " + std::to_string(queries) + " × " + std::to_string(keys));
  }
}

Rollout attention_rollout(const std::vector<AttentionMapRecord>& maps, int64_t S, int64_t T) {
  ShareMatrix encoder = identity(S);                                             // R_enc [S, S]
  for (const AttentionMapRecord& map : maps) {
    if (map.type != "encoder_self") continue;
    check_map_size(map, S, S, "rollout");
    encoder = product(with_residual(head_average(map)), encoder);           // Ã^l · R
  }
  ShareMatrix target = identity(T);                                              // R_tgt [T, T]
  ShareMatrix source{T, S, std::vector<double>(T * S, 0.0)};                     // R_src [T, S]
  // The decoder's layers in order: layer l's self-attention, then its cross-attention.
  int64_t layers = 0;
  for (const AttentionMapRecord& map : maps) {
    if (map.type != "encoder_self") layers = std::max(layers, map.layer + 1);
  }
  for (int64_t layer = 0; layer < layers; ++layer) {
    for (const AttentionMapRecord& map : maps) {
      if (map.layer != layer || map.type != "decoder_self") continue;
      check_map_size(map, T, T, "rollout");
      const ShareMatrix mixed = with_residual(head_average(map));                // Ã_self [T, T]
      target = product(mixed, target), source = product(mixed, source);
    }
    for (const AttentionMapRecord& map : maps) {
      if (map.layer != layer || map.type != "cross") continue;
      check_map_size(map, T, S, "rollout");
      if (!map.keys_are_slots()) cross_step(head_average(map), encoder, target, source);
    }
  }
  return Rollout{encoder.at, source.at, target.at};
}

void attach_value_norms(AttentionMapRecord& map, const SentenceTrace& trace, const Module& model) {
  const Tensor* values = nullptr;                                           // [1, h, Tk, d_k]
  for (const auto* stages : {&trace.encoder, &trace.decoder}) {
    for (const TracedTensor& stage : *stages) {
      if (stage.name == map.name + ".v") values = &stage.value;
    }
  }
  Tensor out_weight, gamma, memory_v;
  for (const NamedParameter& parameter : model.named_parameters()) {
    if (parameter.name == map.name + ".out_proj.weight") out_weight = parameter.tensor;   // W_O [d, d]
    if (parameter.name == map.name + ".gamma") gamma = parameter.tensor;                  // γ [1]
    if (parameter.name == map.name + ".memory_v.weight") memory_v = parameter.tensor;     // M_v [S, d_k]
  }
  const int64_t d_k = memory_v.defined() ? memory_v.size(1) : values ? values->size(3) : 0;
  if (d_k == 0 || (!out_weight.defined() && !gamma.defined())) return;
  // ‖f_h(x_j)‖ [heads, keys]: the length of what key j sends through head h at weight 1.
  std::vector<double> lengths(map.heads * map.keys, 0.0);
  for (int64_t h = 0; h < map.heads; ++h) {
    for (int64_t j = 0; j < map.keys; ++j) {
      const real* v = memory_v.defined() ? memory_v.data() + j * d_k : values->data() + (h * map.keys + j) * d_k;
      double squared = 0;
      if (gamma.defined()) {                                                // SAGAN: f = γ · v_j
        for (int64_t c = 0; c < d_k; ++c) squared += double(gamma.data()[0] * v[c]) * double(gamma.data()[0] * v[c]);
      } else {                                                              // f = W_O[:, head h] · v_hj  [d]
        const int64_t d = out_weight.size(0);
        for (int64_t r = 0; r < d; ++r) {
          const real* w_row = out_weight.data() + r * out_weight.size(1) + h * d_k;
          double f = 0;
          for (int64_t c = 0; c < d_k; ++c) f += double(w_row[c]) * double(v[c]);
          squared += f * f;
        }
      }
      lengths[h * map.keys + j] = std::sqrt(squared);
    }
  }
  map.value_norms.resize(map.weights.size());                               // [heads, queries, keys]
  for (int64_t h = 0; h < map.heads; ++h) {
    for (int64_t i = 0; i < map.queries; ++i) {
      for (int64_t j = 0; j < map.keys; ++j) {
        map.value_norms[(h * map.queries + i) * map.keys + j] = map.at(h, i, j) * lengths[h * map.keys + j];
      }
    }
  }
}

namespace {

// e = E[source] · √d_model [1, S, d] from the model's source embedding table.
Tensor source_token_embeddings(const Seq2Seq& model, const std::vector<int32_t>& source) {
  const std::string name = model.config().share_embeddings ? "shared.weight" : "encoder.embed_tokens.weight";
  for (const NamedParameter& parameter : model.named_parameters()) {
    if (parameter.name != name) continue;
    NoGradGuard constant;
    const TokenIds ids{Shape{1, static_cast<int64_t>(source.size())}, source};
    return scale(embedding(parameter.tensor, ids), real(std::sqrt(double(parameter.tensor.size(1)))));
  }
  throw Error("attribution: the model has no parameter '" + name + "'");
}

// The batch X [m + 2, S, d]: rows α_k · e for k = 1 … m (α_k = (k − ½)/m), then e itself, then 0 (the baseline).
Tensor scaled_copies(const Tensor& e, int64_t steps) {
  const int64_t per_row = e.numel();
  std::vector<real> rows(static_cast<size_t>((steps + 2) * per_row), real(0));
  for (int64_t k = 0; k <= steps; ++k) {
    const double alpha = k < steps ? (double(k) + 0.5) / double(steps) : 1.0;
    for (int64_t c = 0; c < per_row; ++c) rows[k * per_row + c] = real(alpha * double(e.data()[c]));
  }
  return Tensor::from_values(Shape{steps + 2, e.size(1), e.size(2)}, std::move(rows), /*requires_grad=*/true);
}

// One backward pass for target position t: the root Σ_r w_r · F_t(row r), w = 1/m on the m integration points,
// 1 on e, 0 on the baseline, so ∂root/∂X row r = w_r · ∂F_t/∂x_r (the rows do not interact). Fills row t of the
// attribution.
void attribute_position(Seq2Seq& model, const Tensor& e, const std::vector<int32_t>& source,
                        const std::vector<int32_t>& decoder_input, int32_t predicted, int64_t t, Attribution& out) {
  const int64_t m = out.steps, B = m + 2, S = e.size(1), d = e.size(2);
  std::vector<int32_t> src_rows, tgt_rows;
  for (int64_t r = 0; r < B; ++r) {
    src_rows.insert(src_rows.end(), source.begin(), source.end());
    tgt_rows.insert(tgt_rows.end(), decoder_input.begin(), decoder_input.begin() + t + 1);   // bos … y_t: causal
  }
  const TokenIds src{Shape{B, S}, src_rows}, tgt_in{Shape{B, t + 1}, tgt_rows};
  ForwardContext ctx;                                                      // inference: no dropout
  const Tensor X = scaled_copies(e, m);                                    // [B, S, d]
  const Tensor memory = model.encode_embedded(X, src, ctx);                // [B, S, d]
  const Tensor logits = model.decoder_logits(tgt_in, memory, src, ctx);   // [B, t + 1, V]
  const Tensor log_p = log_softmax(slice(logits, 1, t, t + 1));           // [B, 1, V]
  const int64_t V = log_p.size(2);
  std::vector<real> pick(static_cast<size_t>(B * V), real(0));            // w_r at (r, y_t)
  for (int64_t r = 0; r < B; ++r) pick[r * V + predicted] = r < m ? real(1.0 / double(m)) : r == m ? real(1) : real(0);
  Tensor root = sum(mul(log_p, Tensor::from_values(Shape{B, 1, V}, std::move(pick))));   // [1]
  root.backward();
  const real* gradient = X.grad();                                         // [B, S, d]
  double total = 0;
  for (int64_t s = 0; s < S; ++s) {
    double integrated = 0, plain = 0;
    for (int64_t c = 0; c < d; ++c) {
      double averaged = 0;                                                 // (1/m) Σ_k ∂F/∂e at α_k e
      for (int64_t k = 0; k < m; ++k) averaged += gradient[(k * S + s) * d + c];
      const double e_sc = e.data()[s * d + c];
      integrated += e_sc * averaged;
      plain += e_sc * gradient[(m * S + s) * d + c];
    }
    out.integrated[t * S + s] = integrated, out.gradient_x_input[t * S + s] = plain;
    total += integrated;
  }
  out.log_prob[t] = log_p.data()[m * V + predicted];
  out.baseline_log_prob[t] = log_p.data()[(m + 1) * V + predicted];
  out.completeness_error[t] = total - (out.log_prob[t] - out.baseline_log_prob[t]);
}

}  // namespace

Attribution attribute_to_source(Seq2Seq& model, const std::vector<int32_t>& source,
                                const std::vector<int32_t>& decoder_input, const std::vector<int32_t>& target_output,
                                int64_t steps) {
  if (steps < 1) throw Error("attribution: the number of integration steps must be at least 1, not " + std::to_string(steps));
  if (decoder_input.size() != target_output.size() || source.empty()) {
    throw Error("attribution: the decoder input and the target output must have the same length, and the source a token");
  }
  const int64_t S = static_cast<int64_t>(source.size()), T = static_cast<int64_t>(target_output.size());
  Attribution out;
  out.steps = steps;
  out.gradient_x_input.assign(T * S, 0.0), out.integrated.assign(T * S, 0.0);
  out.log_prob.assign(T, 0.0), out.baseline_log_prob.assign(T, 0.0), out.completeness_error.assign(T, 0.0);
  const Tensor e = source_token_embeddings(model, source);                 // [1, S, d]
  for (int64_t t = 0; t < T; ++t) {
    attribute_position(model, e, source, decoder_input, target_output[t], t, out);
    model.zero_grad();                                                     // the parameters' gradients are a by-product
  }
  return out;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
