// check.cpp — next_token_loss against the library: cross_entropy (autograd/ops.h) of the logits against the block
// shifted by one, and on the last case DecoderOnly::loss itself (gpt/decoder_only.h) on a small model's logits.
//
// Each case is a block and logits; the loss is one number — yours, the library's, and what each usual mistake gives
// (the formula with one thing changed, worked out here). When yours is a mistake's, the check names it; otherwise
// it says what the right loss is and what each position contributes.
#include "check.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "exercise.h"
#include "gpt/decoder_only.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "loss = 1/T · Σ_i −log softmax(z_i)[b_{i+1}]: position i has read b_0 … b_i and is scored on the token after "
    "it, b_{i+1}; −log softmax(z)[t] = m + log Σ_v e^(z_v − m) − z_t with m the row's largest score. The library: "
    "shift_by_one in src/gpt/text_blocks.cpp, then DecoderOnly::loss in src/gpt/decoder_only.cpp.";

struct Case {
  std::string what;
  Tensor logits;                 // [T, V]
  std::vector<int32_t> block;    // T + 1 ids
};

// The loss with one thing changed, as the usual mistakes change it.
struct Rules {
  int64_t shift = 1;             // 0: position i scored on b_i
  bool normalise = true;         // false: −z_t, no log Σ e^z
  double divide_extra = 0;       // divide by T + this (1: by the block's T + 1)
  bool mean = true;              // false: the sum
};

double loss_by(const Case& c, Rules rules) {
  const int64_t T = c.logits.size(0), V = c.logits.size(1);
  double total = 0;
  for (int64_t i = 0; i < T; ++i) {
    const real* z = c.logits.data() + i * V;
    const int32_t t = c.block[static_cast<size_t>(i + rules.shift)];
    const double top = *std::max_element(z, z + V);
    double sum = 0;
    for (int64_t v = 0; v < V; ++v) sum += std::exp(double(z[v]) - top);
    total += (rules.normalise ? top + std::log(sum) : 0.0) - double(z[t]);
  }
  return rules.mean ? total / (static_cast<double>(T) + rules.divide_extra) : total;
}

std::vector<Mistake> usual_mistakes(const Case& c) {
  return {
      {"no_shift", "yours scores position i on b_i, the token it has just read: there is no shift by one",
       as_tensor({loss_by(c, {0, true, 0, true})}),
       "position i must predict the token after the ones it has read: target b_{i+1} (block[i + 1]). Scored on b_i, "
       "the model would learn to copy its input, which the causal mask lets it see."},
      {"sum_not_mean", "yours is the sum over the positions, not their mean", as_tensor({loss_by(c, {1, true, 0, false})}),
       "divide the sum by T, the positions scored: the mean makes the loss (and the learning rate it needs) the same "
       "whatever the block length."},
      {"mean_over_block", "yours divides by T + 1, the block's length, not by T, the positions scored",
       as_tensor({loss_by(c, {1, true, 1, true})}),
       "a block of T + 1 tokens gives T predictions: b_0 is never a target (nothing comes before it). Divide by T."},
      {"no_normalizer", "yours is −z_t, the raw score: the log Σ e^z of the softmax is missing",
       as_tensor({loss_by(c, {1, false, 0, true})}),
       "−log softmax(z)[t] = log Σ_v e^(z_v) − z_t: without the log Σ e^z the loss is not a log-probability and "
       "goes to −∞ as the scores grow."},
  };
}

// The library's loss: cross_entropy of logits [T, V] against targets b_1 … b_T.
double library_loss(const Case& c) {
  const int64_t T = c.logits.size(0);
  const TokenIds targets{Shape{T}, std::vector<int32_t>(c.block.begin() + 1, c.block.end())};
  return cross_entropy(c.logits, targets, 0).item();
}

void check_case(const Case& c) {
  const double expected = library_loss(c), yours = next_token_loss(c.logits, c.block);
  std::vector<std::string> input = tensor_lines("logits", c.logits);
  input.insert(input.begin(), c.what);
  std::vector<real> ids(c.block.begin(), c.block.end());
  input.push_back("block b_0 … b_T = " + numbers(ids, 20));
  diagnose(as_tensor({expected}), as_tensor({yours}), usual_mistakes(c), input, {1e-12, 1e-10});
  if (close(expected, yours, {1e-12, 1e-10})) return;
  std::vector<std::string> details = input;
  details.push_back("expected " + number(expected) + ", yours " + number(yours));
  const std::string why = yours == 0 ? "Your loss is 0 (the shipped stub): fill in the TODO in "
                                       "exercises/next_token_loss/exercise.cpp. " + hint
                                     : hint;
  fail("the loss of " + c.what + " differs", details, why);
}

// A small decoder-only model's logits for one block, as [T, V]; and its own loss on the block must be the library's.
Case model_case() {
  ModelConfig m;
  m.src_vocab = m.tgt_vocab = 11;
  m.d_model = 8;
  m.heads = 2;
  m.d_ff = 16;
  m.decoder_layers = 1;
  m.dropout = 0;
  Generator init(48);
  DecoderOnly model(m, init);
  const std::vector<int32_t> block{1, 5, 9, 4, 2, 1, 7, 10};        // bos … eos bos …: a document ends inside
  const int64_t T = static_cast<int64_t>(block.size()) - 1;
  NoGradGuard no_graph;
  ForwardContext eval;
  const Tensor logits = model.logits({Shape{1, T}, std::vector<int32_t>(block.begin(), block.end() - 1)}, eval);
  return {"a decoder-only model's logits (d_model 8, one layer) for a block of 8 tokens",
          Tensor::from_values({T, m.tgt_vocab}, std::vector<real>(logits.data(), logits.data() + logits.numel())),
          block};
}

void check() {
  Generator gen(2017);
  std::vector<Case> cases{
      {"a block of 5 tokens, V = 6", Tensor::randn({4, 6}, gen, 2), {1, 4, 5, 3, 2}},
      {"scores near 1000 (subtract the largest before exp)", Tensor::randn({3, 5}, gen, 500), {1, 3, 4, 2}},
      {"one position (T = 1)", Tensor::randn({1, 4}, gen, 1), {1, 3}},
  };
  cases.push_back(model_case());
  for (const Case& c : cases) check_case(c);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("next_token_loss", attnlab::exercises::hint, attnlab::exercises::check);
}
