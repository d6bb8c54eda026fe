// sampling.h — continuing a text with a decoder-only model (gpt/decoder_only.h): one token after another, each
// drawn from the model's distribution for the next token, on the KV cache.
//
// At each step the model gives logits z [V] for the token after the text so far. How the next token is chosen:
//   temperature τ    p = softmax(z / τ). τ < 1 sharpens the distribution, τ > 1 flattens it; as τ → 0 all the
//                    mass goes to argmax z, so τ = 0 *is* greedy decoding (the likeliest token, no draw).
//   top-k  k         keep only the k likeliest tokens (0: all), then renormalise.
//   top-p  p         nucleus sampling (Holtzman et al. 2020): keep the fewest likeliest tokens whose probabilities
//                    add up to at least p (1: all), then renormalise.
//   draw             u ~ U[0, 1) from a seeded generator; the token where the running sum of p first exceeds u.
// pad and bos are never chosen (greedy.h, may_output). The same seed, prompt and settings give the same tokens.
//
// The text so far is fed once, token by token, through DecoderOnly::step, which keeps every layer's keys and
// values (attention.h, AttentionCache): each new token costs one position's attention over the cache, not a
// forward pass over the whole text again.
#pragma once

#include <cstdint>
#include <vector>

#include "gpt/decoder_only.h"
#include "tensor/random.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct SamplingConfig {
  double temperature = 1.0;   // τ ≥ 0; 0: greedy
  int64_t top_k = 0;          // ≥ 0; 0: every token
  double top_p = 1.0;         // in (0, 1]; 1: every token
};

// Throws attnlab::Error naming the option (--temperature, --top-k, --top-p) for a setting outside its range.
void check_sampling(const SamplingConfig& sampling);

// One token that may come next, with the probability the draw gives it.
struct TokenProbability {
  int32_t token = 0;
  double p = 0;
};

// The distribution the next token is drawn from, given logits z [V]: the tokens top-k and top-p keep, likeliest
// first, with softmax(z / τ) over them, renormalised to sum to 1. At τ = 0 it is the argmax alone, with p = 1.
std::vector<TokenProbability> next_token_distribution(const real* logits, int64_t V, const SamplingConfig& sampling);

// The next token from logits z [V] under `sampling` (argmax at τ = 0, else one draw from `generator`): u ~ U[0, 1),
// the token of next_token_distribution where the running sum of p first exceeds u.
int32_t sample_next_token(const real* logits, int64_t V, const SamplingConfig& sampling, Generator& generator);

// The most positions (prompt and continuation) continue_text reads and writes when positions do not limit it
// (sinusoidal or none): every layer caches keys and values for each, and each new token attends over all of them;
// 4096 is far beyond the toy texts' documents, and bounds what a runaway prompt (a file without line breaks) costs.
constexpr int64_t generate_positions_most = 4096;

// The model's continuation of `prompt` (ids, bos first): up to `max_tokens` new ids, ending early after eos (which
// is not returned) or when the positions run out (greedy.h, position_limit; at most generate_positions_most). An
// empty prompt or one longer than the positions is an attnlab::Error.
std::vector<int32_t> continue_text(DecoderOnly& model, const std::vector<int32_t>& prompt, int64_t max_tokens,
                                   const SamplingConfig& sampling, Generator& generator);

// The distribution of the token after `prompt` (ids, bos first): the prompt is fed as continue_text feeds it, and
// next_token_distribution is taken of the logits after its last token. The same errors as continue_text.
std::vector<TokenProbability> prompt_next_token_distribution(DecoderOnly& model, const std::vector<int32_t>& prompt,
                                                             const SamplingConfig& sampling);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
