// cloze_question.h — one question through a cloze run's reader, for `attnlab attention` and `attnlab serve`
// (src/cli/cloze_commands.cpp).
#pragma once

#include <string>

#include "cloze/cloze_training.h"
#include "inspect/maps/cloze_maps.h"

namespace attnlab {

// The question (--text, or a served request's text: "<document> @query <query with @placeholder>") through the
// run's reader: α, β, β̄ (aoa), s, the five likeliest answers, and which words the model read as <unk>. Throws
// attnlab::Error naming `where` when the line is not a question.
ClozePicture record_cloze_question(LoadedClozeRun& run, const std::string& text, const std::string& where);

}  // namespace attnlab
