// two_paths_support.h — running one model by both paths (model.path: fused and paper) and comparing them.
// Shared by tests/model/f64_two_paths.cpp (float64, to 1e-12) and tests/model/test_two_paths.cpp (float32, a stated tolerance).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "model/transformer.h"

namespace attnlab::testing {

// One model's case: which kind in each of the three uses, a window or not, and where the norm sits.
struct PathCase {
  AttentionKind kind;        // cross-attention takes scaled_dot for external
  bool window = false;       // window [1, 2] on every use (the softmax kinds only)
  NormPlacement norm = NormPlacement::post;

  std::string name() const { return name_of(kind) + (window ? " + window" : "") + ", " + name_of(norm) + "-LN"; }
};

inline ModelConfig path_config(const PathCase& c, ComputePath path) {
  ModelConfig m;
  m.src_vocab = 11;
  m.tgt_vocab = 13;
  m.d_model = 8;
  m.heads = 2;
  m.d_ff = 16;
  m.encoder_layers = 2;
  m.decoder_layers = 2;
  m.dropout = 0.2;                                       // dropout on: both paths must drop the same numbers
  m.norm = c.norm;
  m.path = path;
  for (AttentionConfig* a : {&m.encoder_attention, &m.decoder_attention, &m.cross_attention}) {
    a->kind = c.kind;
    a->memory_slots = 5;
    a->has_window = c.window;
    a->window_left = 1;
    a->window_right = 2;
  }
  if (c.kind == AttentionKind::external) m.cross_attention.kind = AttentionKind::scaled_dot;  // external cannot be cross-attention
  return m;
}

// What one path computes on one padded batch: the logits (no dropout), the training loss (dropout on, a seeded
// generator) and the gradient of every parameter after its backward.
struct PathResult {
  std::vector<real> logits;
  real loss = 0;
  std::vector<std::string> names;
  std::vector<std::vector<real>> gradients;
};

// One padded batch: source, decoder input (bos first) and targets (eos last, pad ignored).
struct PathBatch {
  TokenIds src{{2, 5}, {4, 5, 6, 7, 2, 8, 9, 2, 0, 0}};               // [B, S], sentence 1 padded
  TokenIds tgt_in{{2, 4}, {1, 4, 9, 12, 1, 5, 0, 0}};                 // [B, T], bos first, sentence 1 padded
  TokenIds targets{{2, 4}, {4, 9, 12, 2, 5, 2, 0, 0}};                // [B, T], eos, pad ignored
};

// Every parameter's name and gradient after a backward (zeros for a parameter that received none).
inline void record_gradients(const Module& model, PathResult& r) {
  for (const NamedParameter& p : model.named_parameters()) {
    r.names.push_back(p.name);
    const Tensor& t = p.tensor;
    r.gradients.emplace_back(t.has_grad() ? std::vector<real>(t.grad(), t.grad() + t.numel())
                                          : std::vector<real>(static_cast<size_t>(t.numel()), real(0)));
  }
}

inline PathResult run_path_on(Seq2Seq& model, const PathBatch& batch = {}) {
  const TokenIds &src = batch.src, &tgt_in = batch.tgt_in, &targets = batch.targets;
  PathResult r;
  {
    NoGradGuard no_graph;
    ForwardContext eval;
    Tensor memory = model.encode(src, eval);                         // [B, S, d]
    Tensor logits = model.decoder_logits(tgt_in, memory, src, eval);  // [B, T, V]
    r.logits.assign(logits.data(), logits.data() + logits.numel());
  }
  Generator dropout(7);
  ForwardContext training;
  training.training = true;
  training.generator = &dropout;
  Tensor loss = model.loss(src, tgt_in, targets, real(0.1), training);  // [1]
  loss.backward();
  r.loss = loss.item();
  record_gradients(model, r);
  return r;
}

inline PathResult run_path(const PathCase& c, ComputePath path) {
  Generator init(20171206);
  Seq2Seq model(path_config(c, path), init);
  return run_path_on(model);
}

// max |a − b| / max(max |a|, max |b|, 10⁻³): the difference relative to the size of the numbers compared. The
// floor is for gradients that are 0 in exact arithmetic, such as the key projection's bias (softmax ignores a
// constant added to a whole row of scores, and q · b_k is one): both paths hold rounding noise there, ~1e-17 in
// float64, whose relative difference says nothing. Every other gradient of these models is larger than 10⁻³.
inline double relative_difference(const std::vector<real>& a, const std::vector<real>& b) {
  if (a.size() != b.size()) return INFINITY;
  double diff = 0, size = 1e-3;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - double(b[i])));
    size = std::max({size, std::abs(double(a[i])), std::abs(double(b[i]))});
  }
  return diff / size;
}

inline std::vector<PathCase> every_path_case() {
  std::vector<PathCase> cases;
  for (AttentionKind kind : attention_kinds()) {
    for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
      cases.push_back({kind, false, norm});
      const bool local = kind == AttentionKind::local_m || kind == AttentionKind::local_p;
      if (kind != AttentionKind::external && kind != AttentionKind::linear && !local) {
        cases.push_back({kind, true, norm});                    // windows: softmax kinds (local has its own)
      }
    }
  }
  return cases;
}

}  // namespace attnlab::testing
