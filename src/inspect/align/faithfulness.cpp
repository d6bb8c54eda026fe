// faithfulness.cpp — deletion curves and AOPC (faithfulness.h).
#include "inspect/align/faithfulness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "autograd/graph.h"
#include "autograd/ops.h"
#include "tensor/random.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

DeletionSums& DeletionSums::operator+=(const DeletionSums& other) {
  if (drop.size() < other.drop.size()) drop.resize(other.drop.size(), 0.0);
  for (size_t k = 0; k < other.drop.size(); ++k) drop[k] += other.drop[k];
  words += other.words;
  return *this;
}

std::vector<double> DeletionSums::curve() const {
  std::vector<double> mean(drop.size(), 0.0);
  for (size_t k = 0; k < drop.size() && words > 0; ++k) mean[k] = drop[k] / double(words);
  return mean;
}

double DeletionSums::aopc() const {
  const std::vector<double> mean = curve();
  return std::accumulate(mean.begin(), mean.end(), 0.0) / double(mean.size() + 1);   // the k = 0 term is 0
}

std::vector<int32_t> rank_source_words(const double* scores, int64_t I) {
  std::vector<int32_t> order(static_cast<size_t>(I));
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int32_t i) { return std::isfinite(scores[i]) ? scores[i] : -std::numeric_limits<double>::infinity(); };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return key(a) > key(b); });
  return order;
}

namespace {

using WordSet = std::vector<int32_t>;   // source words deleted, sorted

// Each distinct set of deleted words once: row 0 deletes nothing.
struct DeletionRows {
  std::map<WordSet, int64_t> row_of_set{{WordSet{}, 0}};
  std::vector<WordSet> sets{WordSet{}};
  int64_t row(WordSet set) {
    std::sort(set.begin(), set.end());
    auto [found, added] = row_of_set.emplace(set, static_cast<int64_t>(sets.size()));
    if (added) sets.push_back(std::move(set));
    return found->second;
  }
};

// log p(target token t) [rows, T + 1] (</s> last) of the teacher-forced pass with each row's words replaced by
// <unk>, in chunks of at most 2²² logits.
std::vector<double> token_log_probs(Seq2Seq& model, const SentenceAlignment& pair, const std::vector<WordSet>& sets) {
  const int64_t S = static_cast<int64_t>(pair.source.ids.size()), T = static_cast<int64_t>(pair.target.ids.size()) + 1;
  const int64_t V = model.config().tgt_vocab, rows = static_cast<int64_t>(sets.size());
  const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / (T * V));
  std::vector<int32_t> input{bos_id}, output = pair.target.ids;         // bos y_1 … y_m  →  y_1 … y_m </s>
  input.insert(input.end(), pair.target.ids.begin(), pair.target.ids.end());
  output.push_back(eos_id);
  std::vector<double> log_p(static_cast<size_t>(rows * T), 0.0);
  NoGradGuard no_graph;
  for (int64_t first = 0; first < rows; first += chunk) {
    const int64_t B = std::min(chunk, rows - first);
    std::vector<int32_t> src, tgt_in;
    for (int64_t r = first; r < first + B; ++r) {
      for (int64_t s = 0; s < S; ++s) {
        const int32_t word = pair.source.word_of[s];
        const bool deleted = std::binary_search(sets[r].begin(), sets[r].end(), word);
        src.push_back(deleted ? unk_id : pair.source.ids[s]);
      }
      tgt_in.insert(tgt_in.end(), input.begin(), input.end());
    }
    ForwardContext ctx;                                                   // inference: no dropout
    const Tensor logits = model.forward(TokenIds{Shape{B, S}, src}, TokenIds{Shape{B, T}, tgt_in}, ctx);   // [B, T, V]
    const Tensor lp = log_softmax(logits);                                // [B, T, V]
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t t = 0; t < T; ++t) log_p[(first + b) * T + t] = lp.data()[(b * T + t) * V + output[t]];
    }
  }
  return log_p;
}

// log p(word j) in row r: the sum over the word's target tokens.
double word_log_prob(const std::vector<double>& log_p, int64_t r, const WordPieces& target, int32_t j) {
  const int64_t T = static_cast<int64_t>(target.ids.size()) + 1;
  double sum = 0;
  for (int64_t t = 0; t + 1 < T; ++t) {
    if (target.word_of[t] == j) sum += log_p[r * T + t];
  }
  return sum;
}

// The random ranking of I words for each of J target words: a seeded Fisher–Yates shuffle each.
std::vector<std::vector<int32_t>> random_rankings(int64_t J, int64_t I, uint64_t seed) {
  Generator gen(seed);
  std::vector<std::vector<int32_t>> rankings;
  for (int64_t j = 0; j < J; ++j) {
    std::vector<int32_t> order(static_cast<size_t>(I));
    std::iota(order.begin(), order.end(), 0);
    for (int64_t n = I - 1; n > 0; --n) std::swap(order[n], order[gen.integer(0, n + 1)]);
    rankings.push_back(std::move(order));
  }
  return rankings;
}

}  // namespace

std::vector<DeletionSums> deletion_sums(Seq2Seq& model, const SentenceAlignment& pair, const FaithfulnessOptions& options,
                                        uint64_t sentence_seed) {
  if (options.K < 1) throw Error("faithfulness: the number of deletions K must be at least 1, not " + std::to_string(options.K));
  const int64_t J = static_cast<int64_t>(pair.target.words.size()), I = static_cast<int64_t>(pair.source.words.size());
  // rankings[m][j]: method m's source words for target word j, best first; the random ranking last.
  std::vector<std::vector<std::vector<int32_t>>> rankings;
  for (const MethodMatrix& m : pair.methods) {
    auto& per_word = rankings.emplace_back();
    for (int64_t j = 0; j < J; ++j) per_word.push_back(rank_source_words(m.words.data() + j * I, I));
  }
  rankings.push_back(random_rankings(J, I, options.seed * 1000003 + sentence_seed));
  // rows[m][j][k − 1]: the pass with the top k words of ranking m for word j deleted.
  DeletionRows deletions;
  std::vector<std::vector<std::vector<int64_t>>> rows(rankings.size());
  for (size_t m = 0; m < rankings.size(); ++m) {
    for (int64_t j = 0; j < J; ++j) {
      auto& per_k = rows[m].emplace_back();
      for (int64_t k = 1; k <= options.K; ++k) {
        const auto& order = rankings[m][j];
        per_k.push_back(deletions.row(WordSet(order.begin(), order.begin() + std::min(k, I))));
      }
    }
  }
  const std::vector<double> log_p = token_log_probs(model, pair, deletions.sets);
  std::vector<DeletionSums> sums(rankings.size(), DeletionSums{std::vector<double>(static_cast<size_t>(options.K), 0.0), J});
  for (size_t m = 0; m < rankings.size(); ++m) {
    for (int64_t j = 0; j < J; ++j) {
      const double intact = word_log_prob(log_p, 0, pair.target, static_cast<int32_t>(j));
      for (int64_t k = 0; k < options.K; ++k) {
        sums[m].drop[k] += intact - word_log_prob(log_p, rows[m][j][k], pair.target, static_cast<int32_t>(j));
      }
    }
  }
  return sums;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
