// text_blocks.h — one text as a language model reads it: a stream of token ids, cut into blocks of T tokens.
//
// A translator learns from pairs; a language model (gpt/decoder_only.h) from one text. The text is a file, one
// document a line (for the toy grammar: one sentence a line). Each document becomes  bos t_1 … t_n eos  — bos
// where a document starts, as the translator's decoder starts from bos; eos where it ends, so the model learns to
// stop — and the documents follow each other in one stream s_0 s_1 … s_{N−1}:
//   bos the cat sleeps . eos bos we go to the market . eos bos …
// The stream is cut into blocks of T + 1 tokens that overlap by one (T = data.max_len): block k is
// s_{kT} … s_{kT+T}. A block gives the model its input and, shifted by one, its targets:
//   tokens  = b_0 … b_{T−1}          what the model reads, [T]
//   targets = b_1 … b_T              what it must predict at each position: targets_i = tokens_{i+1}
// So every token of the stream but the first is a target exactly once. A block may start in the middle of a
// document: the model learns to continue from whatever it is shown. The last block, shorter, is padded (pad
// targets are ignored by the loss, pad keys by attention).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/tokenizers/tokenizer.h"
#include "tensor/token_ids.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A text's stream of ids, and its blocks.
struct TextBlocks {
  std::vector<std::vector<int32_t>> blocks;   // each T + 1 ids (the last one 2 … T + 1)
  int64_t block_length = 0;                   // T
  int64_t documents = 0;                      // non-empty lines
  int64_t tokens = 0;                         // the stream's length N, bos and eos included
};

// The documents (lines; an empty one is skipped) encoded and cut into blocks of `block_length` (T ≥ 1) tokens.
// Throws attnlab::Error naming `where` when no document has a token.
TextBlocks text_blocks(const std::vector<std::string>& documents, const Tokenizer& tokenizer, int64_t block_length,
                       const std::string& where);

// A batch of blocks for the model: their inputs and targets, [B, T] each, padded to the longest.
struct TextBatch {
  TokenIds tokens;        // [B, T]  b_0 … b_{T−1}
  TokenIds targets;       // [B, T]  b_1 … b_T
  int64_t real_targets = 0;
};

// The shift by one of the causal language model's loss: block b_0 … b_T → (b_0 … b_{T−1}, b_1 … b_T).
void shift_by_one(const std::vector<int32_t>& block, std::vector<int32_t>& tokens, std::vector<int32_t>& targets);

// Blocks order[first], … order[first + count − 1] (fewer at the end of `order`) as one batch.
TextBatch text_batch(const TextBlocks& text, const std::vector<size_t>& order, size_t first, size_t count);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
