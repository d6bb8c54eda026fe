// model/checks.h — gradient checks for the Transformer's layers and the whole model, and the list of every
// gradient check attnlab has (the model chapter is the first that sees every op, kernel, layer and attention kind).
#pragma once

#include <vector>

#include "autograd/gradcheck.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The encoder and decoder layers in both norm placements, with and without residuals, and a tiny Seq2Seq
// through its loss ("layer.encoder_layer", "layer.decoder_layer", "model.seq2seq"; model/checks/layers.cpp).
// Weights from `init`, which all_gradcheck_cases passes on from the nn checks (one generator for all modules).
std::vector<GradcheckCase> model_checks(Generator& init);

// Every case, chapter by chapter: the engine's ops, the kernels, the layers, the attention kinds, the model.
// This is what `attnlab gradcheck` and tests/autograd/f64_gradcheck.cpp run (model/checks/all_checks.cpp).
std::vector<GradcheckCase> all_gradcheck_cases();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
