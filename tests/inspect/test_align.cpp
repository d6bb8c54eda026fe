// test_align.cpp — scoring attention against gold alignments (src/inspect/align/): tokens and words, every method's
// matrix, ALTI+, the deletion test, and a split scored end to end.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "inspect/align/alignment_methods.h"
#include "inspect/align/alignment_output.h"
#include "inspect/align/alignment_report.h"
#include "inspect/align/alti.h"
#include "inspect/align/faithfulness.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/trace.h"
#include "inspect_test_support.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;

namespace {

const std::string english = "a happy girl does not go .", french = "une fille heureuse ne va pas .";

// A run held in memory (inspect_test_support.h): an untrained model, no dropout, its self- and cross-attention of
// the kinds given, its tokenizer trained on the two sentences above (word, unless `tokenizer` says otherwise).
LoadedRun align_run(AttentionKind self_kind, AttentionKind cross_kind, NormPlacement norm = NormPlacement::post,
                    TokenizerKind tokenizer = TokenizerKind::word, int64_t layers = 2) {
  return testing::small_run(
      {self_kind, cross_kind, {english, french}, norm, tokenizer, layers, /*dropout=*/0, /*seed=*/5});
}

double row_sum(const MethodMatrix& m, int64_t j, int64_t I) {
  double sum = 0;
  for (int64_t i = 0; i < I; ++i) sum += m.words[j * I + i];
  return sum;
}

}  // namespace

TEST_CASE("the word tokenizer's tokens are the corpus's words; char tokens fall into their words, spaces into none") {
  LoadedRun words = align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const WordPieces w = split_into_word_pieces(words.config, *words.tokenizers.src, english, "line 1");
  CHECK(w.words.size() == 7);
  CHECK(w.word_of == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6});
  LoadedRun chars =
      align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot, NormPlacement::post, TokenizerKind::character);
  const WordPieces c = split_into_word_pieces(chars.config, *chars.tokenizers.src, "a girl .", "line 1");
  CHECK(c.words == std::vector<std::string>{"a", "girl", "."});
  CHECK(c.word_of == std::vector<int32_t>{0, -1, 1, 1, 1, 1, -1, 2});  // "a", " ", "g i r l", " ", "."
  // Through a whole pair: 3 × 3 word matrices, a head's rows still summing to 1 (sum over the pieces of a source
  // word, mean over the pieces of a target word; a space's row and column left out, so a little less).
  const SentenceAlignment pair = align_sentence(chars, "a girl .", "une fille .", "the char pair");
  for (const MethodMatrix& m : pair.methods) {
    CAPTURE(m.name);
    REQUIRE(m.words.size() == 9);
    for (int64_t j = 0; j < 3 && m.family == "head"; ++j)
      CHECK((row_sum(m, j, 3) > 0.5 && row_sum(m, j, 3) <= 1 + 1e-6));
  }
  CHECK_THROWS_WITH_AS(split_into_word_pieces(words.config, *words.tokenizers.src, "   ", "line 9 of x"),
                       "line 9 of x has no words", Error);
}

TEST_CASE(
    "pool_to_words sums over a word's source pieces and averages over its target pieces; the </s> row is dropped") {
  WordPieces source{{"ab", "c"}, {11, 12, 13}, {0, 0, 1}};                     // word 0 = tokens 0, 1
  WordPieces target{{"xy", "z"}, {21, 22, 23}, {0, 0, 1}};                     // word 0 = tokens 0, 1
  const std::vector<double> tokens = {0.1, 0.2, 0.7,                           // row 0 predicts target token 0
                                      0.3, 0.3, 0.4,                           // row 1 predicts target token 1
                                      0.0, 0.5, 0.5,                           // row 2 predicts target token 2
                                      9.0, 9.0, 9.0};                          // the </s> row
  const std::vector<double> words = pool_to_words(tokens, 4, target, source);  // [2, 2]
  REQUIRE(words.size() == 4);
  CHECK(words[0] == doctest::Approx((0.3 + 0.6) / 2));  // mean over rows 0, 1 of the sum over tokens 0, 1
  CHECK(words[1] == doctest::Approx((0.7 + 0.4) / 2));
  CHECK(words[2] == doctest::Approx(0.5));
  CHECK(words[3] == doctest::Approx(0.5));
  CHECK_THROWS_WITH_AS(pool_to_words(tokens, 2, target, source), doctest::Contains("does not cover 3 target tokens"),
                       Error);
}

TEST_CASE("for every attention kind, every method is a [target words × source words] matrix with the rows documented") {
  const std::vector<std::pair<AttentionKind, AttentionKind>> kinds = {
      {AttentionKind::scaled_dot, AttentionKind::scaled_dot}, {AttentionKind::additive, AttentionKind::additive},
      {AttentionKind::simplified, AttentionKind::simplified}, {AttentionKind::sagan, AttentionKind::sagan},
      {AttentionKind::linear, AttentionKind::linear},         {AttentionKind::external, AttentionKind::local_m},
      {AttentionKind::local_m, AttentionKind::local_p},       {AttentionKind::hard, AttentionKind::hard}};
  for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
    for (const auto& [self_kind, cross_kind] : kinds) {
      const std::string self_name = name_of(self_kind);
      CAPTURE(self_name);
      const std::string cross_name = name_of(cross_kind);
      CAPTURE(cross_name);
      CAPTURE(norm == NormPlacement::pre);
      LoadedRun run = align_run(self_kind, cross_kind, norm);
      SentenceAlignment pair = align_sentence(run, english, french, "the test pair");
      add_gradient_methods(*run.model, pair, 4);
      CHECK(pair.alti_error == "");  // every kind's layers split into per-token terms
      const int64_t J = 7, I = 7, heads = cross_kind == AttentionKind::sagan ? 1 : 2;
      CHECK(pair.methods.size() == size_t(2 * (heads + 2) + 4));  // per layer: heads, mean, norms; 4 whole-model
      CHECK(pair.log_prob.size() == 8);
      for (const MethodMatrix& m : pair.methods) {
        CAPTURE(m.name);
        REQUIRE(m.words.size() == size_t(J * I));
        for (int64_t j = 0; j < J; ++j) {
          const double sum = row_sum(m, j, I);
          if (m.family == "head" || m.family == "head_mean") {
            if (cross_kind == AttentionKind::local_p)
              CHECK(sum <= 1 + 1e-6);  // softmax times a Gaussian
            else
              CHECK(sum == doctest::Approx(1).epsilon(1e-5));
          }
          if (m.family == "rollout" || m.family == "alti_plus") CHECK((sum >= -1e-9 && sum <= 1 + 1e-9));
          for (int64_t i = 0; m.family == "value_norms" && i < I; ++i) CHECK(m.words[j * I + i] >= 0);
        }
      }
    }
  }
}

TEST_CASE(
    "ALTI+: every decoder row of [R_tgt | R_src] sums to 1, and weights that did not make a layer's output are "
    "refused") {
  LoadedRun run = align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  SentenceTrace trace;
  AttentionPicture picture = record_attention(run, english, french, 1, 0, &trace);
  const int64_t S = 7, T = 8;
  const AltiPlus alti = alti_plus(picture.maps, trace, *run.model, S, T);
  for (int64_t t = 0; t < T; ++t) {
    double row = 0;
    for (int64_t s = 0; s < S; ++s) row += alti.decoder_source[t * S + s];
    for (int64_t u = 0; u < T; ++u) row += alti.decoder_target[t * T + u];
    CHECK(row == doctest::Approx(1).epsilon(1e-9));
    for (int64_t u = t + 1; u < T; ++u) CHECK(alti.decoder_target[t * T + u] == 0);  // causal
  }
  // A planted mistake: the cross-attention of layer 1 with its keys shifted by one. Its weights times its values no
  // longer give the output the layer traced, and ALTI+ says which layer.
  for (AttentionMapRecord& map : picture.maps) {
    if (map.name != "decoder.layers.1.encoder_attn") continue;
    std::rotate(map.weights.begin(), map.weights.begin() + 1, map.weights.end());
  }
  CHECK_THROWS_WITH_AS(alti_plus(picture.maps, trace, *run.model, S, T),
                       doctest::Contains("decoder.layers.1.encoder_attn (scaled_dot) at position"), Error);
}

TEST_CASE(
    "ALTI+ of a one-layer encoder is the closeness share of each token's term, worked out by hand for one query") {
  // From the layer's input x (traced), its parameters and its weights: z_ij = Σ_h α_hij W_O^h (W_V^h x_j + b_V^h),
  // u_i = x_i + Σ_j z_ij + b_O, y_i = LN(u_i); T_i(j) = γ ⊙ (w − mean w) / σ(u_i), w = z_ij + δ_ij x_i; and
  // c_ij ∝ max(0, ‖y_i‖₁ − ‖y_i − T_i(j)‖₁).
  LoadedRun run =
      align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot, NormPlacement::post, TokenizerKind::word, 1);
  SentenceTrace trace;
  const AttentionPicture picture = record_attention(run, english, french, 1, 0, &trace);
  const AltiPlus alti = alti_plus(picture.maps, trace, *run.model, 7, 8);
  std::map<std::string, Tensor> p;
  for (const NamedParameter& parameter : run.model->named_parameters()) p[parameter.name] = parameter.tensor;
  Tensor x;
  for (const TracedTensor& stage : trace.encoder) {
    if (stage.name == "encoder.embed_positions") x = stage.value;  // [1, S, d]: layer 0's input
  }
  REQUIRE(x.defined());
  const std::string layer = "encoder.layers.0.self_attn";
  const Tensor &W_V = p[layer + ".v_proj.weight"], &b_V = p[layer + ".v_proj.bias"],
               &W_O = p[layer + ".out_proj.weight"], &b_O = p[layer + ".out_proj.bias"],
               &gamma = p[layer + "_layer_norm.weight"], &beta = p[layer + "_layer_norm.bias"];
  const AttentionMapRecord& map = picture.maps.front();
  REQUIRE(map.name == layer);
  const int64_t S = 7, d = 16, d_k = 8, i = 2;
  std::vector<std::vector<double>> w(S, std::vector<double>(d, 0.0));  // w_j = z_ij (+ x_i for j = i)
  std::vector<double> u(d, 0.0);
  for (int64_t j = 0; j < S; ++j) {
    for (int64_t h = 0; h < 2; ++h) {
      std::vector<double> v(d_k, 0.0);  // v_hj = W_V^h x_j + b_V^h
      for (int64_t c = 0; c < d_k; ++c) {
        v[c] = b_V.data()[h * d_k + c];
        for (int64_t k = 0; k < d; ++k) v[c] += double(W_V.data()[(h * d_k + c) * d + k]) * x.data()[j * d + k];
      }
      for (int64_t r = 0; r < d; ++r) {
        for (int64_t c = 0; c < d_k; ++c) w[j][r] += map.at(h, i, j) * double(W_O.data()[r * d + h * d_k + c]) * v[c];
      }
    }
    for (int64_t r = 0; r < d; ++r) u[r] += w[j][r];
  }
  for (int64_t r = 0; r < d; ++r) u[r] += x.data()[i * d + r] + b_O.data()[r], w[i][r] += x.data()[i * d + r];
  double mean = 0, var = 0;
  for (double value : u) mean += value / d;
  for (double value : u) var += (value - mean) * (value - mean) / d;
  const double sigma = std::sqrt(var + 1e-5);
  std::vector<double> y(d), share(S);
  double y_norm = 0, total = 0;
  for (int64_t r = 0; r < d; ++r)
    y[r] = gamma.data()[r] * (u[r] - mean) / sigma + beta.data()[r], y_norm += std::abs(y[r]);
  for (int64_t j = 0; j < S; ++j) {
    double w_mean = 0, distance = 0;
    for (double value : w[j]) w_mean += value / d;
    for (int64_t r = 0; r < d; ++r) distance += std::abs(y[r] - gamma.data()[r] * (w[j][r] - w_mean) / sigma);
    total += share[j] = std::max(0.0, y_norm - distance);
  }
  for (int64_t j = 0; j < S; ++j) CHECK(alti.encoder[i * S + j] == doctest::Approx(share[j] / total).epsilon(1e-4));
}

TEST_CASE(
    "ALTI+ gives a SAGAN cross-attention whose gate γ is still 0 no share, where rollout gives its weights half") {
  // γ starts at 0, so the untrained decoder reads nothing of the source: its vectors are all 0. Rollout composes the
  // weights and does not see that; ALTI+ measures the vectors.
  LoadedRun run = align_run(AttentionKind::scaled_dot, AttentionKind::sagan);
  const SentenceAlignment pair = align_sentence(run, english, french, "the test pair");
  for (const MethodMatrix& m : pair.methods) {
    CAPTURE(m.name);
    if (m.family != "rollout" && m.family != "alti_plus") continue;
    for (int64_t j = 0; j < 7; ++j) {
      if (m.family == "alti_plus") CHECK(row_sum(m, j, 7) == 0);
      if (m.family == "rollout") CHECK(row_sum(m, j, 7) == doctest::Approx(0.75));  // two layers: ½ + ½ · ½
    }
  }
}

TEST_CASE(
    "rankings put the highest score first, ties to the earlier word, NaN last; AOPC is the curve's mean with k = 0") {
  const double scores[] = {0.2, std::nan(""), 0.5, 0.2, 0.9};
  CHECK(rank_source_words(scores, 5) == std::vector<int32_t>{4, 2, 0, 3, 1});
  DeletionSums sums{{2.0, 4.0, 6.0}, 2};  // mean drops 1, 2, 3 at k = 1, 2, 3
  CHECK(sums.curve() == std::vector<double>{1.0, 2.0, 3.0});
  CHECK(sums.aopc() == doctest::Approx((0 + 1 + 2 + 3) / 4.0));
  sums += DeletionSums{{1.0, 1.0, 1.0}, 1};
  CHECK(sums.words == 3);
  CHECK(sums.curve()[0] == doctest::Approx(1.0));
}

TEST_CASE("the deletion test: the drop at k = 1 is what the model loses with that word <unk>, and k ≥ I deletes all") {
  LoadedRun run = align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const std::string source = "a girl .", target = "une fille .";
  const SentenceAlignment pair = align_sentence(run, source, target, "the test pair");
  const FaithfulnessOptions options{4, 7};
  const std::vector<DeletionSums> sums = deletion_sums(*run.model, pair, options, 3);
  REQUIRE(sums.size() == pair.methods.size() + 1);  // every method, then the random ranking
  for (const DeletionSums& s : sums) {
    CHECK(s.words == 3);
    CHECK(s.drop[2] == doctest::Approx(sums[0].drop[2]).epsilon(1e-6));  // k = 3 = I: every word deleted, any ranking
    CHECK(s.drop[3] == doctest::Approx(s.drop[2]).epsilon(1e-6));
  }
  // By hand, for the first method: each target word's top source word replaced by <unk>, the pair recorded again.
  const MethodMatrix& first = pair.methods.front();
  double expected = 0;
  for (int64_t j = 0; j < 3; ++j) {
    const int32_t top = rank_source_words(first.words.data() + j * 3, 3)[0];
    std::vector<std::string> words = pair.source.words;
    words[top] = "zzz";  // not in the vocabulary: <unk>
    const SentenceAlignment deleted =
        align_sentence(run, words[0] + " " + words[1] + " " + words[2], target, "deleted");
    expected += pair.log_prob[j] - deleted.log_prob[j];
  }
  CHECK(sums[0].drop[0] == doctest::Approx(expected).epsilon(1e-4));
  // The random ranking repeats with its seed and sentence, and changes with them.
  CHECK(deletion_sums(*run.model, pair, options, 3).back().drop == sums.back().drop);
}

namespace {

// A corpus of `pairs` copies of the test pair in DIR (test.en / test.fr) and the run's config pointing at it.
void write_corpus(LoadedRun& run, const std::filesystem::path& dir, int pairs) {
  std::ofstream en(dir / "test.en"), fr(dir / "test.fr");
  for (int k = 0; k < pairs; ++k) en << english << "\n", fr << french << "\n";
  run.config.data.test_src = (dir / "test.en").string(), run.config.data.test_tgt = (dir / "test.fr").string();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("a split's gold is read with clear errors: no .align, a wrong line count, an index outside the pair") {
  LoadedRun run = align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const auto dir = testing::fresh_directory("align", "gold_errors");
  write_corpus(run, dir, 2);
  const std::string missing = "this corpus has no alignments: " + (dir / "test.align").string() +
                              " is missing; regenerate it with attnlab corpus --task toy-en-fr --out DIR";
  CHECK_THROWS_WITH_AS(read_alignment_corpus(run.config, "test"), doctest::Contains(missing.c_str()), Error);
  write_file(dir / "test.align", "0-0\n");
  CHECK_THROWS_WITH_AS(read_alignment_corpus(run.config, "test"),
                       doctest::Contains("has 1 lines, but the corpus has 2"), Error);
  write_file(dir / "test.align", "0-0\n0-9\n");
  CHECK_THROWS_WITH_AS(read_alignment_corpus(run.config, "test"), doctest::Contains("test.align line 2"), Error);
  CHECK_THROWS_WITH_AS(read_alignment_corpus(run.config, "valid"), doctest::Contains("names no valid split"), Error);
  write_file(dir / "test.align", "0-0 1-2 2-1\n\n");
  const AlignmentCorpus corpus = read_alignment_corpus(run.config, "test");
  CHECK(corpus.gold.size() == 2);
  CHECK(corpus.tags.empty());  // no .tags: no phenomena, not an error
}

TEST_CASE(
    "a split scored end to end: a gold made from one head's own argmax gives that head AER 0, and the JSON has every "
    "field") {
  LoadedRun run = align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const auto dir = testing::fresh_directory("align", "end_to_end");
  write_corpus(run, dir, 3);
  // The gold: head 1 of layer 0's own argmax links, all sure; one tag over target words 3 and 5 (ne, pas).
  const SentenceAlignment pair = align_sentence(run, english, french, "the test pair");
  const std::vector<real> head(pair.methods[1].words.begin(), pair.methods[1].words.end());
  REQUIRE(pair.methods[1].name == "cross.l0.h1");
  const Alignment gold{argmax_alignment(head.data(), 7, 7), {}};
  const std::string line = format_alignment(gold) + "\n";
  write_file(dir / "test.align", line + line + line);
  write_file(dir / "test.tags", "negation@3,5\nnegation@3,5\nnegation@3,5\n");
  const AlignmentCorpus corpus = read_alignment_corpus(run.config, "test");
  AlignmentScoreOptions options;
  options.gradient_limit = 2, options.integration_steps = 2;
  const AlignmentReport report = score_alignments(run, corpus, options);
  CHECK(report.sentences == 3);
  CHECK(report.gradient_sentences == 2);
  CHECK(report.own_sentences <= 3);
  const MethodScore* best = best_method(report, "head");
  REQUIRE(best != nullptr);
  CHECK(best->reference.aer() == 0);
  CHECK(best_method(report)->reference.aer() == 0);
  for (const MethodScore& m : report.methods) {
    CAPTURE(m.name);
    if (m.name == "cross.l0.h1") CHECK((m.reference.precision() == 1 && m.reference.recall() == 1));
    CHECK(m.sentences == (m.family == "gradient_x_input" || m.family == "integrated_gradients" ? 2 : 3));
    CHECK(m.deletion.words == 2 * 7);
    CHECK(m.phenomena.at("negation").sure == 2 * m.sentences);  // two target words tagged, one sure link each
  }
  const nlohmann::json json = alignment_json(report);
  for (const char* key : {"checkpoint", "step", "loss", "sentences", "own_sentences", "gradient_sentences",
                          "skipped_empty", "skipped_long", "integration_steps", "deletions", "methods", "random",
                          "best_head", "best_method", "notes", "seconds"}) {
    CHECK_MESSAGE(json.contains(key), key);
  }
  for (const char* key : {"name", "family", "layer", "head", "sentences", "aer", "precision", "recall", "own",
                          "phenomena", "aopc", "deletion_curve", "deletion_words"}) {
    CHECK_MESSAGE(json["methods"][0].contains(key), key);
  }
  CHECK(json["methods"].size() == report.methods.size());
  CHECK(json["random"]["deletion_curve"].size() == 3);
  CHECK(alignment_heads_svg(report, "t").find("<svg") != std::string::npos);
}

TEST_CASE("where the model's own translation is the reference, the pair counts again in `own`, and only there") {
  LoadedRun run = align_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const auto dir = testing::fresh_directory("align", "own_translation");
  const std::vector<int32_t> ids =
      translate_for_pictures(*run.model, run.tokenizers.src->encode(english), run.config.decode);
  const std::string own = run.tokenizers.tgt->decode(ids);  // what the untrained model says
  REQUIRE(!own.empty());
  std::ofstream(dir / "test.en") << english << "\n" << english << "\n";
  std::ofstream(dir / "test.fr") << own << "\n" << french << "\n";  // pair 1: its own words; pair 2: not
  write_file(dir / "test.align", "\n\n");                           // no gold link: every link is a miss
  run.config.data.test_src = (dir / "test.en").string(), run.config.data.test_tgt = (dir / "test.fr").string();
  AlignmentScoreOptions options;
  options.gradient_limit = 0;
  const AlignmentReport report = score_alignments(run, read_alignment_corpus(run.config, "test"), options);
  CHECK(report.sentences == 2);
  CHECK(report.own_sentences == 1);
  const int64_t own_words =
      static_cast<int64_t>(split_into_word_pieces(run.config, *run.tokenizers.tgt, own, "own").words.size());
  for (const MethodScore& m : report.methods) {
    CAPTURE(m.name);
    CHECK(m.own_sentences == 1);
    CHECK(m.own.hypothesis == own_words);  // one link per target word of pair 1 only
    CHECK(m.reference.hypothesis == own_words + 7);
  }
}
