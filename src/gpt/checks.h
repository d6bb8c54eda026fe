// gpt/checks.h — the decoder-only model's gradient check, and the list of every gradient check attnlab has (the
// last chapter is the one that sees every op, kernel, layer, attention kind and both models).
#pragma once

#include <vector>

#include "autograd/gradcheck.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A tiny GPT (pre-LN, tied output layer) through its next-token loss on a padded block, differentiated with
// respect to every parameter ("model.decoder_only"; gpt/checks/decoder_only.cpp). Its weights come from a
// generator of its own, so the cases before it draw what they always drew.
std::vector<GradcheckCase> decoder_only_checks();

// Every case, chapter by chapter: the engine's ops, the kernels, the layers, the attention kinds, the models.
// This is what `attnlab gradcheck` and tests/autograd/f64_gradcheck.cpp run (gpt/checks/all_checks.cpp).
std::vector<GradcheckCase> all_gradcheck_cases();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
