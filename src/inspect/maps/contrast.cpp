// contrast.cpp — the gap log p(chosen) − log p(alternative) at one decoder position, attributed to the source words
// (contrast.h has the equations).
#include "inspect/maps/contrast.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "autograd/graph.h"
#include "autograd/ops.h"
#include "inspect/align/alti.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// e = E[source] · √d_model [1, S, d]: the stage of the recorded pass that the source embedding table wrote.
const Tensor& traced_source_embeddings(const Seq2Seq& model, const SentenceTrace& trace) {
  const std::string table = model.config().share_embeddings ? "shared" : "encoder.embed_tokens";
  for (const TracedTensor& stage : trace.encoder) {
    if (stage.name == table) return stage.value;
  }
  throw Error("contrast: the recorded pass has no stage '" + table + "' (the source token embeddings)");
}

// The path's points as one batch X [m + 2, S, d]: α e for α = α_1 … α_m (the midpoints (k − ½)/m), then 1 (e
// itself, for gradient × input and Δ(e)), then 0 (the baseline, for Δ(0)).
Tensor points_on_the_path(const Tensor& e, int64_t steps) {
  std::vector<double> alphas;
  for (int64_t k = 1; k <= steps; ++k) alphas.push_back((double(k) - 0.5) / double(steps));
  alphas.push_back(1.0);
  alphas.push_back(0.0);
  const int64_t n = e.numel();
  std::vector<real> points;
  points.reserve(alphas.size() * static_cast<size_t>(n));
  for (double alpha : alphas) {
    for (int64_t c = 0; c < n; ++c) points.push_back(real(alpha * double(e.data()[c])));
  }
  return Tensor::from_values(Shape{steps + 2, e.size(1), e.size(2)}, std::move(points), /*requires_grad=*/true);
}

void check_question(const SentenceTrace& trace, const ContrastQuestion& question, int32_t chosen) {
  const int64_t T = trace.logits.size(1), V = trace.logits.size(2);
  if (question.position < 0 || question.position >= T) {
    throw Error("contrast: position " + std::to_string(question.position) + " is not a decoder position of this " +
                "translation (0 to " + std::to_string(T - 1) + ")");
  }
  for (int32_t id : {chosen, question.alternative}) {
    if (id < 0 || id >= V) throw Error("contrast: token id " + std::to_string(id) + " is not in the target vocabulary");
  }
  if (chosen == question.alternative) {
    throw Error("contrast: the alternative is the chosen token itself at position " + std::to_string(question.position) +
                ": the gap is 0, nothing to explain; choose another token");
  }
}

}  // namespace

Contrast contrast_at(Seq2Seq& model, const SentenceTrace& trace, const ContrastQuestion& question, int64_t steps) {
  if (steps < 1) throw Error("contrast: integrated gradients need at least 1 step, not " + std::to_string(steps));
  const int64_t t = question.position, T = trace.logits.size(1);
  const int32_t chosen = question.chosen >= 0 ? question.chosen
                         : t + 1 < T ? trace.decoder_input[static_cast<size_t>(t + 1)] : eos_id;   // target_output[t]
  check_question(trace, question, chosen);
  const Tensor& e = traced_source_embeddings(model, trace);                // [1, S, d]
  const int64_t m = steps, B = m + 2, S = e.size(1), d = e.size(2);
  std::vector<int32_t> src_rows, tgt_rows;
  for (int64_t r = 0; r < B; ++r) {
    src_rows.insert(src_rows.end(), trace.source.begin(), trace.source.end());
    tgt_rows.insert(tgt_rows.end(), trace.decoder_input.begin(), trace.decoder_input.begin() + t + 1);   // bos … y_t
  }
  const TokenIds src{Shape{B, S}, src_rows}, tgt_in{Shape{B, t + 1}, tgt_rows};
  ForwardContext ctx;                                                      // inference: no dropout
  const Tensor X = points_on_the_path(e, m);                               // [B, S, d]
  const Tensor memory = model.encode_embedded(X, src, ctx);                // [B, S, d]
  const Tensor z = slice(model.decoder_logits(tgt_in, memory, src, ctx), 1, t, t + 1);   // [B, 1, V]
  const int64_t V = z.size(2);
  // The root Σ_r w_r · Δ(row r), Δ = z_c − z_a, w = 1/m on the path's points, 1 on e, 0 on the baseline: its
  // gradient at row r is w_r · ∂Δ/∂x_r (the rows do not interact).
  std::vector<real> difference(static_cast<size_t>(B * V), real(0));       // [B, 1, V]
  for (int64_t r = 0; r < B; ++r) {
    const real w = r < m ? real(1.0 / double(m)) : r == m ? real(1) : real(0);
    difference[r * V + chosen] = w, difference[r * V + question.alternative] = -w;
  }
  sum(mul(z, Tensor::from_values(Shape{B, 1, V}, std::move(difference)))).backward();
  model.zero_grad();                                                       // the parameters' gradients: a by-product
  Contrast out;
  out.position = t, out.steps = m;
  out.gap = double(z.data()[m * V + chosen]) - double(z.data()[m * V + question.alternative]);
  out.baseline_gap = double(z.data()[(m + 1) * V + chosen]) - double(z.data()[(m + 1) * V + question.alternative]);
  out.gradient_x_input.assign(static_cast<size_t>(S), 0.0), out.integrated.assign(static_cast<size_t>(S), 0.0);
  double total = 0;
  for (int64_t s = 0; s < S; ++s) {
    for (int64_t c = 0; c < d; ++c) {
      double averaged = 0;                                                 // (1/m) Σ_k ∂Δ/∂e at α_k e
      for (int64_t k = 0; k < m; ++k) averaged += X.grad()[(k * S + s) * d + c];
      out.integrated[s] += e.data()[s * d + c] * averaged;
      out.gradient_x_input[s] += e.data()[s * d + c] * X.grad()[(m * S + s) * d + c];
    }
    total += out.integrated[s];
  }
  out.completeness_error = total - (out.gap - out.baseline_gap);
  return out;
}

ContrastQuestion contrast_question(const std::string& spec, const Tokenizer& target, const AttentionPicture& picture) {
  const size_t colon = spec.find(':');
  const std::string position = spec.substr(0, colon), token = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto T = static_cast<int64_t>(picture.target_output_tokens.size());
  if (position.empty() || position.size() > 9 || position.find_first_not_of("0123456789") != std::string::npos ||
      token.empty()) {
    throw Error("contrast '" + spec + "' is not POS:TOKEN (a decoder position from 0 to " + std::to_string(T - 1) +
                " and a target token, as 2:grand), nor all");
  }
  ContrastQuestion question;
  question.position = std::stoll(position);
  if (question.position >= T) {
    throw Error("contrast '" + spec + "': position " + position + " is past the translation, whose decoder " +
                "positions are 0 to " + std::to_string(T - 1));
  }
  std::vector<int32_t> ids(static_cast<size_t>(target.vocab_size()));
  for (size_t id = 0; id < ids.size(); ++id) ids[id] = static_cast<int32_t>(id);
  const std::vector<std::string> pieces = target.pieces(ids);
  question.alternative = -1;
  for (size_t id = 0; id < pieces.size() && question.alternative < 0; ++id) {
    if (pieces[id] == token) question.alternative = static_cast<int32_t>(id);
  }
  if (question.alternative < 0) throw Error("contrast '" + spec + "': '" + token + "' is not a token of the target vocabulary");
  if (token == picture.target_output_tokens[static_cast<size_t>(question.position)]) {
    throw Error("contrast '" + spec + "': '" + token + "' is the token the translation has at position " + position +
                ": choose another token to contrast it with");
  }
  return question;
}

std::vector<ContrastQuestion> likeliest_alternatives(const SentenceTrace& trace) {
  std::vector<ContrastQuestion> questions;
  const int64_t T = trace.logits.size(1);
  for (int64_t t = 0; t < T; ++t) {
    const int32_t chosen = t + 1 < T ? trace.decoder_input[static_cast<size_t>(t + 1)] : eos_id;
    for (int32_t id : likeliest_tokens(next_token_probabilities(trace, t), 5)) {
      if (id != chosen) questions.push_back({t, id, -1});
    }
  }
  return questions;
}

std::vector<ContrastQuestion> contrast_questions(const std::vector<std::string>& specs, const Tokenizer& target,
                                                 const AttentionPicture& picture, const SentenceTrace& trace) {
  std::vector<ContrastQuestion> questions;
  for (const std::string& spec : specs) {
    if (spec == "all") {
      for (const ContrastQuestion& question : likeliest_alternatives(trace)) questions.push_back(question);
    } else {
      questions.push_back(contrast_question(spec, target, picture));
    }
  }
  return questions;
}

std::vector<Contrast> contrasts_of(LoadedRun& run, const AttentionPicture& picture, const SentenceTrace& trace,
                                   const std::vector<ContrastQuestion>& questions, int64_t steps) {
  const auto S = static_cast<int64_t>(trace.source.size()), T = trace.logits.size(1);
  AltiPlus alti;
  std::string alti_error;
  try {
    alti = alti_plus(picture.maps, trace, *run.model, S, T);
  } catch (const Error& e) {
    alti_error = e.what();
  }
  std::vector<Contrast> out;
  for (const ContrastQuestion& question : questions) {
    Contrast contrast = contrast_at(*run.model, trace, question, steps);
    const int64_t t = question.position;
    const std::vector<double> p = next_token_probabilities(trace, t);       // [V]
    const int32_t chosen = question.chosen >= 0 ? question.chosen
                           : t + 1 < T ? trace.decoder_input[static_cast<size_t>(t + 1)] : eos_id;
    const std::vector<std::string> tokens = run.tokenizers.tgt->pieces({chosen, question.alternative});
    contrast.chosen = tokens[0], contrast.alternative = tokens[1];
    contrast.p_chosen = p[static_cast<size_t>(chosen)], contrast.p_alternative = p[static_cast<size_t>(question.alternative)];
    contrast.alti_error = alti_error;
    if (alti_error.empty()) {
      contrast.alti_source = contrast.alti_target = 0;
      for (int64_t s = 0; s < S; ++s) contrast.alti_source += alti.decoder_source[t * S + s];
      for (int64_t u = 0; u < T; ++u) contrast.alti_target += alti.decoder_target[t * T + u];
    }
    out.push_back(std::move(contrast));
  }
  return out;
}

std::string contrast_summary(const Contrast& c) {
  double source_part = 0;
  for (double a : c.integrated) source_part += a;
  char line[512];
  std::snprintf(line, sizeof line, "gap %.4f = %.4f without the source + %.4f from the source words (integrated "
                "gradients, m = %lld, completeness error %.2g)", c.gap, c.baseline_gap, source_part,
                static_cast<long long>(c.steps), c.completeness_error);
  char probabilities[160];
  std::snprintf(probabilities, sizeof probabilities, " (p %.4f) over ", c.p_chosen);
  std::string text = "position " + std::to_string(c.position) + ", " + c.chosen + probabilities + c.alternative;
  std::snprintf(probabilities, sizeof probabilities, " (p %.4f): ", c.p_alternative);
  text += probabilities + std::string(line);
  if (c.alti_error.empty() && c.alti_source >= 0) {
    std::snprintf(line, sizeof line, "; ALTI+: %.0f %% of the position from the source", 100 * c.alti_source);
    text += line;
  }
  return text;
}

nlohmann::ordered_json contrast_json(const Contrast& c) {
  auto rounded = [](double x) { return std::round(x * 1e6) / 1e6; };
  auto row = [&](const std::vector<double>& values) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (double x : values) out.push_back(rounded(x));
    return out;
  };
  double source_part = 0;
  for (double a : c.integrated) source_part += a;
  nlohmann::ordered_json out{{"position", c.position}, {"chosen", c.chosen}, {"alternative", c.alternative},
                             {"p_chosen", rounded(c.p_chosen)}, {"p_alternative", rounded(c.p_alternative)},
                             {"steps", c.steps}, {"gap", rounded(c.gap)}, {"baseline_gap", rounded(c.baseline_gap)},
                             {"source_part", rounded(source_part)}, {"completeness_error", rounded(c.completeness_error)},
                             {"gradient_x_input", row(c.gradient_x_input)}, {"integrated_gradients", row(c.integrated)}};
  if (c.alti_error.empty() && c.alti_source >= 0) {
    out["alti_plus"] = {{"source", rounded(c.alti_source)}, {"target_prefix", rounded(c.alti_target)}};
  } else {
    out["alti_plus"] = {{"error", c.alti_error.empty() ? "not computed" : c.alti_error}};
  }
  return out;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
