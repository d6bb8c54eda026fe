// check.cpp — additive_score against the scores of the library's additive attention (src/attention/additive.cpp).
//
// The check builds the library's module (make_attention, kind additive, d_model 8, 2 heads: d_k = 4) and runs its
// forward pass with a Tracer (nn/context.h) that keeps what the pass computes: the heads' Q and K [1, h, T, d_k]
// and the scores [1, h, Tq, Tk] (as the softmax sees them: no key is hidden here, so the mask adds 0). Head h's
// parameters are cut out of the module's own (named_parameters(): q_proj.weight, …, score_proj.weight), and
// additive_score must give head h's scores. When it does not, the check works out what each usual mistake gives
// from the module's q_i, k_j and w, and names yours if it is one of them.
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "e_ij = wᵀ tanh(q_i + k_j) with q_i = W_q x_i + b_q and k_j = W_k m_j + b_k: pair every query i with every "
    "key j, take tanh of the sum feature by feature, and weigh the d_k results by w. The library's version is "
    "score() in src/attention/additive.cpp (score_one() there: one query and one key).";
const std::string zero_hint =
    "Your scores are all zeros (the shipped stub): fill in the TODO in exercises/additive_score/exercise.cpp. ";

// Keeps every stage a forward pass traces, by name ("q", "k", "tanh", "scores", …).
class StageCatcher : public Tracer {
 public:
  void trace(const std::string& name, const Tensor& value) override { stages[name] = value; }
  std::map<std::string, Tensor> stages;
};

// Head h of t [1, h, T, d] as a tensor of its own, [T, d].
Tensor head_of(const Tensor& t, int64_t head) {
  const int64_t T = t.size(2), d = t.size(3);
  const real* first = t.data() + head * T * d;
  return Tensor::from_values({T, d}, std::vector<real>(first, first + T * d));
}

// Rows first … first + count − 1 of a parameter (no graph): one head's part of a projection.
Tensor rows_of(const Tensor& parameter, int64_t first, int64_t count) {
  NoGradGuard no_graph;
  return slice(parameter, 0, first, first + count).detach();
}

// The scores e [Tq, Tk] that the rule e(i, j) gives.
Tensor every_pair(int64_t Tq, int64_t Tk, const std::function<real(int64_t i, int64_t j)>& e) {
  std::vector<real> values;
  for (int64_t i = 0; i < Tq; ++i)
    for (int64_t j = 0; j < Tk; ++j) values.push_back(e(i, j));
  return Tensor::from_values({Tq, Tk}, values);
}

// What the usual mistakes give, from the module's q [Tq, d_k], k [Tk, d_k] (biases in), the head's w and biases.
std::vector<Mistake> usual_mistakes(const Tensor& right, const Tensor& q, const Tensor& k, const AdditiveHead& head) {
  const int64_t Tq = q.size(0), Tk = k.size(0), d_k = q.size(1);
  const real* w = head.w.data();
  const real* b_q = head.b_q.data();
  const real* b_k = head.b_k.data();
  // Σ_c weight_c · f(q_ic + k_jc + shift_c), the shape every variant below shares.
  auto sum_over_features = [&](int64_t i, int64_t j, bool weighted, bool tanh_inside, bool biases) {
    real total = 0;
    for (int64_t c = 0; c < d_k; ++c) {
      const real pre = q.data()[i * d_k + c] + k.data()[j * d_k + c] - (biases ? 0 : b_q[c] + b_k[c]);
      total += (weighted ? w[c] : 1) * (tanh_inside ? std::tanh(pre) : pre);
    }
    return total;
  };
  std::vector<Mistake> mistakes{
      {"tanh_after_v", "yours is tanh(wᵀ (q_i + k_j)): the tanh came after the product with w",
       every_pair(Tq, Tk, [&](int64_t i, int64_t j) { return std::tanh(sum_over_features(i, j, true, false, true)); }),
       "tanh is the hidden layer, taken of each of the d_k features of q_i + k_j; w then weighs the d_k hidden "
       "units into one score, with no tanh after it: e_ij = Σ_c w_c · tanh(q_ic + k_jc)."},
      {"transposed", "yours is [keys, queries]: e transposed", transpose(right, 0, 1),
       "row i of e is query i's scores, one per key: e is [Tq, Tk] with e_ij at e.data()[i * Tk + j] "
       "(the softmax then runs along each row, over the keys)."},
      {"v_missing", "yours is Σ_c tanh(q_ic + k_jc): the hidden units are added up, not weighed by w",
       every_pair(Tq, Tk, [&](int64_t i, int64_t j) { return sum_over_features(i, j, false, true, true); }),
       "the score is wᵀ tanh(q_i + k_j): multiply hidden unit c by w_c (head.w, Bahdanau's v) before adding up. "
       "w is what the score learns: without it every feature counts the same."},
      {"bias_missing", "yours leaves out the projections' biases: q_i = W_q x_i, k_j = W_k m_j",
       every_pair(Tq, Tk, [&](int64_t i, int64_t j) { return sum_over_features(i, j, true, true, false); }),
       "q_proj and k_proj are Linear layers (nn/linear.h): y = x Wᵀ + b. Add b_q to every q_i and b_k to every k_j "
       "— inside tanh a bias moves where each hidden unit saturates, so it changes the score."},
  };
  if (Tq <= Tk) {                                                    // key i exists for every query i
    mistakes.push_back(
        {"key_at_query_position", "yours pairs query i with key i only: e_ij = wᵀ tanh(q_i + k_i) for every j",
         every_pair(Tq, Tk, [&](int64_t i, int64_t) { return sum_over_features(i, i, true, true, true); }),
         "e_ij pairs query i with key j: read k_j (row j of k), not row i. With k_i every key of a row gets the "
         "same score, and the softmax spreads its weight evenly."});
  }
  return mistakes;
}

struct Case {
  const char* what;
  AttentionUse use;
  int64_t query_len, key_len;
  real spread;                                                       // the inputs' standard deviation
};

void check_case(const Case& c) {
  const int64_t d_model = 8, heads = 2, d_k = d_model / heads;
  AttentionConfig config;
  config.kind = AttentionKind::additive;
  Generator init(13);
  std::unique_ptr<Attention> attention = make_attention(config, c.use, d_model, heads, 0.0, init);
  std::map<std::string, Tensor> parameters;
  for (const NamedParameter& p : attention->named_parameters()) parameters[p.name] = p.tensor;

  Generator gen(3);
  const Tensor x = Tensor::randn({c.query_len, d_model}, gen, c.spread);             // [Tq, d_model]
  const bool self = c.use != AttentionUse::cross;
  const Tensor memory = self ? x : Tensor::randn({c.key_len, d_model}, gen, c.spread);   // [Tk, d_model]
  StageCatcher library;
  ForwardContext ctx;
  ctx.tracer = &library;
  {
    NoGradGuard no_graph;
    attention->forward(reshape(x, {1, c.query_len, d_model}), reshape(memory, {1, c.key_len, d_model}),
                       make_length_mask({c.key_len}, c.query_len, c.key_len, /*causal=*/false), ctx);
  }
  for (int64_t h = 0; h < heads; ++h) {
    const AdditiveHead head{rows_of(parameters.at("q_proj.weight"), h * d_k, d_k),
                            rows_of(parameters.at("q_proj.bias"), h * d_k, d_k),
                            rows_of(parameters.at("k_proj.weight"), h * d_k, d_k),
                            rows_of(parameters.at("k_proj.bias"), h * d_k, d_k),
                            reshape(rows_of(parameters.at("score_proj.weight"), h, 1), {d_k})};
    const Tensor expected = head_of(library.stages.at("scores"), h);                    // [Tq, Tk]
    const Tensor yours = additive_score(x, memory, head);

    std::vector<std::string> input{std::string("case: ") + c.what + ", head " + std::to_string(h) + " of " +
                                   std::to_string(heads) + " (d_model = 8, d_k = 4)"};
    for (const std::string& line : tensor_lines("x", x)) input.push_back(line);
    if (!self) {
      for (const std::string& line : tensor_lines("memory", memory)) input.push_back(line);
    }
    for (const std::string& line : tensor_lines("w", head.w)) input.push_back(line);
    input.push_back("W_q, b_q, W_k, b_k: rows " + std::to_string(h * d_k) + " … " + std::to_string(h * d_k + d_k - 1) +
                    " of the module's q_proj and k_proj (exercise.h)");
    diagnose(expected, yours,
             usual_mistakes(expected, head_of(library.stages.at("q"), h), head_of(library.stages.at("k"), h), head),
             input);
    expect_same("the score matrix e [Tq, Tk]", expected, yours, {1e-9, 1e-9}, input,
                all_zero(yours) ? zero_hint + hint : hint);
  }
}

void check() {
  check_case({"cross-attention, 2 queries over 3 keys", AttentionUse::cross, 2, 3, 1});
  check_case({"self-attention over 5 positions (memory is x), inputs of spread 2: tanh saturates",
              AttentionUse::encoder_self, 5, 5, 2});
  check_case({"cross-attention, 4 queries over 2 keys", AttentionUse::cross, 4, 2, 1});
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("additive_score", attnlab::exercises::hint, attnlab::exercises::check);
}
