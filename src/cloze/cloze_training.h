// cloze_training.h — training and evaluating a cloze reader (cloze/cloze_reader.h) on a cloze corpus
// (data/synthetic/cloze.h): what `attnlab train` runs when the config says model.task: cloze, and what `attnlab eval`
// and `attnlab attention` read back.
//
// The data section names the corpus like a parallel text: data.train_src = train.question, data.train_tgt =
// train.answer (and valid_*, test_*). A question line is cut at @query into document and query; the answer must
// be one word that occurs in the document (else an error naming the file and line).
//
// One step: a batch of questions (train.batch_tokens / the longest training question's tokens of them, at least
// 1), loss = −mean log P(answer), backward, clip (train.clip_norm), the schedule's learning rate, Adam(W) — the
// same optimizer, schedule and clipping as translation, in the same loop (run/training_loop.h). Every
// train.valid_every steps and after the last step the valid split's loss and accuracy; best.safetensors when the
// loss is the lowest so far; a step checkpoint at the end. --resume and mpirun are refused for cloze runs (a short
// run restarts in minutes).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cloze/cloze_reader.h"
#include "data/tokenizers/tokenizer.h"
#include "run/config.h"
#include "run/run.h"
#include "run/trainer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The questions of one split as ids, with the words the frequency baseline needs.
struct ClozeSplit {
  std::string description;                             // "data/cloze/test.question + data/cloze/test.answer"
  std::vector<ClozeExample> examples;
  std::vector<std::vector<std::string>> documents;     // each document's words
  std::vector<std::string> answers;
};
// "train", "valid" or "test" of the config's data section. Throws attnlab::Error naming the file and line of a
// question that is malformed or whose answer is not one word of its document.
ClozeSplit load_cloze_split(const RunConfig& config, const Tokenizer& tokenizer, const std::string& split);

// How well a reader answers: accuracy = the share of questions whose highest-P document word is the answer;
// loss = −mean log P(answer); frequency_baseline = the share answered right by the document's most frequent noun
// (cloze_frequency_baseline), a reader that does not read the query.
struct ClozeScore {
  int64_t questions = 0;
  double loss = 0;
  double accuracy = 0;
  double frequency_baseline = 0;
};
ClozeScore evaluate_cloze(ClozeReader& reader, const ClozeSplit& split, int64_t batch_questions = 64);
// The accuracy of predicted answer ids against the right ones (the share equal, 0 for none).
double answer_accuracy(const std::vector<int32_t>& predicted, const std::vector<int32_t>& answers);

// Is this a cloze run? The request's config (its file, or the run folder's config.yaml on --resume) says
// model.task: cloze. False when there is no such file (train() then says what is missing).
bool is_cloze_request(const TrainRequest& request);
bool is_cloze_run(const std::string& run_dir);

// Trains a reader in a new run folder, with the training step of train/step.h. A start that fails before config.yaml
// is written leaves the folder as it was (StartAttempt, run/start_attempt.h).
TrainSummary train_cloze(const TrainRequest& request, TrainingObserver& observer);

// A trained cloze run: its config, tokenizer and reader with the weights of `which` (as load_run()).
struct LoadedClozeRun {
  RunConfig config;
  RunTokenizers tokenizers;
  std::unique_ptr<ClozeReader> reader;
  std::string checkpoint_path;
  int64_t step = 0;
};
LoadedClozeRun load_cloze_run(const std::string& run_dir, const std::string& which = "best");

// One question line (document @query query) as a batch of one for the run's reader; throws naming `where`.
ClozeBatch cloze_question_batch(const LoadedClozeRun& run, const std::string& line, const std::string& where);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
