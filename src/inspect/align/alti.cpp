// alti.cpp — ALTI+ from one traced pass (the equations are in alti.h).
#include "inspect/align/alti.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "inspect/maps/flow.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A dense row-major matrix of shares (rows × cols).
struct Shares {
  int64_t rows = 0, cols = 0;
  std::vector<double> at;
  Shares(int64_t r, int64_t c) : rows(r), cols(c), at(static_cast<size_t>(r * c), 0.0) {}
  double& operator()(int64_t i, int64_t j) { return at[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return at[i * cols + j]; }
};

Shares identity_shares(int64_t n) {
  Shares out(n, n);
  for (int64_t i = 0; i < n; ++i) out(i, i) = 1;
  return out;
}

Shares times(const Shares& a, const Shares& b) {   // [n, k] · [k, m]
  Shares out(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t k = 0; k < a.cols; ++k) {
      for (int64_t j = 0; a(i, k) != 0 && j < b.cols; ++j) out(i, j) += a(i, k) * b(k, j);
    }
  }
  return out;
}

// The traced tensors and parameters a sublayer's terms are made of, found by name.
struct Lookup {
  std::map<std::string, const Tensor*> traced;
  std::map<std::string, Tensor> parameters;
  const Tensor& stage(const std::string& name) const {
    auto found = traced.find(name);
    if (found == traced.end()) throw Error("ALTI+: the pass traced no '" + name + "'");
    return *found->second;
  }
  const Tensor* parameter(const std::string& name) const {
    auto found = parameters.find(name);
    return found == parameters.end() ? nullptr : &found->second;
  }
};

// f [h, Tk, d]: what key j sends through head h at weight 1, in the model's space: W_O[:, head h] · v_hj, or
// γ · v_j for sagan (one head, no W_O).
std::vector<double> value_vectors(const AttentionMapRecord& map, const Lookup& look, int64_t d) {
  const Tensor& v = look.stage(map.name + ".v");                           // [1, h, Tk, d_v]
  const int64_t h = map.heads, Tk = map.keys, d_v = v.size(3);
  const Tensor* W_O = look.parameter(map.name + ".out_proj.weight");       // [d, h · d_v]
  const Tensor* gamma = look.parameter(map.name + ".gamma");               // [1]
  if (!W_O && !gamma) throw Error("ALTI+: " + map.name + " has neither an output projection nor a gate γ");
  std::vector<double> f(static_cast<size_t>(h * Tk * d), 0.0);
  for (int64_t head = 0; head < h; ++head) {
    for (int64_t j = 0; j < Tk; ++j) {
      const real* v_hj = v.data() + (head * Tk + j) * d_v;
      double* out = f.data() + (head * Tk + j) * d;
      for (int64_t r = 0; r < d; ++r) {
        if (!W_O) {
          out[r] = double(gamma->data()[0]) * double(v_hj[r]);
          continue;
        }
        const real* w_row = W_O->data() + r * W_O->size(1) + head * d_v;
        for (int64_t c = 0; c < d_v; ++c) out[r] += double(w_row[c]) * double(v_hj[c]);
      }
    }
  }
  return f;
}

// α [h, Tq, Tk] as it mixed the values: the recorded weights, or for hard attention the one-hot row of the key it
// chose (hard_eval argmax or sample; with expectation the weights themselves mix).
std::vector<double> mixing_weights(const AttentionMapRecord& map) {
  if (map.kind != AttentionKind::hard || map.hard_eval == HardEval::expectation) return map.weights;
  std::vector<double> one_hot(map.weights.size(), 0.0);
  for (const NeuronStage& stage : map.stages) {
    if (stage.name != "chosen_key") continue;
    for (int64_t head = 0; head < map.heads; ++head) {
      for (int64_t i = 0; i < map.queries; ++i) {
        const double key = stage.values[static_cast<size_t>(head * map.queries + i)];
        if (std::isfinite(key)) one_hot[(head * map.queries + i) * map.keys + static_cast<int64_t>(key)] = 1;
      }
    }
    return one_hot;
  }
  throw Error("ALTI+: hard attention " + map.name + " recorded no chosen key");
}

// ALTI's share: max(0, ‖y‖₁ − ‖y − T‖₁) of every term T (d numbers each), normalised to sum to 1 (all 0 when no
// term is closer to y than nothing is).
std::vector<double> closeness_shares(const std::vector<double>& y, const std::vector<std::vector<double>>& terms) {
  double y_norm = 0;
  for (double value : y) y_norm += std::abs(value);
  std::vector<double> share(terms.size(), 0.0);
  double total = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    double distance = 0;
    for (size_t c = 0; c < y.size(); ++c) distance += std::abs(y[c] - terms[k][c]);
    total += share[k] = std::max(0.0, y_norm - distance);
  }
  for (double& s : share) s = total > 0 ? s / total : 0.0;
  return share;
}

// L_i(w) = γ ⊙ (w − mean(w)) / σ, in place (post-norm); nothing for pre-norm (gamma null).
void linear_norm(std::vector<double>& w, const real* gamma, double sigma) {
  if (!gamma) return;
  double mean = 0;
  for (double value : w) mean += value / double(w.size());
  for (size_t c = 0; c < w.size(); ++c) w[c] = double(gamma[c]) * (w[c] - mean) / sigma;
}

double norm_sigma(const real* u, int64_t d, double eps) {   // σ(u) = √(var(u) + ε), as the layer norm took it
  double mean = 0, var = 0;
  for (int64_t c = 0; c < d; ++c) mean += double(u[c]) / double(d);
  for (int64_t c = 0; c < d; ++c) var += (double(u[c]) - mean) * (double(u[c]) - mean) / double(d);
  return std::sqrt(var + eps);
}

// z_i· [Tk][d] = Σ_h α_hij f_hj for query i; checks Σ_j z_ij + b_O against the traced output out_i.
std::vector<std::vector<double>> query_terms(const AttentionMapRecord& map, const std::vector<double>& alpha,
                                             const std::vector<double>& f, const real* out_i, const Tensor* b_O,
                                             int64_t i, int64_t d) {
  std::vector<std::vector<double>> z(static_cast<size_t>(map.keys), std::vector<double>(static_cast<size_t>(d), 0.0));
  std::vector<double> sum(static_cast<size_t>(d), 0.0);
  for (int64_t j = 0; j < map.keys; ++j) {
    for (int64_t head = 0; head < map.heads; ++head) {
      const double a = alpha[(head * map.queries + i) * map.keys + j];
      const double* f_hj = f.data() + (head * map.keys + j) * d;
      for (int64_t c = 0; a != 0 && c < d; ++c) z[j][c] += a * f_hj[c];
    }
    for (int64_t c = 0; c < d; ++c) sum[c] += z[j][c];
  }
  double largest = 0, error = 0;
  for (int64_t c = 0; c < d; ++c) {
    largest = std::max(largest, std::abs(double(out_i[c])));
    error = std::max(error, std::abs(sum[c] + (b_O ? double(b_O->data()[c]) : 0.0) - double(out_i[c])));
  }
  if (error > 1e-3 * (1 + largest)) {
    throw Error("ALTI+: the output of " + map.name + " (" + name_of(map.kind) + ") at position " + std::to_string(i) +
                " is not the sum of its weights times its values (off by " + std::to_string(error) +
                "), so it cannot be split into one term per token");
  }
  return z;
}

// C of one attention sublayer: [Tq, Tk] shares of each key, and (cross, fold_residual false) the residual's share
// of each query in column Tk; for self-attention the residual is folded into token i's own term.
Shares sublayer_shares(const AttentionMapRecord& map, const Lookup& look, const ModelConfig& config, bool fold_residual) {
  const int64_t d = config.d_model, Tq = map.queries, Tk = map.keys;
  const std::vector<double> f = value_vectors(map, look, d);                // [h, Tk, d]
  const std::vector<double> alpha = mixing_weights(map);                    // [h, Tq, Tk]
  const Tensor& out = look.stage(map.name + (look.parameter(map.name + ".gamma") ? ".out" : ".out_proj"));   // [1, Tq, d]
  const Tensor& u = look.stage(map.name + ".residual");                    // [1, Tq, d]: x + out (or out alone)
  const bool post = config.norm == NormPlacement::post;
  const Tensor& y = look.stage(post ? map.name + "_layer_norm" : map.name + ".residual");   // [1, Tq, d]
  const Tensor* gamma = post ? look.parameter(map.name + "_layer_norm.weight") : nullptr;    // γ [d]
  const Tensor* b_O = look.parameter(map.name + ".out_proj.bias");
  Shares C(Tq, Tk + 1);
  for (int64_t i = 0; i < Tq; ++i) {
    std::vector<std::vector<double>> terms = query_terms(map, alpha, f, out.data() + i * d, b_O, i, d);   // [Tk][d]
    std::vector<double> residual(static_cast<size_t>(d), 0.0);              // x_i = u_i − out_i (0 without residual)
    for (int64_t c = 0; config.residual && c < d; ++c) residual[c] = double(u.data()[i * d + c]) - double(out.data()[i * d + c]);
    if (fold_residual) {
      for (int64_t c = 0; c < d; ++c) terms[i][c] += residual[c];
    } else {
      terms.push_back(residual);
    }
    const double sigma = post ? norm_sigma(u.data() + i * d, d, LayerNorm(1).eps) : 1.0;   // the model's norms keep the default ε
    for (auto& term : terms) linear_norm(term, gamma ? gamma->data() : nullptr, sigma);
    const std::vector<double> y_i(y.data() + i * d, y.data() + (i + 1) * d);
    const std::vector<double> share = closeness_shares(y_i, terms);
    for (size_t k = 0; k < share.size(); ++k) C(i, static_cast<int64_t>(k)) = share[k];
    double total = 0;
    for (double s : share) total += s;
    if (total == 0) C(i, fold_residual ? i : Tk) = 1;                     // nothing close: the token keeps itself
  }
  return C;
}

// Self-attention's C [T, T] (the residual column dropped: it is folded into the diagonal); an external layer's
// keys are memory slots and it mixes no tokens: C = I.
Shares self_shares(const AttentionMapRecord& map, const Lookup& look, const ModelConfig& config) {
  if (map.keys_are_slots()) return identity_shares(map.queries);
  const Shares C = sublayer_shares(map, look, config, true);
  Shares square(map.queries, map.keys);
  for (int64_t i = 0; i < map.queries; ++i) {
    for (int64_t j = 0; j < map.keys; ++j) square(i, j) = C(i, j);
  }
  return square;
}

// Cross-attention: [R_tgt | R_src]_i ← c_i,res · [R_tgt | R_src]_i + Σ_j c_ij · [0 | R_enc_j].
void cross_layer(const Shares& C, const Shares& encoder, Shares& target, Shares& source) {
  const int64_t S = encoder.rows;
  for (int64_t i = 0; i < target.rows; ++i) {
    const double kept = C(i, S);
    for (int64_t u = 0; u < target.cols; ++u) target(i, u) *= kept;
    std::vector<double> reached(static_cast<size_t>(S), 0.0);
    for (int64_t j = 0; j < S; ++j) {
      for (int64_t s = 0; C(i, j) != 0 && s < S; ++s) reached[s] += C(i, j) * encoder(j, s);
    }
    for (int64_t s = 0; s < S; ++s) source(i, s) = kept * source(i, s) + reached[s];
  }
}

}  // namespace

AltiPlus alti_plus(const std::vector<AttentionMapRecord>& maps, const SentenceTrace& trace, const Seq2Seq& model,
                   int64_t S, int64_t T) {
  Lookup look;
  for (const auto* stages : {&trace.encoder, &trace.decoder}) {
    for (const TracedTensor& stage : *stages) look.traced[stage.name] = &stage.value;
  }
  for (const NamedParameter& parameter : model.named_parameters()) look.parameters[parameter.name] = parameter.tensor;
  const ModelConfig& config = model.config();
  Shares encoder = identity_shares(S);                                       // R_enc [S, S]
  for (const AttentionMapRecord& map : maps) {
    if (map.type != "encoder_self") continue;
    check_map_size(map, S, S, "ALTI+");
    encoder = times(self_shares(map, look, config), encoder);               // C^l · R
  }
  Shares target = identity_shares(T), source(T, S);                         // [R_tgt | R_src] = [I | 0]
  for (int64_t layer = 0; layer < config.decoder_layers; ++layer) {         // layer l: self-, then cross-attention
    for (const AttentionMapRecord& map : maps) {
      if (map.layer != layer || map.type != "decoder_self") continue;
      check_map_size(map, T, T, "ALTI+");
      const Shares C = self_shares(map, look, config);                      // [T, T]
      target = times(C, target), source = times(C, source);
    }
    for (const AttentionMapRecord& map : maps) {
      if (map.layer != layer || map.type != "cross") continue;
      check_map_size(map, T, S, "ALTI+");
      if (map.keys_are_slots()) throw Error("ALTI+: cross-attention " + map.name + " attends to memory slots, not the source");
      cross_layer(sublayer_shares(map, look, config, false), encoder, target, source);
    }
  }
  return AltiPlus{encoder.at, source.at, target.at};
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
