// config.h — everything that fixes the shape of a Transformer: the `model:` section of a config file.
//
// Defaults are the small model the demo trains; configs/README.md documents each key.
#pragma once

#include <cstdint>
#include <string>

#include "attention/attention.h"
#include "nn/module.h"
#include "tensor/token_ids.h"

namespace attnlab::inline ATTNLAB_PRECISION {

struct ModelConfig {
  // What the model does (model/cloze_reader.h): translate (the encoder–decoder Seq2Seq), or answer cloze
  // questions by pointing into the document with one of the two readers of attention/reader.h.
  std::string task = "translation";  // translation | cloze
  std::string reader = "aoa";        // cloze only: aoa (attention over attention) | as_reader (attention sum)
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
  // How the modules compute (nn/module.h): the paper's chain of plain ops, written in each module under its
  // equation, or the fused kernels of src/kernels/ that stand for those chains. Same numbers to rounding.
  ComputePath path = ComputePath::fused;   // model.path: paper | fused
  Gemm gemm = Gemm::automatic;              // model.gemm: the fused path's GEMM (tensor/product.h): auto | packed | eigen | blas
  AttentionConfig encoder_attention;  // model.attention.encoder
  AttentionConfig decoder_attention;  // model.attention.decoder (causal self-attention)
  AttentionConfig cross_attention;    // model.attention.cross
};

}  // namespace attnlab::inline ATTNLAB_PRECISION
