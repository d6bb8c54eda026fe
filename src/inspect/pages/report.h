// report.h — one HTML page about a training run: how it learned, what it translates, where it looks.
//
// Read from the run folder:
//   metrics.jsonl   {"type":"train", step, loss, lr, tokens_per_s, elapsed_s, …} every log_every steps, and
//                   {"type":"valid", step, loss, perplexity, token_accuracy[, exact_match][, bleu]} every valid_every
// Drawn (inline SVG, svg.h): training and validation loss against steps (log scale: a loss falls by factors),
// the learning rate of the schedule, and the validation quality measures (exact match, token accuracy, and BLEU
// when the metrics carry it). Then a few sample translations (source, reference, the model's output) from the
// run's test split (valid when there is none), and the attention grid of one sentence (attention_page.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inspect/maps/attention_maps.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct TrainRecord {
  int64_t step = 0;
  double loss = 0, lr = 0, tokens_per_s = 0, elapsed_s = 0;
};

struct ValidRecord {
  int64_t step = 0;
  double loss = 0, perplexity = 0, token_accuracy = 0;
  std::optional<double> exact_match;   // a translation's; a language model's validation has none
  std::optional<double> bleu;   // present once validation computes BLEU
};

struct TrainingHistory {
  std::vector<TrainRecord> train;
  std::vector<ValidRecord> valid;
};

// Reads metrics.jsonl. Lines of other types are skipped; a line that is not JSON, or a train / valid line
// without one of the fields above, is an attnlab::Error naming the file and line.
TrainingHistory read_metrics(const std::string& path);

struct SampleTranslation {
  std::string source, reference, output;
};

struct ReportInputs {
  std::string run_dir;
  std::string config_summary;                 // one line: model shape and attention kinds
  TrainingHistory history;
  bool language_model = false;                // samples are continuations: source = the prompt, reference = the
                                              // line's rest, output = the model's greedy continuation
  std::string samples_from;                   // which split the samples are from, or why there are none
  std::vector<SampleTranslation> samples;
  std::optional<AttentionPicture> attention;  // the attention of one sample sentence
};

// The whole page (html_document of attention_page.h).
std::string report_html(const ReportInputs& inputs);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
