// config.h — everything that fixes the shape of a Transformer: the `model:` section of a config file.
//
// Defaults are the small model the demo trains; configs/README.md documents each key.
#pragma once

#include <cstdint>
#include <string>

#include "attention/attention.h"

namespace attnlab::inline ATTNLAB_PRECISION {

// Fixed special token ids, the same for every tokenizer attnlab makes.
constexpr int32_t pad_id = 0;  // padding: ignored by the loss and masked out of attention
constexpr int32_t bos_id = 1;  // beginning of sentence: the decoder's first input
constexpr int32_t eos_id = 2;  // end of sentence: the decoder's last target
constexpr int32_t unk_id = 3;  // a token the vocabulary does not have

struct ModelConfig {
  int64_t src_vocab = 0;            // source vocabulary size (ids 0 … src_vocab−1)
  int64_t tgt_vocab = 0;            // target vocabulary size
  bool share_embeddings = false;    // one table for source and target (needs src_vocab == tgt_vocab)
  bool tie_output = false;          // the output projection reuses the target embedding table
  int64_t d_model = 128;
  int64_t heads = 4;
  int64_t d_ff = 512;
  int64_t encoder_layers = 2;
  int64_t decoder_layers = 2;
  double dropout = 0.1;             // on embeddings, attention weights, FFN hidden units and sublayer outputs
  std::string activation = "relu";  // relu | gelu
  std::string norm = "post";        // post (as in the paper) | pre
  bool residual = true;             // x + Sublayer(x); false drops the "x +" in every sublayer (an ablation)
  std::string positional = "sinusoidal";  // sinusoidal | learned | none
  int64_t max_len = 256;            // positions of the learned table
  AttentionConfig encoder_attention;  // model.attention.encoder
  AttentionConfig decoder_attention;  // model.attention.decoder (causal self-attention)
  AttentionConfig cross_attention;    // model.attention.cross
};

}  // namespace attnlab::inline ATTNLAB_PRECISION
