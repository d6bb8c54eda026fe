// alignment_report.cpp — a split scored by every method (alignment_report.h).
#include "inspect/align/alignment_report.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>

#include "data/corpus.h"
#include "decode/batched.h"
#include "decode/greedy.h"
#include "inspect/align/alignment_methods.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

AlignmentCorpus read_alignment_corpus(const RunConfig& config, const std::string& split) {
  const DataConfig& data = config.data;
  const bool valid = split == "valid";
  if (!valid && split != "test") throw Error("the split to align is valid or test, not '" + split + "'");
  AlignmentCorpus corpus;
  corpus.source_file = valid ? data.valid_src : data.test_src;
  corpus.target_file = valid ? data.valid_tgt : data.test_tgt;
  if (corpus.source_file.empty() || corpus.target_file.empty()) {
    throw Error("the run's config names no " + split + " split as two files (data." + split + "_src and data." + split +
                "_tgt); gold alignments go with a target file, FILE.align beside FILE");
  }
  corpus.sources = read_lines(corpus.source_file);
  corpus.targets = read_lines(corpus.target_file);
  if (corpus.sources.size() != corpus.targets.size()) {
    throw Error(corpus.source_file + " has " + std::to_string(corpus.sources.size()) + " lines but " +
                corpus.target_file + " has " + std::to_string(corpus.targets.size()));
  }
  corpus.alignment_file = alignment_path_for(corpus.target_file);
  if (!path_exists(corpus.alignment_file)) {
    throw Error("this corpus has no alignments: " + corpus.alignment_file + " is missing; regenerate it with attnlab " +
                "corpus --task toy-en-fr --out DIR (it writes the gold .align and .tags beside the text)");
  }
  corpus.gold = read_alignments(corpus.alignment_file, corpus.sources, corpus.targets);
  const std::string tags_file = alignment_path_for(corpus.target_file, ".tags");
  if (path_exists(tags_file)) {
    corpus.tags_file = tags_file;
    corpus.tags = read_tags(tags_file, corpus.targets);
  }
  return corpus;
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The model's own translation of every source (decode settings of the run), as target ids; empty for an empty line.
std::vector<std::vector<int32_t>> own_translations(LoadedRun& run, const std::vector<std::string>& sources) {
  std::vector<std::vector<int32_t>> encoded;
  for (const std::string& source : sources) encoded.push_back(run.tokenizers.src->encode(clean_like_training(run.config, source)));
  return translate_batched(*run.model, encoded, run.config.decode);
}

// The report's entry for `matrix`, made on first sight.
MethodScore& score_of(AlignmentReport& report, const MethodMatrix& matrix) {
  for (MethodScore& score : report.methods) {
    if (score.name == matrix.name) return score;
  }
  MethodScore& score = report.methods.emplace_back();
  score.name = matrix.name, score.family = matrix.family, score.layer = matrix.layer, score.head = matrix.head;
  return score;
}

// One pair's hard alignments counted into every method's score.
void count_pair(const SentenceAlignment& pair, const Alignment& gold, const std::vector<PhenomenonTag>& tags, bool own,
                AlignmentReport& report) {
  const int64_t J = static_cast<int64_t>(pair.target.words.size()), I = static_cast<int64_t>(pair.source.words.size());
  for (const MethodMatrix& matrix : pair.methods) {
    const std::vector<real> weights(matrix.words.begin(), matrix.words.end());   // [J, I]
    const std::vector<AlignmentLink> links = argmax_alignment(weights.data(), J, I);
    MethodScore& score = score_of(report, matrix);
    const AlignmentCounts counts = count_alignment(links, gold);
    score.reference += counts;
    if (own) score.own += counts, ++score.own_sentences;
    for (const PhenomenonTag& tag : tags) score.phenomena[tag.name] += count_alignment(links, gold, tag.target_words);
    ++score.sentences;
  }
}

// The deletion test of one pair, added to every method's sums and the random ranking's.
void count_deletions(Seq2Seq& model, const SentenceAlignment& pair, const FaithfulnessOptions& options, uint64_t index,
                     AlignmentReport& report) {
  const std::vector<DeletionSums> sums = deletion_sums(model, pair, options, index);
  for (size_t m = 0; m < pair.methods.size(); ++m) score_of(report, pair.methods[m]).deletion += sums[m];
  report.random += sums.back();
}

void note_once(AlignmentReport& report, const std::string& note) {
  for (const std::string& n : report.notes) {
    if (n == note) return;
  }
  report.notes.push_back(note);
}

}  // namespace

AlignmentReport score_alignments(LoadedRun& run, const AlignmentCorpus& corpus, const AlignmentScoreOptions& options) {
  AlignmentReport report;
  report.checkpoint = run.checkpoint_path, report.step = run.step;
  report.integration_steps = options.integration_steps, report.deletions = options.faithfulness.K;
  report.notes = kind_notes(run.model->config());
  const size_t pairs = options.limit > 0 ? std::min(corpus.sources.size(), static_cast<size_t>(options.limit))
                                         : corpus.sources.size();
  const std::vector<std::string> sources(corpus.sources.begin(), corpus.sources.begin() + static_cast<int64_t>(pairs));
  Clock::time_point start = Clock::now();
  const std::vector<std::vector<int32_t>> own = own_translations(run, sources);
  report.seconds_translation = seconds_since(start);
  const int64_t positions = position_limit(run.model->config());
  double nll = 0;
  int64_t tokens = 0;
  Clock::time_point last_log = Clock::now();
  for (size_t k = 0; k < pairs; ++k) {
    const std::string where = "line " + std::to_string(k + 1) + " of " + corpus.source_file + " / " + corpus.target_file;
    if (corpus.sources[k].find_first_not_of(' ') == std::string::npos ||
        corpus.targets[k].find_first_not_of(' ') == std::string::npos) {
      ++report.skipped_empty;
      continue;
    }
    const size_t S = run.tokenizers.src->encode(clean_like_training(run.config, corpus.sources[k])).size();
    const size_t T = run.tokenizers.tgt->encode(clean_like_training(run.config, corpus.targets[k])).size() + 1;   // </s>
    if (static_cast<int64_t>(std::max(S, T)) > positions) {
      ++report.skipped_long;
      continue;
    }
    start = Clock::now();
    SentenceAlignment pair = align_sentence(run, corpus.sources[k], corpus.targets[k], where);
    if (!pair.alti_error.empty()) note_once(report, "alti_plus not scored: " + pair.alti_error);
    for (double lp : pair.log_prob) nll -= lp, ++tokens;
    report.seconds_attention += seconds_since(start);
    const bool gradients = report.gradient_sentences < options.gradient_limit;
    if (gradients) {
      start = Clock::now();
      add_gradient_methods(*run.model, pair, options.integration_steps);
      report.seconds_gradient += seconds_since(start);
    }
    const bool same = own[k] == pair.target.ids;
    count_pair(pair, corpus.gold[k], corpus.tags.empty() ? std::vector<PhenomenonTag>{} : corpus.tags[k], same, report);
    ++report.sentences, report.own_sentences += same;
    if (gradients) {
      start = Clock::now();
      count_deletions(*run.model, pair, options.faithfulness, k, report);
      report.seconds_deletion += seconds_since(start);
      ++report.gradient_sentences;
    }
    if (seconds_since(last_log) > 10) {
      spdlog::info("align: {} of {} pairs scored ({} with gradients and deletions)", k + 1, pairs, report.gradient_sentences);
      last_log = Clock::now();
    }
  }
  if (report.sentences == 0) {
    throw Error("no sentence pair to score in " + corpus.source_file + " / " + corpus.target_file + " (" +
                std::to_string(report.skipped_empty) + " with an empty side, " + std::to_string(report.skipped_long) +
                " longer than the model's positions)");
  }
  report.loss = tokens > 0 ? nll / double(tokens) : 0.0;
  return report;
}

const MethodScore* best_method(const AlignmentReport& report, const std::string& family) {
  const MethodScore* best = nullptr;
  for (const MethodScore& score : report.methods) {
    if (!family.empty() && score.family != family) continue;
    if (!best || score.reference.aer() < best->reference.aer()) best = &score;
  }
  return best;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
