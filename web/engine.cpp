// engine.cpp — attnlab in a web page: the functions the page calls, and nothing else (the browser build's entry
// point; cmake/browser.cmake says what that build contains).
//
// The page's JavaScript (web/live.js) writes a run's files — config.yaml, the tokenizer files, one checkpoint —
// into Emscripten's in-memory file system under a folder, and from then on asks the same questions the command
// line asks of a run folder on disk, through the same functions of the chapters:
//   attnlab_load(dir, which)     load_run(dir, which): the config, the tokenizers, the model and its weights; or,
//                                for a language model's run (model.task: language_model), load_language_model()
//   attnlab_attention(request)   what `attnlab serve` answers for POST /api/translate: record_attention() of
//                                {"text": …, "beam": B, "ig_steps": M} as attention.json (the explorer's data);
//                                with "interventions": [SPEC, …] (src/run/intervention_spec.h: ablate:…, mask:…),
//                                record_intervention() under them, as serve and `attnlab translate --intervene`
//                                answer — but for swap:…, which needs the run's other checkpoints: the page holds one.
//                                A language model's run continues the prompt: {"text": …, "max_tokens": 20,
//                                "temperature": 0, "top_k": 0, "top_p": 1, "seed": 1}, read by the very function
//                                serve reads it with (gpt/generation_request.h), record_text_attention() as serve
//                                answers: the same seed and settings, the same text
//   attnlab_translate(text)      what `attnlab translate --text` prints: translate_line() with the run's decode
// (training in the page: web/training.cpp). Every answer is a JSON text; a failure is {"error": "…"} with the
// chapter's own message. The returned pointer stays valid until the next call (one answer at a time: the page
// has one thread).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpt/generation_request.h"
#include "gpt/language_model.h"
#include "gpt/language_model_maps.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/intervention_maps.h"
#include "run/intervention_spec.h"
#include "run/run.h"
#include "util/error.h"

namespace attnlab {
namespace {

std::unique_ptr<LoadedRun> loaded;   // the run the page loaded last: a translation run,
std::unique_ptr<LoadedLanguageModel> loaded_language_model;   // or a language model's (the other is null)
std::string loaded_dir;              // its folder in the in-memory file system

// The plain translation an intervention is shown beside, kept for the last sentence and beam: a learner tries one
// change after another on the same sentence, and the plain model's answer does not change between them, so it is
// decoded once, not once per intervention. attnlab_load forgets it with the run it came from.
struct PlainTranslation {
  std::string text;
  int64_t beam = -1;
  ScoredTranslation scored;
};
PlainTranslation last_plain;
std::string answer;                  // the last answer, handed to the page as a C string

const char* answered(std::string text) {
  answer = std::move(text);
  return answer.c_str();
}

const char* failed(const std::string& message) { return answered(nlohmann::json{{"error", message}}.dump()); }

// Runs `work` and returns its answer, or the error a chapter threw as {"error": …}.
template <typename Work>
const char* answer_of(const Work& work) {
  try {
    return answered(work());
  } catch (const std::exception& e) {   // attnlab::Error, and anything the standard library throws
    return failed(e.what());
  }
}

LoadedRun& the_run() {
  if (loaded_language_model) {
    throw Error("the run loaded is a language model's (model.task: language_model): it continues a prompt, it does "
                "not translate");
  }
  if (!loaded) throw Error("no run is loaded: pick a run's files first (attnlab_load)");
  return *loaded;
}

// A language model's run, loaded as `attnlab generate` loads it; the page learns its sampling fields' limits.
std::string load_language_model_run(const char* dir, const char* which) {
  loaded_language_model = std::make_unique<LoadedLanguageModel>(load_language_model(dir, which));
  loaded_dir = dir;
  return nlohmann::json{{"step", loaded_language_model->step}, {"checkpoint", loaded_language_model->checkpoint_path},
                        {"task", "language_model"},
                        {"decoder", name_of(loaded_language_model->config.model.decoder_attention.kind)},
                        {"limits", limits_json(GenerationLimits{})}}
      .dump();
}

// The request's "interventions": none, or at most 64 SPEC strings of at most 200 bytes, as serve takes them. A swap
// is refused by name: the page holds one checkpoint of the run, and a swap takes a layer from another.
std::vector<std::string> interventions_in(const nlohmann::json& body) {
  const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json& specs = body.contains("interventions") ? body["interventions"] : none;
  if (!specs.is_array() || specs.size() > 64) throw Error("\"interventions\" is an array of at most 64 SPEC strings");
  for (const nlohmann::json& spec : specs) {
    if (!spec.is_string() || spec.get<std::string>().size() > 200) {
      throw Error("\"interventions\" holds " + spec.dump().substr(0, 60) + ", not a SPEC like \"ablate:cross:0.1\"");
    }
    if (spec.get<std::string>().rfind("swap:", 0) == 0) {
      throw Error("\"interventions\": " + spec.get<std::string>() + ": swapping a layer is not in the browser build "
                  "(the page holds one checkpoint of the run): use attnlab serve or attnlab translate --intervene");
    }
  }
  return specs.get<std::vector<std::string>>();
}

// What serve answers for a request with interventions (src/cli/serve/explorer_api.cpp): the picture under them,
// with the plain translation and both log-probabilities (intervention_maps.h).
std::string intervention_answer(const std::vector<std::string>& specs, const std::string& text, int64_t beam,
                                int64_t ig_steps) {
  LoadedRun& run = the_run();
  const Intervention intervention = read_interventions(specs, run, loaded_dir, "\"interventions\":", false);
  const AttentionPicture picture = record_intervention(run, text, intervention, beam, ig_steps);
  if (last_plain.text != text || last_plain.beam != beam) {
    last_plain = {text, beam, scored_translation(run, text, beam)};
  }
  return intervention_json(picture, last_plain.scored, specs, intervention);
}

}  // namespace
}  // namespace attnlab

extern "C" {

// Loads the run folder `dir` of the in-memory file system with the checkpoint `which` names, as --checkpoint does on
// the command line: "best", or a checkpoint file's path (the one the page was written with: attention --live
// --checkpoint average bundles checkpoints/average.safetensors and no other).
// Answers {"step": …, "checkpoint": …, "task": "translation", "encoder": kind, "decoder": kind, "cross": kind}, or for
// a language model's run {"step", "checkpoint", "task": "language_model", "decoder": kind, "limits": the sampling
// fields' bounds (gpt/generation_request.h, limits_json)}.
const char* attnlab_load(const char* dir, const char* which) {
  using namespace attnlab;
  return answer_of([dir, which] {
    last_plain = {};
    loaded.reset();
    loaded_language_model.reset();
    if (is_language_model_run(dir)) return load_language_model_run(dir, which);
    loaded = std::make_unique<LoadedRun>(load_run(dir, which));
    loaded_dir = dir;
    const ModelConfig& model = loaded->config.model;
    return nlohmann::json{{"step", loaded->step}, {"checkpoint", loaded->checkpoint_path}, {"task", "translation"},
                          {"encoder", name_of(model.encoder_attention.kind)},
                          {"decoder", name_of(model.decoder_attention.kind)},
                          {"cross", name_of(model.cross_attention.kind)}}
        .dump();
  });
}

// One sentence's attention.json, as `attnlab serve` answers it (src/cli/serve/explorer_api.h has the request),
// with "intervention" added when the request has "interventions"; for a language model's run, the prompt continued
// and the maps of the whole text, as serve answers (src/gpt/language_model_maps.h).
const char* attnlab_attention(const char* request) {
  using namespace attnlab;
  return answer_of([request] {
    const nlohmann::json body = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded() || !body.is_object() || !body.contains("text") || !body["text"].is_string()) {
      throw Error("the request is not {\"text\": \"a sentence\", \"beam\": 1, \"ig_steps\": 0}");
    }
    if (loaded_language_model) {
      const GenerationAsk ask = read_generation_ask(body, GenerationLimits{});
      return attention_json(record_text_attention(*loaded_language_model, body["text"].get<std::string>(), ask));
    }
    const auto beam = body.value("beam", int64_t{0});           // 0: the run's decode.beam
    const auto ig_steps = body.value("ig_steps", int64_t{0});   // 0: no gradient attribution
    if (beam < 0 || beam > 16 || ig_steps < 0 || ig_steps > 64) throw Error("beam is 0 … 16, ig_steps 0 … 64");
    const std::vector<std::string> specs = interventions_in(body);
    if (!specs.empty()) return intervention_answer(specs, body["text"].get<std::string>(), beam, ig_steps);
    return attention_json(record_attention(the_run(), body["text"].get<std::string>(), "", beam, ig_steps));
  });
}

// The translation of one line, as `attnlab translate --run DIR --text LINE` prints it: {"translation": …}.
const char* attnlab_translate(const char* line) {
  using namespace attnlab;
  return answer_of([line] {
    const LoadedRun& run = the_run();
    return nlohmann::json{{"translation", translate_line(run, run.config.decode, line, "the text")}}.dump();
  });
}

}  // extern "C"
