// model/checks.h — gradient checks for the Transformer's layers and the whole encoder–decoder model. (The list of
// every gradient check attnlab has, all_gradcheck_cases, is in the last chapter, which sees them all: gpt/checks.h.)
#pragma once

#include <vector>

#include "autograd/gradcheck.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The encoder and decoder layers in both norm placements, with and without residuals, and a tiny Seq2Seq
// through its loss ("layer.encoder_layer", "layer.decoder_layer", "model.seq2seq"; model/checks/layers.cpp).
// Weights from `init`, which all_gradcheck_cases (gpt/checks.h) passes on from the nn checks (one generator for all modules).
std::vector<GradcheckCase> model_checks(Generator& init);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
