// check.cpp — attention_mask against the library's make_padding_mask(keys, Tq, causal).additive(…)
// (model/masks.h, attention/attention.h). On a difference it draws both masks of that sentence, as the
// Annotated Transformer draws its mask: one row per query, one column per key.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "check.h"
#include "exercise.h"
#include "model/masks.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "Query i of sentence b may see key j when keys[b, j] ≠ pad_id and (not causal or j ≤ i): 0 there, −∞ "
    "elsewhere. The library: src/model/masks.cpp and src/attention/mask.cpp.";

// One mask entry as a character: '.' the key is seen (0), 'x' hidden (−∞), '?' anything else.
char symbol(real value) {
  if (value == 0) return '.';
  if (std::isinf(value) && value < 0) return 'x';
  return '?';
}

void check() {
  struct Case {
    const char* what;
    std::vector<std::vector<int32_t>> keys;                          // [B][Tk], pad_id = 0
    int64_t query_len;
    bool causal;
  };
  const std::vector<Case> cases{
      {"encoder self-attention (not causal)", {{5, 6, 7, 8, 9}, {5, 6, 7, 0, 0}}, 5, false},
      {"decoder self-attention (causal)", {{1, 5, 6, 7}, {1, 8, 0, 0}}, 4, true},
      {"cross-attention: 3 target positions over 6 source tokens (not causal)",
       {{4, 5, 6, 7, 8, 9}, {4, 5, 0, 0, 0, 0}},
       3,
       false}};
  for (const Case& c : cases) {
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
    for (int64_t k = 0; k < expected.numel(); ++k) {
      if (expected.data()[k] == yours.data()[k]) continue;
      const int64_t b = k / (c.query_len * Tk), i = k / Tk % c.query_len, j = k % Tk;
      std::vector<std::string> details = input;
      details.push_back("sentence " + std::to_string(b) + " ('.' seen = 0, 'x' hidden = −∞, '?' anything else):");
      std::string header = "           expected";                   // over the first grid, then "yours" over the second
      header.resize(std::max<size_t>(header.size() + 1, static_cast<size_t>(11 + 2 * Tk + 3)), ' ');
      details.push_back(header + "yours");
      for (int64_t q = 0; q < c.query_len; ++q) {
        std::string row = "  query " + std::to_string(q) + "  ";
        const int64_t row_start = (b * c.query_len + q) * Tk;        // query q of sentence b
        for (int64_t key = 0; key < Tk; ++key) row += std::string(1, symbol(expected.data()[row_start + key])) + " ";
        row += "   ";
        for (int64_t key = 0; key < Tk; ++key) row += std::string(1, symbol(yours.data()[row_start + key])) + " ";
        details.push_back(row);
      }
      details.push_back("first difference: sentence " + std::to_string(b) + ", query " + std::to_string(i) + ", key " +
                        std::to_string(j) + ": expected " + number(expected.data()[k]) + ", yours " +
                        number(yours.data()[k]));
      std::string why = hint;
      if (all_zero(yours)) {
        why = "Your mask is all zeros (the shipped stub): every query sees every key, padding included. Fill in the "
              "TODO in exercises/masks/exercise.cpp. " + hint;
      } else if (std::isfinite(yours.data()[k]) && yours.data()[k] < 0) {
        why = "Use −∞ itself (-std::numeric_limits<real>::infinity()), not a large negative number: only e^(−∞) is "
              "exactly 0, and the library's mask is exactly −∞. " + hint;
      }
      fail("the mask differs (" + std::string(c.what) + ")", details, why);
    }
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("masks", attnlab::exercises::hint, attnlab::exercises::check); }
