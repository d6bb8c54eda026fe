// alignment_methods.cpp — the word matrices of every method from one recorded pass (alignment_methods.h).
#include "inspect/align/alignment_methods.h"

#include <cmath>

#include "inspect/align/alti.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/flow.h"
#include "inspect/maps/trace.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// One method's token matrix [T rows, S] pooled to words.
MethodMatrix method(const std::string& name, const std::string& family, int64_t layer, int64_t head,
                    const std::vector<double>& tokens, int64_t rows, const SentenceAlignment& pair) {
  return MethodMatrix{name, family, layer, head, pool_to_words(tokens, rows, pair.target, pair.source)};
}

// The cross-attention methods of one layer: each head, the mean over heads, the value norms summed over heads.
void add_cross_layer(const AttentionMapRecord& map, SentenceAlignment& pair) {
  const int64_t T = map.queries, S = map.keys, L = map.layer;
  const std::string layer = "l" + std::to_string(L);
  std::vector<double> mean(static_cast<size_t>(T * S), 0.0), norms(static_cast<size_t>(T * S), 0.0);
  for (int64_t h = 0; h < map.heads; ++h) {
    const auto begin = map.weights.begin() + h * T * S;
    const std::vector<double> head(begin, begin + T * S);               // [T, S] of head h
    pair.methods.push_back(method("cross." + layer + ".h" + std::to_string(h), "head", L, h, head, T, pair));
    for (int64_t n = 0; n < T * S; ++n) mean[n] += head[n] / double(map.heads);
    for (int64_t n = 0; n < T * S && !map.value_norms.empty(); ++n) norms[n] += map.value_norms[h * T * S + n];
  }
  pair.methods.push_back(method("cross." + layer + ".mean", "head_mean", L, -1, mean, T, pair));
  if (!map.value_norms.empty()) pair.methods.push_back(method("value_norms." + layer, "value_norms", L, -1, norms, T, pair));
}

}  // namespace

SentenceAlignment align_sentence(LoadedRun& run, const std::string& source, const std::string& target,
                                 const std::string& where) {
  SentenceAlignment pair;
  pair.source = split_into_word_pieces(run.config, *run.tokenizers.src, source, "the source of " + where);
  pair.target = split_into_word_pieces(run.config, *run.tokenizers.tgt, target, "the target of " + where);
  SentenceTrace trace;
  const AttentionPicture picture = record_attention(run, source, target, 1, 0, &trace);
  const int64_t S = static_cast<int64_t>(pair.source.ids.size()), T = static_cast<int64_t>(pair.target.ids.size()) + 1;
  if (static_cast<int64_t>(picture.source_tokens.size()) != S || static_cast<int64_t>(picture.decoding.size()) != T) {
    throw Error(where + ": the recorded pass has " + std::to_string(picture.source_tokens.size()) + " source tokens and " +
                std::to_string(picture.decoding.size()) + " decoder positions, expected " + std::to_string(S) + " and " +
                std::to_string(T));
  }
  add_picture_methods(picture, pair);
  try {
    const AltiPlus alti = alti_plus(picture.maps, trace, *run.model, S, T);
    pair.methods.push_back(method("alti_plus", "alti_plus", -1, -1, alti.decoder_source, T, pair));
  } catch (const Error& e) {
    pair.alti_error = e.what();
  }
  for (const DecodingStep& step : picture.decoding) pair.log_prob.push_back(std::log(step.chosen_probability));
  return pair;
}

void add_picture_methods(const AttentionPicture& picture, SentenceAlignment& pair) {
  const auto T = static_cast<int64_t>(picture.target_output_tokens.size());
  for (const AttentionMapRecord& map : picture.maps) {
    if (map.type == "cross" && !map.keys_are_slots()) add_cross_layer(map, pair);
  }
  pair.methods.push_back(method("rollout", "rollout", -1, -1, picture.rollout.decoder_source, T, pair));
  if (picture.attribution.steps > 0) {
    const Attribution& a = picture.attribution;
    pair.methods.push_back(method("gradient_x_input", "gradient_x_input", -1, -1, a.gradient_x_input, T, pair));
    pair.methods.push_back(method("integrated_gradients", "integrated_gradients", -1, -1, a.integrated, T, pair));
  }
}

void add_gradient_methods(Seq2Seq& model, SentenceAlignment& pair, int64_t integration_steps) {
  std::vector<int32_t> decoder_input{bos_id}, target_output = pair.target.ids;   // bos y …  →  y … </s>
  decoder_input.insert(decoder_input.end(), pair.target.ids.begin(), pair.target.ids.end());
  target_output.push_back(eos_id);
  const Attribution a = attribute_to_source(model, pair.source.ids, decoder_input, target_output, integration_steps);
  const int64_t T = static_cast<int64_t>(target_output.size());
  pair.methods.push_back(method("gradient_x_input", "gradient_x_input", -1, -1, a.gradient_x_input, T, pair));
  pair.methods.push_back(method("integrated_gradients", "integrated_gradients", -1, -1, a.integrated, T, pair));
}

std::vector<std::string> kind_notes(const ModelConfig& config) {
  std::vector<std::string> notes;
  const std::pair<const char*, const AttentionConfig*> uses[] = {{"encoder self-attention", &config.encoder_attention},
                                                                 {"decoder self-attention", &config.decoder_attention},
                                                                 {"cross-attention", &config.cross_attention}};
  for (const auto& [use, attention] : uses) {
    const std::string is = std::string(use) + " is " + name_of(attention->kind) + ": ";
    switch (attention->kind) {
      case AttentionKind::external:
        notes.push_back(is + "its weights are over learned memory slots, not tokens; rollout and ALTI+ count its layers "
                             "as mixing no tokens");
        break;
      case AttentionKind::linear:
        notes.push_back(is + "it never forms weights; the ones it implies, phi(q_i).phi(k_j) / sum_k phi(q_i).phi(k_k), "
                             "are scored");
        break;
      case AttentionKind::hard:
        notes.push_back(is + "its recorded weights are the distribution a it draws a key from (hard_eval " +
                        name_of(attention->hard_eval) + "); ALTI+ follows the key it chose");
        break;
      case AttentionKind::local_p:
        notes.push_back(is + "its rows sum to less than 1 (a softmax times a Gaussian); argmax and ranking do not care");
        break;
      default:
        break;
    }
  }
  return notes;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
