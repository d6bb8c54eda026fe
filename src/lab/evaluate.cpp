// evaluate.cpp — translate a test set, score it, and measure the model teacher-forced (see evaluate.h).
#include "lab/evaluate.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "autograd/graph.h"
#include "data/batching.h"
#include "data/corpus.h"
#include "decode/batched.h"
#include "decode/bleu.h"
#include "decode/chrf.h"
#include "decode/greedy.h"
#include "nn/context.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Sums the entropy of every real query row of every attention map it is handed, by kind. Which rows are real
// comes from the batch being run: source positions for the encoder, bos + target positions for the decoder.
class EntropyRecorder : public AttentionRecorder {
 public:
  void start_batch(const Batch& batch) {
    src_lengths_ = real_lengths(batch.src);
    tgt_lengths_ = real_lengths(batch.tgt_in);
  }

  void record(const std::string& name, const Tensor& weights) override {   // weights [B, h, T_q, T_k]
    const bool encoder = name.rfind("encoder.", 0) == 0;
    const bool cross = name.find("encoder_attn") != std::string::npos;
    Sum& sum = encoder ? encoder_ : cross ? cross_ : decoder_;
    const std::vector<int64_t>& query_lengths = encoder ? src_lengths_ : tgt_lengths_;
    const int64_t B = weights.size(0), heads = weights.size(1), Tq = weights.size(2), Tk = weights.size(3);
    const real* a = weights.data();
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t i = 0; i < std::min(Tq, query_lengths[static_cast<size_t>(b)]); ++i) {
          const real* row = a + ((b * heads + h) * Tq + i) * Tk;
          double entropy = 0;                                           // H = − Σ_j a_ij ln a_ij
          for (int64_t j = 0; j < Tk; ++j) {
            if (row[j] > 0) entropy -= static_cast<double>(row[j]) * std::log(static_cast<double>(row[j]));
          }
          sum.total += entropy;
          ++sum.rows;
        }
      }
    }
  }

  AttentionEntropy mean() const { return {encoder_.mean(), decoder_.mean(), cross_.mean()}; }

 private:
  struct Sum {
    double total = 0;
    int64_t rows = 0;
    double mean() const { return rows ? total / static_cast<double>(rows) : 0; }
  };
  Sum encoder_, decoder_, cross_;
  std::vector<int64_t> src_lengths_, tgt_lengths_;
};

}  // namespace

AttentionEntropy attention_entropy(Seq2Seq& model, const std::vector<Batch>& batches) {
  NoGradGuard no_grad;
  EntropyRecorder recorder;
  ForwardContext ctx{/*training=*/false, /*generator=*/nullptr, &recorder};
  for (const Batch& batch : batches) {
    recorder.start_batch(batch);
    model.forward(batch.src, batch.tgt_in, ctx);                              // [B, T, V], only the maps matter
  }
  return recorder.mean();
}

EvalResult evaluate(LoadedRun& run, std::vector<std::string> sources, std::vector<std::string> references,
                    int64_t beam, const std::function<std::string(size_t)>& name_source) {
  if (sources.size() != references.size()) {
    throw Error("evaluation needs one reference per source sentence: got " + std::to_string(sources.size()) +
                " sources and " + std::to_string(references.size()) + " references");
  }
  if (sources.empty()) throw Error("nothing to evaluate: the source text has no lines");
  if (beam < 1) throw Error("the beam size must be at least 1 (1 = greedy), got " + std::to_string(beam));
  for (std::string& s : sources) s = clean_like_training(run.config, s);
  for (std::string& r : references) r = clean_like_training(run.config, r);
  Seq2Seq& model = *run.model;
  const Tokenizer& src_tokenizer = *run.tokenizers.src;
  const Tokenizer& tgt_tokenizer = *run.tokenizers.tgt;

  // ---- every source must fit the model's positions: checked before any decoding, so the error comes at once ----
  std::vector<std::vector<int32_t>> encoded(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    encoded[i] = src_tokenizer.encode(sources[i]);
    const int64_t length = static_cast<int64_t>(encoded[i].size());
    if (length > position_limit(model.config())) {
      throw Error((name_source ? name_source(i) : "source sentence " + std::to_string(i + 1)) + " has " +
                  std::to_string(length) + " tokens, more than model.max_len = " +
                  std::to_string(model.config().max_len) + ", the positions this model learned; shorten, split or " +
                  "leave out that sentence (and its reference)");
    }
  }

  // ---- translate, sorted by length in batches of decode.batch_tokens (batched.h); an empty source line gets an
  // empty translation ----
  EvalResult result;
  DecodeConfig decode = run.config.decode;
  decode.beam = beam;
  std::vector<std::vector<int32_t>> outputs = translate_batched(model, encoded, decode);
  result.hypotheses.resize(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!encoded[i].empty()) result.hypotheses[i] = tgt_tokenizer.decode(outputs[i]);
  }
  result.sentences = static_cast<int64_t>(sources.size());
  result.bleu = corpus_bleu(result.hypotheses, references).score;
  result.chrf = corpus_chrf(result.hypotheses, references);
  int64_t exact = 0;
  for (size_t i = 0; i < sources.size(); ++i) exact += result.hypotheses[i] == references[i];
  result.exact_match = static_cast<double>(exact) / static_cast<double>(sources.size());

  // ---- teacher forced: loss, perplexity, token accuracy, attention entropy ----
  ParallelText text;
  text.description = "evaluation text";
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].empty() || references[i].empty()) continue;
    text.src.push_back(sources[i]);
    text.tgt.push_back(references[i]);
  }
  std::vector<EncodedPair> pairs = encode_pairs(text, src_tokenizer, tgt_tokenizer, run.config.data.max_len, nullptr);
  result.teacher_forced_pairs = static_cast<int64_t>(pairs.size());
  if (!pairs.empty()) {
    std::vector<Batch> batches = fixed_batches(pairs, run.config.train.batch_tokens);
    result.teacher_forced = run_validation(model, batches, pairs, /*decode_samples=*/0, decode);
    // A second forward pass over the same batches with a recorder: cheap next to decoding, which runs the
    // decoder once per output token.
    result.attention_entropy = attention_entropy(model, batches);
  }
  return result;
}

std::vector<HardEvalResult> evaluate_hard_modes(LoadedRun& run, const std::vector<std::string>& sources,
                                                const std::vector<std::string>& references, int64_t beam,
                                                const std::function<std::string(size_t)>& name_source) {
  std::vector<HardEvalResult> results;
  ModelConfig& model = run.config.model;
  std::vector<AttentionConfig*> hard;
  for (AttentionConfig* a : {&model.encoder_attention, &model.decoder_attention, &model.cross_attention}) {
    if (a->kind == AttentionKind::hard) hard.push_back(a);
  }
  if (hard.empty()) return results;
  const RunConfig saved_config = run.config;
  std::unique_ptr<Seq2Seq> trained = std::move(run.model);
  for (HardEval mode : all_choices<HardEval>()) {
    for (AttentionConfig* a : hard) a->hard_eval = mode;
    Generator unused(1);                                                     // every weight is copied below
    run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), unused);
    std::vector<NamedParameter> from = trained->named_parameters(), to = run.model->named_parameters();
    for (size_t p = 0; p < from.size(); ++p) {
      std::copy(from[p].tensor.data(), from[p].tensor.data() + from[p].tensor.numel(), to[p].tensor.data());
    }
    run.model->use_compute_path(trained->compute_path());
    results.push_back({mode, evaluate(run, sources, references, beam, name_source)});
  }
  run.model = std::move(trained);
  run.config = saved_config;
  return results;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
