// intervention_maps.cpp — the pictures of an intervention and serve's answer (intervention_maps.h).
#include "inspect/maps/intervention_maps.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "decode/translate.h"
#include "decode/translation_log_prob.h"
#include "inspect/maps/flow.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

AttentionPicture record_intervention(LoadedRun& run, const std::string& source, const Intervention& intervention,
                                     int64_t beam, int64_t integration_steps) {
  AttentionPicture picture;
  {
    const InterventionScope scope(*run.model, intervention);
    picture = record_attention(run, source, "", beam, integration_steps, nullptr, intervention.masked_source);
  }
  if (intervention.switched_off.empty()) return picture;
  for (const HeadRef& head : intervention.switched_off) {                     // a_h = 0 in its map
    const std::string name = attention_module_name(head.use, head.layer);
    for (AttentionMapRecord& map : picture.maps) {
      if (map.name != name || head.head >= map.heads) continue;
      const auto cells = static_cast<size_t>(map.queries * map.keys), first = static_cast<size_t>(head.head) * cells;
      std::fill(map.weights.begin() + first, map.weights.begin() + first + cells, 0.0);
    }
  }
  picture.rollout = attention_rollout(picture.maps, static_cast<int64_t>(picture.source_tokens.size()),
                                      static_cast<int64_t>(picture.target_output_tokens.size()));
  return picture;
}

double picture_log_prob(const AttentionPicture& picture) {
  double total = 0;
  for (const DecodingStep& step : picture.decoding) total += std::log(step.chosen_probability);
  return total;
}

ScoredTranslation scored_translation(LoadedRun& run, const std::string& source, int64_t beam) {
  DecodeConfig decode = run.config.decode;
  if (beam > 0) decode.beam = beam;
  const std::vector<int32_t> source_ids = encode_text(run, *run.tokenizers.src, source, "source text");
  const std::vector<int32_t> output = translate_for_pictures(*run.model, source_ids, decode);
  return {run.tokenizers.tgt->decode(output), translation_log_prob(*run.model, source_ids, output)};
}

std::string intervention_json(const AttentionPicture& picture, const ScoredTranslation& original,
                              const std::vector<std::string>& specs, const Intervention& intervention) {
  const nlohmann::ordered_json added = {
      {"specs", specs},
      {"described", intervention.described},
      {"log_prob", picture_log_prob(picture)},
      {"original", {{"translation", original.translation}, {"log_prob", original.log_prob}}}};
  // attention_json's object with one more key, written into its text before the closing brace: parsing the whole
  // answer (every map) again only to add a key took as long as drawing the picture in the browser build.
  std::string answer = attention_json(picture);
  while (!answer.empty() && answer.back() != '}') answer.pop_back();
  if (answer.empty()) throw Error("attention_json wrote no object");
  answer.pop_back();
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == ' ')) answer.pop_back();
  return answer + ",\n \"intervention\": " + added.dump() + "\n}\n";
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
