// alignment_output.h — an alignment report (alignment_report.h) as JSON and as pictures, for `attnlab align`.
//
// JSON, one object per checkpoint scored:
//   checkpoint, step, loss              the weights and their teacher-forced loss (nats per target token)
//   sentences, own_sentences, gradient_sentences, skipped_empty, skipped_long
//   integration_steps, deletions        integrated gradients' m; the deletion test's K
//   methods: [ {name, family, layer, head, sentences,
//               aer, precision, recall,                    teacher-forced on the reference
//               own: {aer, precision, recall, sentences},  on the pairs the model itself translates exactly
//               phenomena: {tag: {aer, precision, recall, links}},
//               aopc, deletion_curve: [mean drop at k = 1 … K], deletion_words} ]   (aopc null off the subset)
//   random: {aopc, deletion_curve, deletion_words}         the random ranking, the floor of the deletion test
//   best_head, best_method: {name, aer}                    the lowest AER on the reference
//   notes: ["cross-attention is linear: …", …]
//   seconds: {translation, attention, gradient, deletion}
// (`links` is |S| of the phenomenon's words: how many sure links the score stands on.)
// Pictures (SVG):
//   heads: a heatmap of AER, rows the decoder layers, columns the cross-attention heads and their mean
//   training: AER against the step for the cross-attention heads, for the other methods, and the loss beside them
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inspect/align/alignment_report.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

nlohmann::json alignment_json(const AlignmentReport& report);

// The heatmap of the heads' AER (a standalone SVG file). `title` names the run and split.
std::string alignment_heads_svg(const AlignmentReport& report, const std::string& title);

// AER over training, one report per checkpoint in step order: three line charts stacked in one SVG file.
std::string alignment_training_svg(const std::vector<AlignmentReport>& reports, const std::string& title);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
