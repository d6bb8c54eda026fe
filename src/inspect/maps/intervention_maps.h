// intervention_maps.h — one sentence's pictures under an intervention (src/model/intervention.h), for the
// explorer's interventions panel under `attnlab serve` (its "interventions" field, docs/guide/explorer-and-serve.md).
//
// The pictures are record_attention's (attention_maps.h), made while an InterventionScope holds the model and
// from the source with its masked words as <unk> (they show as "word?", read as <unk>). A switched-off head then
// shows what it has become: weights 0 (a_h = 0, so head_h = 0 · V_h; intervention.h) — its value norms are 0
// already, W_O,h being 0 — and the rollout is made again from the maps as they now are.
#pragma once

#include <string>

#include "inspect/maps/attention_maps.h"
#include "model/intervention.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// record_attention(run, source, "", beam, integration_steps) under `intervention`. The model is as it was after.
AttentionPicture record_intervention(LoadedRun& run, const std::string& source, const Intervention& intervention,
                                     int64_t beam = 0, int64_t integration_steps = 0);

// Σ_t log p(chosen token t) over the picture's decoding steps: log p(translation </s> | source) of the pass that
// drew it (the same number as decode/translation_log_prob.h's, to rounding).
double picture_log_prob(const AttentionPicture& picture);

// A translation and how likely the model finds it: what the panel shows beside the intervention's.
struct ScoredTranslation {
  std::string translation;
  double log_prob = 0;    // log p(translation </s> | source), decode/translation_log_prob.h
};
// The plain model's translation of `source` (the run's decode settings, beam > 0 overriding decode.beam, as
// record_attention translates) and its log-probability: no maps, no trace — a small part of a picture's cost.
ScoredTranslation scored_translation(LoadedRun& run, const std::string& source, int64_t beam = 0);

// serve's answer: the picture's attention.json with one more field,
//   "intervention": {"specs": [...], "described": [...], "log_prob": log p of the new translation,
//                    "original": {"translation": the plain model's, "log_prob": its}}
std::string intervention_json(const AttentionPicture& picture, const ScoredTranslation& original,
                              const std::vector<std::string>& specs, const Intervention& intervention);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
