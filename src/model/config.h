// config.h — everything that fixes the shape of a Transformer: the `model:` section of a config file.
//
// Defaults are the small model the demo trains; configs/README.md documents each key.
#pragma once

#include <cstdint>
#include <string>

#include "attention/attention.h"
#include "nn/embedding.h"
#include "nn/layers.h"
#include "nn/module.h"
#include "tensor/token_ids.h"
#include "util/choice.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// What the model does (model.task).
enum class Task {
  translation,  // the encoder–decoder Seq2Seq (model/transformer.h)
  cloze,        // a reader answering cloze questions by pointing into the document (cloze/cloze_reader.h)
  language_model,  // a decoder-only model predicting the next token of one text, GPT (gpt/decoder_only.h)
};
// Which reader answers a cloze question (model.reader; attention/reader.h).
enum class ReaderKind {
  aoa,        // attention over attention (Cui et al. 2017)
  as_reader,  // attention sum (Kadlec et al. 2016)
};
// Where each sublayer's LayerNorm sits (model.norm).
enum class NormPlacement {
  post,  // x ← LayerNorm(x + Sublayer(x)), as in the paper
  pre,   // x ← x + Sublayer(LayerNorm(x)), with one more LayerNorm after the last layer
};
// The config's words for each (util/choice.h), in config.cpp.
const std::vector<std::string>& choice_names(Task);           // "translation", "cloze", "language_model"
const std::vector<std::string>& choice_names(ReaderKind);     // "aoa", "as_reader"
const std::vector<std::string>& choice_names(NormPlacement);  // "post", "pre"

struct ModelConfig {
  Task task = Task::translation;
  ReaderKind reader = ReaderKind::aoa;  // cloze only
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
  Activation activation = Activation::relu;
  NormPlacement norm = NormPlacement::post;
  bool residual = true;             // x + Sublayer(x); false drops the "x +" in every sublayer (an ablation)
  PositionalKind positional = PositionalKind::sinusoidal;
  int64_t max_len = 256;            // positions of the learned table
  // How the modules compute (nn/module.h): the paper's chain of plain ops, written in each module under its
  // equation, or the fused kernels of src/kernels/ that stand for those chains. Same numbers to rounding.
  ComputePath path = ComputePath::fused;   // model.path: paper | fused
  Gemm gemm = Gemm::automatic;              // model.gemm: the fused path's GEMM (tensor/product/product.h): auto | packed | eigen | blas | simd128
  Precision precision = Precision::float32; // model.precision: its products' operands (bf16_product.h): float32 | bfloat16 | bfloat16-emulated
  AttentionConfig encoder_attention;  // model.attention.encoder
  AttentionConfig decoder_attention;  // model.attention.decoder (causal self-attention)
  AttentionConfig cross_attention;    // model.attention.cross
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
