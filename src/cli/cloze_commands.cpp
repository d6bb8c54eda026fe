// cloze_commands.cpp — `attnlab eval` and `attnlab attention` for a cloze run (model.task: cloze; the readers
// of src/model/cloze_reader.h). eval_command() and attention_command() hand a cloze run over to these.
//
//   eval       the accuracy and loss of the run's reader on --split valid|test, beside the most-frequent-noun
//              baseline (cloze_training.h); --json prints {"task", "split", "questions", "accuracy", "loss",
//              "frequency_baseline", "checkpoint", "step"}
//   attention  α, β, β̄ and s (aoa; s alone for as_reader) of one question (--text "<document> @query <query>")
//              as SVGs and index.html in --out, and/or as text with --terminal (inspect/maps/cloze_maps.h)
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "autograd/ops.h"
#include "cli/cloze_question.h"
#include "cli/commands.h"
#include "cloze/cloze_training.h"
#include "data/synthetic/cloze_question.h"
#include "inspect/maps/cloze_maps.h"
#include "util/error.h"

namespace attnlab {

int cloze_eval_command(const EvalCommandOptions& options) {
  if (options.split.empty() || !options.src.empty() || !options.ref.empty()) {
    throw Error("a cloze run is evaluated on a split of its config: attnlab eval --run " + options.run +
                " --split valid|test (--src/--ref are for translation runs)");
  }
  if (options.split != "valid" && options.split != "test") {
    throw Error("--split must be valid or test, not '" + options.split + "'");
  }
  LoadedClozeRun run = load_cloze_run(options.run, options.checkpoint);
  const ClozeSplit split = load_cloze_split(run.config, *run.tokenizers.src, options.split);
  if (split.examples.empty()) throw Error(split.description + ": no questions to evaluate");
  const ClozeScore score = evaluate_cloze(*run.reader, split);
  if (options.json) {
    nlohmann::json out{{"task", "cloze"},         {"reader", name_of(run.config.model.reader)},
                       {"split", options.split},  {"questions", score.questions},
                       {"accuracy", score.accuracy}, {"loss", score.loss},
                       {"frequency_baseline", score.frequency_baseline},
                       {"checkpoint", run.checkpoint_path}, {"step", run.step}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::printf("%s, %s reader, checkpoint %s (step %lld)\n", split.description.c_str(),
              name_of(run.config.model.reader).c_str(), run.checkpoint_path.c_str(), static_cast<long long>(run.step));
  std::printf("  questions            %lld\n", static_cast<long long>(score.questions));
  std::printf("  accuracy             %.1f%%\n", 100 * score.accuracy);
  std::printf("  loss                 %.4f   (-mean log P(answer))\n", score.loss);
  std::printf("  most frequent noun   %.1f%%   (the baseline that does not read the query)\n",
              100 * score.frequency_baseline);
  return 0;
}

ClozePicture record_cloze_question(LoadedClozeRun& run, const std::string& text, const std::string& where) {
  const ClozeBatch batch = cloze_question_batch(run, text, where);
  const ClozeQuestion question = split_cloze_question(text, where);
  NoGradGuard no_grad;
  ForwardContext ctx;
  AoaMaps maps;
  const bool aoa = run.config.model.reader == ReaderKind::aoa;
  const Tensor s = run.reader->document_attention(batch, ctx, aoa ? &maps : nullptr);   // [1, n]
  const Tensor P = pointer_sum(s, batch.document, run.reader->config().src_vocab);   // [1, V]
  // The document's words by P, best first, each once.
  std::vector<std::pair<std::string, double>> top;
  for (size_t i = 0; i < question.document.size(); ++i) {
    const std::string& word = question.document[i];
    if (std::none_of(top.begin(), top.end(), [&](const auto& t) { return t.first == word; })) {
      top.push_back({word, P.data()[batch.document.values[i]]});
    }
  }
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  top.resize(std::min<size_t>(top.size(), 5));
  ClozePicture picture = make_cloze_picture(question.document, question.query, s, aoa ? &maps : nullptr, top);
  picture.question = text;
  picture.reader = name_of(run.config.model.reader);
  picture.checkpoint = run.checkpoint_path;
  picture.step = run.step;
  for (size_t i = 0; i < question.document.size(); ++i) picture.document_unknown.push_back(batch.document.values[i] == unk_id);
  for (size_t j = 0; j < question.query.size(); ++j) picture.query_unknown.push_back(batch.query.values[j] == unk_id);
  return picture;
}

int cloze_attention_command(const AttentionCommandOptions& options) {
  LoadedClozeRun run = load_cloze_run(options.run, options.checkpoint);
  const ClozePicture picture = record_cloze_question(run, options.text, "--text");
  std::vector<std::string> written;
  if (!options.out.empty()) written = write_cloze_folder(picture, options.out);
  if (options.terminal) std::printf("%s", cloze_terminal_text(picture).c_str());
  if (!written.empty()) {
    std::printf("%zu files in %s; open %s\n", written.size(), options.out.c_str(), written.back().c_str());
  }
  return 0;
}

}  // namespace attnlab
