// inspect_test_support.h — the small run the "Looking inside" tests share (test_flow.cpp, test_align.cpp): a run
// held in memory, its tokenizer trained on a few sentences, an untrained model of the attention kinds asked for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "run/run.h"

namespace attnlab::testing {

struct SmallRun {
  AttentionKind self_kind = AttentionKind::scaled_dot;    // encoder and decoder self-attention
  AttentionKind cross_kind = AttentionKind::scaled_dot;
  std::vector<std::string> text;                          // the tokenizer's training text
  NormPlacement norm = NormPlacement::post;
  TokenizerKind tokenizer = TokenizerKind::word;
  int64_t layers = 2;                                     // on each side
  double dropout = 0.1;                                   // ModelConfig's default
  uint64_t seed = 11;                                     // the initial weights'
};

// d_model 16, 2 heads, d_ff 32, external attention with 5 memory slots; checkpoint_path "in memory".
inline LoadedRun small_run(const SmallRun& shape) {
  LoadedRun run;
  run.config.tokenizer.kind = shape.tokenizer;
  std::shared_ptr<Tokenizer> tokenizer = train_tokenizer(run.config.tokenizer, shape.text, "");
  run.tokenizers = {tokenizer, tokenizer};
  ModelConfig& m = run.config.model;
  m.d_model = 16, m.heads = 2, m.d_ff = 32, m.encoder_layers = m.decoder_layers = shape.layers;
  m.dropout = shape.dropout, m.norm = shape.norm;
  m.encoder_attention.kind = m.decoder_attention.kind = shape.self_kind;
  m.cross_attention.kind = shape.cross_kind;
  m.encoder_attention.memory_slots = m.decoder_attention.memory_slots = 5;
  Generator init(shape.seed);
  run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), init);
  run.checkpoint_path = "in memory";
  return run;
}

}  // namespace attnlab::testing
