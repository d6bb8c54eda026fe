// test_decode.cpp — facts about decoding (chapter "Decoding"):
//
//   * greedy decoding with the decoder's cache produces, token for token, what greedy decoding by recomputing
//     the whole prefix produces — for every attention kind in every place it can be (decode_test_support.h);
//   * beam search with a beam of 1 is greedy decoding;
//   * on hand-made probability tables: beam search finds a more probable sentence than greedy when greedy's
//     first choice leads to a worse total; the GNMT length penalty lp = ((5 + |Y|) / 6)^α lets a longer
//     sentence win once α is large enough; the length limit cuts hypotheses that never end; hypotheses are
//     followed through reordering; each sentence of a batch is searched independently;
//   * translate_ids keeps every output within max_len_ratio · source length + max_len_extra;
//   * no decoder ever outputs pad or bos, even from a model that ranks them first; unk is an output like any
//     other (a model that learned unk for words it lacks may say so);
//   * with learned positions no output is longer than model.max_len (the decoder's table ends there), and a
//     source longer than the table is an error naming model.max_len;
//   * a windowed decoder's self-attention cache holds only the window's keys, however long the output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "autograd/graph.h"
#include "decode/batched.h"
#include "decode/beam_search.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "decode_test_support.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::decode_testing;

namespace {

// A scorer from a table: prefix (without bos) → probabilities of the next token over a vocabulary of 5
// (pad, bos, eos, 3 = "a", 4 = "b"). A prefix not in the table ends: eos with probability 1.
// Each row remembers its own prefix, so a wrong reorder gives wrong probabilities.
class TableScorer : public NextTokenScorer {
 public:
  using Table = std::map<std::vector<int32_t>, std::vector<double>>;
  TableScorer(Table table, size_t sentences) : table_(std::move(table)), prefixes_(sentences) {}

  const std::vector<double>& next_log_probs(const std::vector<int32_t>& last_tokens) override {
    REQUIRE(last_tokens.size() == prefixes_.size());
    std::vector<double>& log_p = log_p_;
    log_p.clear();
    for (size_t r = 0; r < prefixes_.size(); ++r) {
      if (last_tokens[r] != bos_id) prefixes_[r].push_back(last_tokens[r]);
      auto found = table_.find(prefixes_[r]);
      std::vector<double> p = found != table_.end() ? found->second : std::vector<double>{0, 0, 1, 0, 0};
      for (double q : p) log_p.push_back(std::log(q));  // log 0 = −∞: impossible
    }
    ++calls;
    return log_p_;
  }
  void reorder(const std::vector<int64_t>& rows) override {
    std::vector<std::vector<int32_t>> kept;
    for (int64_t r : rows) kept.push_back(prefixes_.at(static_cast<size_t>(r)));
    prefixes_ = std::move(kept);
  }
  int calls = 0;

 private:
  Table table_;
  std::vector<std::vector<int32_t>> prefixes_;  // [rows]
  std::vector<double> log_p_;                   // the last call's [rows, V]
};

constexpr int32_t a = 3, b = 4;

// A model whose logits are the same at every output position, set by hand: the last decoder layer's final
// LayerNorm (post-LN) outputs its bias β = 1 (its gain γ is 0), and row v of the output projection is
// (logit_v / d_model) · 1, so logit_v = W_v · β. Tokens not in `logits` get logit 0.
std::unique_ptr<Seq2Seq> model_with_logits(const ModelConfig& c, const std::map<int32_t, real>& logits) {
  REQUIRE(c.norm == NormPlacement::post);
  auto model = random_model(c);
  const std::string last_norm = "decoder.layers." + std::to_string(c.decoder_layers - 1) + ".final_layer_norm.";
  bool found_norm = false;
  for (NamedParameter p : model->named_parameters()) {
    if (p.name == last_norm + "weight") {
      for (real& v : p.tensor.values()) v = 0;
      found_norm = true;
    }
    if (p.name == last_norm + "bias")
      for (real& v : p.tensor.values()) v = 1;
    if (p.name == "output_projection.weight") {
      std::fill(p.tensor.values().begin(), p.tensor.values().end(), real(0));
      for (auto [token, logit] : logits)
        for (int64_t k = 0; k < c.d_model; ++k) p.tensor.data()[token * c.d_model + k] = logit / real(c.d_model);
    }
  }
  REQUIRE(found_norm);
  return model;
}

// Every way of decoding: the reference and cached greedy, and translate_ids with beams of 1 and 3.
std::map<std::string, std::vector<std::vector<int32_t>>> decode_every_way(Seq2Seq& model, const TokenIds& src,
                                                                          DecodeConfig config) {
  std::map<std::string, std::vector<std::vector<int32_t>>> outputs;
  outputs["greedy_decode"] = greedy_decode(model, src, config);
  outputs["greedy_decode_cached"] = greedy_decode_cached(model, src, config);
  for (int64_t beam : {1, 3}) {
    config.beam = beam;
    outputs["beam " + std::to_string(beam)] = translate_ids(model, src, config);
  }
  return outputs;
}

}  // namespace

TEST_CASE("cached greedy decoding equals recomputing the prefix, token for token, for every attention kind") {
  for (const DecodeCase& c : decode_cases()) {
    SUBCASE(c.name.c_str()) {
      auto model = random_model(c.config);
      DecodeConfig config;  // limits of 1.5 · source length + 10 tokens
      TokenIds src = pad_batch(random_sentences(8, c.config.src_vocab));
      const auto reference = greedy_decode(*model, src, config);
      const auto cached = greedy_decode_cached(*model, src, config);
      CHECK(cached == reference);
      // The outputs are not trivial (not all equal, not all empty), so the comparison could fail.
      std::set<std::vector<int32_t>> distinct(reference.begin(), reference.end());
      size_t tokens = 0;
      for (const auto& out : reference) tokens += out.size();
      CHECK(distinct.size() >= 3);
      CHECK(tokens >= 20);
    }
  }
}

TEST_CASE("beam search with a beam of 1 is greedy decoding") {
  for (const DecodeCase& c : decode_cases()) {
    SUBCASE(c.name.c_str()) {
      auto model = random_model(c.config);
      DecodeConfig config;
      config.beam = 1;
      config.length_penalty = 1.0;  // irrelevant with one hypothesis of each length
      TokenIds src = pad_batch(random_sentences(6, c.config.src_vocab));
      std::vector<std::vector<int32_t>> beam_outputs;
      for (Hypothesis& h : beam_search_decode(*model, src, config)) beam_outputs.push_back(h.tokens);
      CHECK(beam_outputs == greedy_decode(*model, src, config));
      CHECK(translate_ids(*model, src, config) == beam_outputs);
    }
  }
}

TEST_CASE("beam search finds a more probable sentence than greedy when greedy's first choice leads nowhere") {
  // "a" is the likelier first token (0.6), but after it nothing is likely; "b" (0.4) is followed by eos (0.9).
  //   greedy:  a (0.6), then eos (0.4):          P(a)   = 0.24
  //   beam 2:  also keeps b, then eos (0.9):     P(b)   = 0.36
  TableScorer::Table table{{{}, {0, 0, 0, 0.6, 0.4}}, {{a}, {0, 0, 0.4, 0.3, 0.3}}, {{b}, {0, 0, 0.9, 0.05, 0.05}}};
  TableScorer greedy(table, 1);
  std::vector<Hypothesis> one = beam_search(greedy, {10}, 1, 0.0);
  CHECK(one[0].tokens == std::vector<int32_t>{a});
  CHECK(one[0].log_prob == doctest::Approx(std::log(0.24)));
  TableScorer wide(table, 1);
  std::vector<Hypothesis> two = beam_search(wide, {10}, 2, 0.0);
  CHECK(two[0].tokens == std::vector<int32_t>{b});
  CHECK(two[0].log_prob == doctest::Approx(std::log(0.36)));
  CHECK(two[0].length == 2);
  CHECK(two[0].score == doctest::Approx(std::log(0.36)));  // α = 0: lp = 1
}

TEST_CASE("the GNMT length penalty lets a longer sentence win once alpha is large enough") {
  CHECK(gnmt_length_penalty(1, 0.0) == 1.0);
  CHECK(gnmt_length_penalty(1, 1.0) == doctest::Approx(1.0));                 // (5 + 1) / 6
  CHECK(gnmt_length_penalty(7, 0.6) == doctest::Approx(std::pow(2.0, 0.6)));  // (5 + 7) / 6 = 2
  // "" (eos at once): P = 0.5, |Y| = 1.   "a" then eos: P = 0.45 · 0.9 = 0.405, |Y| = 2.
  //   α = 0:  log 0.5 = −0.693  >  log 0.405 = −0.904                         → ""
  //   α = 2:  −0.693 / 1  <  −0.904 / (7/6)² = −0.664                          → "a"
  TableScorer::Table table{{{}, {0, 0, 0.5, 0.45, 0.05}}, {{a}, {0, 0, 0.9, 0.1, 0}}};
  TableScorer plain(table, 1);
  CHECK(beam_search(plain, {10}, 2, 0.0)[0].tokens.empty());
  TableScorer penalised(table, 1);
  Hypothesis best = beam_search(penalised, {10}, 2, 2.0)[0];
  CHECK(best.tokens == std::vector<int32_t>{a});
  CHECK(best.score == doctest::Approx(std::log(0.405) / std::pow(7.0 / 6.0, 2.0)));
}

TEST_CASE("the length limit ends hypotheses that never produce eos, and counts eos as a token") {
  // "a" forever (0.9), eos never.
  TableScorer::Table table;
  std::vector<int32_t> prefix;
  for (int i = 0; i < 20; ++i, prefix.push_back(a)) table[prefix] = {0, 0, 0, 0.9, 0.1};
  for (int64_t beam : {1, 3}) {
    TableScorer scorer(table, 1);
    Hypothesis best = beam_search(scorer, {4}, beam, 0.6)[0];
    CHECK(best.tokens == std::vector<int32_t>{a, a, a, a});
    CHECK(best.length == 4);
    CHECK(scorer.calls == 4);  // one scorer call per generated token
  }
  // With eos likely at the last step, eos is the 4th token: 3 tokens of output.
  table[{a, a, a}] = {0, 0, 0.95, 0.05, 0};
  TableScorer scorer(table, 1);
  Hypothesis ended = beam_search(scorer, {4}, 1, 0.0)[0];
  CHECK(ended.tokens == std::vector<int32_t>{a, a, a});
  CHECK(ended.length == 4);
}

TEST_CASE("beam search follows each hypothesis through reordering, and searches batched sentences independently") {
  // Sentence 0 has limit 10, sentence 1 limit 1 (it ends at once, cut after its first token). The table is the
  // one of the greedy-versus-beam case, so sentence 0's answer is b: found only by following row b's history.
  TableScorer::Table table{{{}, {0, 0, 0, 0.6, 0.4}}, {{a}, {0, 0, 0.4, 0.3, 0.3}}, {{b}, {0, 0, 0.9, 0.05, 0.05}}};
  TableScorer scorer(table, 3);
  std::vector<Hypothesis> best = beam_search(scorer, {10, 1, 10}, 2, 0.0);
  CHECK(best[0].tokens == std::vector<int32_t>{b});
  CHECK(best[1].tokens == std::vector<int32_t>{a});
  CHECK(best[1].length == 1);
  CHECK(best[2].tokens == std::vector<int32_t>{b});
}

TEST_CASE("translate_ids keeps every output within max_len_ratio · source length + max_len_extra") {
  DecodeCase c = decode_cases().front();
  auto model = random_model(c.config);
  const auto sentences = random_sentences(6, c.config.src_vocab);
  for (int64_t beam : {1, 3}) {
    DecodeConfig config;
    config.beam = beam;
    config.max_len_ratio = 0.5;
    config.max_len_extra = 1;
    const auto outputs = translate_ids(*model, pad_batch(sentences), config);
    REQUIRE(outputs.size() == sentences.size());
    bool some_at_the_limit = false;
    for (size_t i = 0; i < sentences.size(); ++i) {
      const auto limit = static_cast<size_t>(0.5 * double(sentences[i].size())) + 1;
      CHECK(outputs[i].size() <= limit);
      some_at_the_limit = some_at_the_limit || outputs[i].size() == limit;
    }
    CHECK(some_at_the_limit);
  }
  DecodeConfig bad;
  bad.beam = 0;
  CHECK_THROWS_AS(translate_ids(*model, pad_batch(sentences), bad), Error);
}

TEST_CASE("no decoder outputs pad or bos, even from a model that ranks them first") {
  // pad is the likeliest token, bos the next; eos comes after them, so every sentence ends at once.
  auto model = model_with_logits(decode_cases().front().config, {{pad_id, 10}, {bos_id, 9}, {eos_id, 8}});
  const TokenIds src = pad_batch(random_sentences(4, 17));
  for (const auto& [way, outputs] : decode_every_way(*model, src, DecodeConfig{})) {
    const std::string& way_name = way;
    CAPTURE(way_name);
    REQUIRE(outputs.size() == 4);
    for (const auto& out : outputs) CHECK(out.empty());
  }
}

TEST_CASE("unk is an output like any other: a model that ranks it first after pad and bos says unk") {
  auto model =
      model_with_logits(decode_cases().front().config, {{pad_id, 10}, {bos_id, 9}, {unk_id, 8}, {eos_id, -20}});
  const std::vector<std::vector<int32_t>> sentences{{4, 5}, {6, 7, 8, 9}};
  DecodeConfig config;  // limits 1.5 · 2 + 10 = 13 and 1.5 · 4 + 10 = 16
  for (const auto& [way, outputs] : decode_every_way(*model, pad_batch(sentences), config)) {
    const std::string& way_name = way;
    CAPTURE(way_name);
    CHECK(outputs[0] == std::vector<int32_t>(13, unk_id));  // eos never wins: cut at the length limit
    CHECK(outputs[1] == std::vector<int32_t>(16, unk_id));
  }
}

TEST_CASE("with learned positions no output is longer than model.max_len, the end of the decoder's table") {
  ModelConfig c = decode_cases().front().config;
  c.positional = PositionalKind::learned;
  c.max_len = 6;
  // unk is the likeliest output, and eos less likely than any other token, so that even beam search's three
  // hypotheses all run on to the length limit (more than 2 · beam candidates beat every eos).
  auto model = model_with_logits(c, {{unk_id, 8}, {eos_id, -8}});
  // Limits 1.5 · 1 + 10 = 11 and 1.5 · 4 + 10 = 16 tokens, both past the 6 positions bos … y_5 can use.
  const std::vector<std::vector<int32_t>> sentences{{4}, {6, 7, 8, 9}};
  for (const auto& [way, outputs] : decode_every_way(*model, pad_batch(sentences), DecodeConfig{})) {
    const std::string& way_name = way;
    CAPTURE(way_name);
    CHECK(outputs == std::vector<std::vector<int32_t>>(2, std::vector<int32_t>(6, unk_id)));
  }
  // Limits below the table are kept: 0.5 · 4 + 1 = 3 tokens.
  DecodeConfig short_limit;
  short_limit.max_len_ratio = 0.5;
  short_limit.max_len_extra = 1;
  CHECK(translate_ids(*model, pad_batch({{6, 7, 8, 9}}), short_limit)[0].size() == 3);
}

TEST_CASE("a source longer than the learned positional table is an error naming model.max_len") {
  ModelConfig c = decode_cases().front().config;
  c.positional = PositionalKind::learned;
  c.max_len = 6;
  auto model = random_model(c);
  const std::vector<std::vector<int32_t>> sentences{{4, 5}, {4, 5, 6, 7, 8, 9, 10}};  // 7 tokens > 6
  for (int64_t beam : {1, 3}) {
    DecodeConfig config;
    config.beam = beam;
    CHECK_THROWS_WITH_AS(translate_ids(*model, pad_batch(sentences), config),
                         doctest::Contains("7 tokens, more than model.max_len = 6"), Error);
  }
  CHECK(translate_ids(*model, pad_batch({{4, 5, 6, 7, 8, 9}}), DecodeConfig{}).size() == 1);  // 6 fit
}

TEST_CASE("a windowed decoder's self-attention cache holds only the window's keys, however long the output") {
  // Window [2, 1]: a causal query at position i sees keys i − 2 … i, so 3 keys per row and head are all a step
  // needs; 60 steps must not keep 60. Every softmax kind that takes a window, each step's logits checked
  // against decoder_logits() of the whole prefix (so the keys the cache drops are ones no query needed).
  for (AttentionKind kind :
       {AttentionKind::scaled_dot, AttentionKind::additive, AttentionKind::simplified, AttentionKind::sagan}) {
    SUBCASE(name_of(kind).c_str()) {
      AttentionConfig window;
      window.kind = kind;
      window.has_window = true;
      window.window_left = 2;
      window.window_right = 1;
      ModelConfig c = small_config(window, AttentionConfig{});
      auto model = random_model(c);
      NoGradGuard no_grad;
      ForwardContext ctx;
      const TokenIds src = pad_batch(random_sentences(2, c.src_vocab));
      const Tensor memory = model->encode(src, ctx);
      const int64_t steps = 60;
      DecoderState state = model->start_decoding(memory, src, steps);
      std::vector<std::vector<int32_t>> prefixes(2, std::vector<int32_t>{bos_id});
      Generator tokens(5);
      double worst = 0;
      for (int64_t t = 0; t < steps; ++t) {
        const Tensor step_logits =
            model->decode_step(TokenIds{{2, 1}, {prefixes[0].back(), prefixes[1].back()}}, state, ctx);  // [2, V]
        for (const AttentionCache& cache : state.self) {
          CHECK(cache.K.size(2) <= 3);  // [B, h, ≤ 3, d_k]
          CHECK(cache.V.size(2) <= 3);
        }
        const TokenIds prefix = pad_batch(prefixes);                          // [2, t + 1]
        const Tensor full = model->decoder_logits(prefix, memory, src, ctx);  // [2, t + 1, V]
        const int64_t V = full.size(2);
        for (int64_t b = 0; b < 2; ++b)
          for (int64_t v = 0; v < V; ++v) {
            const real at_t = full.data()[(b * (t + 1) + t) * V + v];  // position t of the prefix
            worst = std::max(worst, double(std::abs(step_logits.data()[b * V + v] - at_t)));
          }
        for (auto& p : prefixes) p.push_back(static_cast<int32_t>(tokens.integer(4, c.tgt_vocab)));
      }
      CHECK(worst < 1e-4);
    }
  }
}

// ---- Many sentences at once: sorted by length, batched, back in input order (decode/batched.h) ----------------

TEST_CASE("length_batches sorts by length, keeps every batch within batch_tokens and leaves out empty sources") {
  const std::vector<int64_t> lengths{5, 0, 2, 9, 2, 30, 5, 1};
  const std::vector<std::vector<size_t>> batches = length_batches(lengths, 10);
  std::vector<size_t> seen;
  int64_t previous = 0;
  for (const std::vector<size_t>& batch : batches) {
    REQUIRE(!batch.empty());
    int64_t longest = 0;
    for (size_t i : batch) {
      CHECK(lengths[i] >= previous);  // shortest first, across and within batches
      previous = lengths[i];
      longest = std::max(longest, lengths[i]);
      seen.push_back(i);
    }
    // Within the budget, unless one sentence alone is longer than it.
    CHECK((static_cast<int64_t>(batch.size()) * longest <= 10 || batch.size() == 1));
  }
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<size_t>{0, 2, 3, 4, 5, 6, 7});  // every source once, but the empty one
  // Equal lengths keep input order: 2 (index 2) before 2 (index 4).
  CHECK(batches.front() == std::vector<size_t>{7, 2, 4});  // 1 + 2 + 2: 3 sentences × 2 tokens ≤ 10
  CHECK_THROWS_AS(length_batches(lengths, 0), Error);
}

TEST_CASE("translating sentences in length-sorted batches gives each the output it gets alone, every attention kind") {
  for (const DecodeCase& c : decode_cases()) {
    SUBCASE(c.name.c_str()) {
      auto model = random_model(c.config);
      std::vector<std::vector<int32_t>> sources = random_sentences(12, c.config.src_vocab, 11);
      sources.insert(sources.begin() + 5, std::vector<int32_t>{});  // an empty line in the middle
      for (int64_t beam : {1, 3}) {
        DecodeConfig config;
        config.beam = beam;
        config.batch_tokens = 24;  // several batches, each padded
        const std::vector<std::vector<int32_t>> batched = translate_batched(*model, sources, config);
        REQUIRE(batched.size() == sources.size());
        CHECK(batched[5].empty());
        for (size_t i = 0; i < sources.size(); ++i) {
          if (sources[i].empty()) continue;
          CAPTURE(beam);
          CAPTURE(i);
          CHECK(batched[i] == translate_ids(*model, pad_batch({sources[i]}), config)[0]);
        }
      }
    }
  }
}
