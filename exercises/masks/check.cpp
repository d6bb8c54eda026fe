// check.cpp — attention_mask against the library's make_padding_mask(keys, Tq, causal).additive(…)
// (model/masks.h, attention/attention.h). On a difference it draws both masks of that sentence, as the
// Annotated Transformer draws its mask: one row per query, one column per key.
//
// The first case, cross-attention of 3 queries over 6 keys, is not square, so padding taken from the query axis
// shows as hidden rows where the library hides columns. On every case the check works out what each usual
// mistake gives (padding on the query axis, the causal rule off by one either way or applied to every mask) and
// names the one yours matches.
//
// A hidden key may be −∞ (the library's) or any number ≤ −1e4, such as −1e9: softmax gives either weight 0, so
// the check reads both as hidden, and passes −1e9 with a note on what −∞ does that −1e9 does not.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"
#include "model/masks.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "Query i of sentence b may see key j when keys[b, j] ≠ pad_id and (not causal or j ≤ i): 0 there, −∞ "
    "elsewhere. The library: src/model/masks.cpp and src/attention/mask.cpp.";
constexpr real hidden_at_most = -1e4;                                // e^(−1e4) is 0 in float32 and float64 alike
const real minus_infinity = -std::numeric_limits<real>::infinity();

struct Case {
  const char* what;
  std::vector<std::vector<int32_t>> keys;                            // [B][Tk], pad_id = 0
  int64_t query_len;
  bool causal;
};

// One mask entry as a character: '.' the key is seen (0), 'x' hidden (−∞, or ≤ −1e4), '?' anything else.
char symbol(real value) {
  if (value == 0) return '.';
  if (value <= hidden_at_most) return 'x';
  return '?';
}

// Yours as the check reads it: every number ≤ −1e4 is −∞. `finite_hidden` gets one of those numbers, if any.
Tensor read_as_hidden(const Tensor& yours, real& finite_hidden) {
  Tensor read = Tensor::from_values(yours.shape(), std::vector<real>(yours.data(), yours.data() + yours.numel()));
  for (int64_t k = 0; k < read.numel(); ++k) {
    if (std::isfinite(read.data()[k]) && read.data()[k] <= hidden_at_most) {
      finite_hidden = read.data()[k];
      read.data()[k] = minus_infinity;
    }
  }
  return read;
}

// The mask [B, 1, Tq, Tk] of a rule hidden(key j is padding, key i is padding, i, j).
using Rule = std::function<bool(bool pad_j, bool pad_i, int64_t i, int64_t j)>;
Tensor mask_with(const TokenIds& keys, int64_t Tq, const Rule& hidden) {
  const int64_t B = keys.shape[0], Tk = keys.shape[1];
  Tensor mask = Tensor::zeros({B, 1, Tq, Tk});                       // [B, 1, Tq, Tk]
  auto pad = [&](int64_t b, int64_t t) { return t < Tk && keys.values[static_cast<size_t>(b * Tk + t)] == pad_id; };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Tq; ++i)
      for (int64_t j = 0; j < Tk; ++j) {
        if (hidden(pad(b, j), pad(b, i), i, j)) mask.data()[(b * Tq + i) * Tk + j] = minus_infinity;
      }
  return mask;
}

std::vector<Mistake> usual_mistakes(const TokenIds& keys, int64_t Tq, bool causal) {
  return {
      {"padding_on_queries", "yours hides the queries at padded positions (rows) instead of the padded keys (columns)",
       mask_with(keys, Tq, [causal](bool, bool pad_i, int64_t i, int64_t j) { return pad_i || (causal && j > i); }),
       "padding is a property of the key: query i must not attend to key j when keys[b, j] is pad_id, whatever i "
       "is. Look up keys[b, j] (b * Tk + j), not keys[b, i]. The rows of padded queries are computed and ignored: "
       "the loss skips pad targets (src/model/masks.h)."},
      {"causal_hides_self", "yours hides key j = i too: a query cannot see its own position",
       mask_with(keys, Tq, [causal](bool pad_j, bool, int64_t i, int64_t j) { return pad_j || (causal && j >= i); }),
       "position i may see the keys j ≤ i, itself included: hide j > i, not j ≥ i. Query 0 would see nothing at all."},
      {"causal_sees_next", "yours lets query i see key i + 1, the token it is to predict",
       mask_with(keys, Tq, [causal](bool pad_j, bool, int64_t i, int64_t j) { return pad_j || (causal && j > i + 1); }),
       "position i predicts token i + 1, so it may see j ≤ i only: hide every j > i, or training learns to copy "
       "the next token."},
      {"causal_always", "yours is causal where the mask is not (causal = false)",
       mask_with(keys, Tq, [](bool pad_j, bool, int64_t i, int64_t j) { return pad_j || j > i; }),
       "only decoder self-attention is causal: the encoder sees the whole source, and cross-attention lets every "
       "target position see every real source token. Hide j > i only when `causal` is true."}};
}

// Both masks of sentence b side by side, one row per query.
std::vector<std::string> drawing(const Tensor& expected, const Tensor& yours, int64_t b, int64_t Tq, int64_t Tk) {
  std::vector<std::string> lines{"sentence " + std::to_string(b) +
                                 " ('.' seen = 0, 'x' hidden = −∞ or ≤ −1e4, '?' anything else):"};
  std::string header = "           expected";                       // over the first grid, then "yours" over the second
  header.resize(std::max<size_t>(header.size() + 1, static_cast<size_t>(11 + 2 * Tk + 3)), ' ');
  lines.push_back(header + "yours");
  for (int64_t q = 0; q < Tq; ++q) {
    std::string row = "  query " + std::to_string(q) + "  ";
    const int64_t row_start = (b * Tq + q) * Tk;                     // query q of sentence b
    for (int64_t key = 0; key < Tk; ++key) row += std::string(1, symbol(expected.data()[row_start + key])) + " ";
    row += "   ";
    for (int64_t key = 0; key < Tk; ++key) row += std::string(1, symbol(yours.data()[row_start + key])) + " ";
    lines.push_back(row);
  }
  return lines;
}

// A hint for the first difference, at flat index k.
std::string why(const Tensor& yours, int64_t k) {
  if (all_zero(yours)) {
    return "Your mask is all zeros (the shipped stub): every query sees every key, padding included. Fill in the "
           "TODO in exercises/masks/exercise.cpp. " + hint;
  }
  if (std::isfinite(yours.data()[k]) && yours.data()[k] < 0) {
    const real value = yours.data()[k];
    return "A hidden key needs −∞ (-std::numeric_limits<real>::infinity()); the check also reads a number ≤ −1e4 as "
           "hidden, but " + number(value) + " leaves the key a weight e^(" + number(value) + ") = " +
           number(std::exp(value)) + " times that of a seen key with the same score. " + hint;
  }
  return hint;
}

// What −∞ does that −1e9 does not, for a learner whose mask passed with finite numbers.
void note_on_finite_hidden(real value) {
  NoGradGuard no_graph;
  const Tensor scores = Tensor::from_values({1, 3}, {0.5, -1, 2});   // one query's scores over three keys
  const Tensor library = softmax(scores, Tensor::full({1, 3}, minus_infinity));
  const Tensor yours = softmax(scores, Tensor::full({1, 3}, value));
  const std::string v = number(value);
  std::cout << "note: your mask hides a key with " << v << " where the library writes −∞. Softmax gives it weight 0\n"
            << "  either way (e^(" << v << ") underflows to 0), so the check passes it. They differ on a query that\n"
            << "  sees no key at all (the last case's empty sentence, or a padded query whose window is all padding):\n"
            << "  src/autograd/ops/softmax.cpp finds that row's max = −∞ and gives weights 0 and no gradient; with\n"
            << "  " << v << " the max is finite and the query averages the hidden keys: scores [0.5, -1, 2], all\n"
            << "  hidden, give " << numbers(yours.data(), 3) << " instead of " << numbers(library.data(), 3)
            << ". The fused kernel\n"
            << "  (src/kernels/scaled_dot_attention.cpp) and the KV cache (src/attention/cache.cpp) look for −∞ too,\n"
            << "  and the library's masks compare exactly: write −∞.\n";
}

void check_case(const Case& c, real& finite_hidden) {
  const int64_t B = static_cast<int64_t>(c.keys.size()), Tk = static_cast<int64_t>(c.keys[0].size());
  TokenIds keys{{B, Tk}, {}};
  for (const auto& sentence : c.keys) keys.values.insert(keys.values.end(), sentence.begin(), sentence.end());
  const Tensor expected = make_padding_mask(keys, c.query_len, c.causal).additive(AttentionConfig{});
  const Tensor yours = attention_mask(keys, c.query_len, c.causal);
  std::vector<std::string> input{std::string("case: ") + c.what + ", Tq = " + std::to_string(c.query_len)};
  for (int64_t b = 0; b < B; ++b) {
    std::string ids;
    for (int32_t id : c.keys[static_cast<size_t>(b)]) ids += (ids.empty() ? "" : " ") + std::to_string(id);
    input.push_back("keys[" + std::to_string(b) + "] = [" + ids + "]   (0 = pad)");
  }
  if (!yours.defined() || yours.shape() != expected.shape()) {
    expect_same("the mask", expected, yours, {0, 0}, input, hint);   // says what the shape should be
  }
  const Tensor read = read_as_hidden(yours, finite_hidden);
  for (int64_t k = 0; k < expected.numel(); ++k) {
    if (expected.data()[k] == read.data()[k]) continue;
    const int64_t b = k / (c.query_len * Tk), i = k / Tk % c.query_len, j = k % Tk;
    std::vector<std::string> details = input;
    for (const std::string& line : drawing(expected, yours, b, c.query_len, Tk)) details.push_back(line);
    diagnose(expected, read, usual_mistakes(keys, c.query_len, c.causal), details, {0, 0});
    details.push_back("first difference: sentence " + std::to_string(b) + ", query " + std::to_string(i) + ", key " +
                      std::to_string(j) + ": expected " + number(expected.data()[k]) + ", yours " +
                      number(yours.data()[k]));
    fail("the mask differs (" + std::string(c.what) + ")", details, why(yours, k));
  }
}

void check() {
  const std::vector<Case> cases{
      {"cross-attention: 3 target positions over 6 source tokens (not causal)",
       {{4, 5, 6, 7, 8, 9}, {4, 5, 0, 0, 0, 0}},
       3,
       false},
      {"encoder self-attention (not causal)", {{5, 6, 7, 8, 9}, {5, 6, 7, 0, 0}}, 5, false},
      {"decoder self-attention (causal)", {{1, 5, 6, 7}, {1, 8, 0, 0}}, 4, true},
      {"cross-attention over an empty sentence (all padding: its queries see no key)", {{4, 5, 6, 7}, {0, 0, 0, 0}},
       2,
       false}};
  real finite_hidden = 0;                                            // a hidden key's number, when not −∞
  for (const Case& c : cases) check_case(c, finite_hidden);
  if (finite_hidden != 0) note_on_finite_hidden(finite_hidden);
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("masks", attnlab::exercises::hint, attnlab::exercises::check); }
