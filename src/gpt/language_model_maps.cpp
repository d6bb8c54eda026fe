// language_model_maps.cpp — a language model's text and the maps of the one pass over it (language_model_maps.h).
#include "gpt/language_model_maps.h"

#include <spdlog/spdlog.h>

#include "autograd/graph.h"
#include "gpt/trace_text.h"
#include "inspect/maps/flow.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

void check_ask(const GenerationAsk& ask) {
  if (ask.max_tokens < 0 || ask.max_tokens > picture_tokens_most) {
    throw Error("max tokens must be from 0 to " + std::to_string(picture_tokens_most) + " (each adds a row and a "
                "column to every map), not " + std::to_string(ask.max_tokens));
  }
  check_sampling(ask.sampling);
}

// The next-token distribution at every position of the pass: the token the text has there and the likeliest five.
std::vector<DecodingStep> next_tokens(const SentenceTrace& trace, const std::vector<int32_t>& predicted,
                                      const AttentionPicture& picture, const Tokenizer& tokenizer) {
  std::vector<DecodingStep> steps;
  for (size_t t = 0; t < predicted.size(); ++t) {
    const std::vector<double> p = next_token_probabilities(trace, static_cast<int64_t>(t));   // [V]
    DecodingStep step{picture.target_output_tokens[t], p[predicted[t]], {}};
    for (int32_t id : likeliest_tokens(p, 5)) step.likeliest.emplace_back(visible_piece(tokenizer.pieces({id})[0]), p[id]);
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

AttentionPicture record_text_attention(LoadedLanguageModel& run, const std::string& prompt, const GenerationAsk& ask) {
  check_ask(ask);
  const std::vector<int32_t> prompt_text = prompt_ids(run, prompt);              // <s> p_1 … p_k
  std::vector<int32_t> continuation;
  if (ask.max_tokens > 0) {
    Generator generator(ask.seed);
    NoGradGuard no_graph;
    continuation = continue_text(*run.model, prompt_text, ask.max_tokens, ask.sampling, generator);
  }
  std::vector<int32_t> text = prompt_text;                                       // <s> t_1 … t_n
  text.insert(text.end(), continuation.begin(), continuation.end());
  if (text.size() < 2) {
    throw Error("the text to draw has no tokens: give a prompt with words in it, or ask for new tokens (max tokens > 0)");
  }
  const std::vector<int32_t> input(text.begin(), text.end() - 1);                // <s> t_1 … t_{n−1}  [T]
  const std::vector<int32_t> predicted(text.begin() + 1, text.end());            //     t_1 … t_n      [T]

  AttentionPicture picture;
  picture.generation = TextGeneration{prompt, run.tokenizer->decode(continuation),
                                      static_cast<int64_t>(prompt_text.size()) - 1, ask.max_tokens,
                                      ask.sampling.temperature, ask.sampling.top_k, ask.sampling.top_p, ask.seed};
  picture.source_text = prompt;
  picture.target_text = run.tokenizer->decode(predicted);
  picture.target_forced = ask.max_tokens == 0;
  picture.checkpoint = run.checkpoint_path;
  picture.step = run.step;
  for (const auto& piece : run.tokenizer->pieces(input)) picture.target_input_tokens.push_back(visible_piece(piece));
  for (const auto& piece : run.tokenizer->pieces(predicted)) picture.target_output_tokens.push_back(visible_piece(piece));

  AttentionMapCollector collector;                                               // the one pass, maps and stages
  const SentenceTrace trace = trace_text(*run.model, input, &collector);
  finish_maps(collector.maps, trace, *run.model, run.model->config());
  picture.maps = std::move(collector.maps);
  picture.decoding = next_tokens(trace, predicted, picture, *run.tokenizer);
  picture.rollout = attention_rollout(picture.maps, 0, static_cast<int64_t>(predicted.size()));
  picture.gold.why = "a language model has no source, so no alignment to a gold";
  spdlog::debug("recorded {} attention maps over '{}'", picture.maps.size(), picture.target_text);
  return picture;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
