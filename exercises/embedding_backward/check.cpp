// check.cpp — embedding_backward against the library's embedding, forward and backward.
//
// The library's side: W [V, d_model] with requires_grad, y = scale(embedding(W, ids), √d_model) — what
// Embedding::forward (src/nn/embedding.cpp) computes — and L = Σ y ⊙ g, so that backward() leaves ∂L/∂y = g and
// W.grad is the ∂W the exercise asks for. Yours gets the same ids and g. The first case uses an id twice, so a
// "=" where the chain rule says "+=" shows.
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "∂W[v, :] = √d_model · Σ g[p, :] over the positions p with ids[p] = v: walk the positions, and add "
    "(+=) √d_model times row p of g into row ids[p] of ∂W. The library's backward is embedding()'s in "
    "src/autograd/ops/embedding.cpp (the scatter-add) after scale()'s (the √d_model of src/nn/embedding.cpp).";
const std::string zero_hint =
    "Your ∂W is all zeros (the shipped stub): fill in the TODO in exercises/embedding_backward/exercise.cpp. ";

real sqrt_d_model(const Tensor& g) { return std::sqrt(static_cast<real>(g.shape().cols())); }

// The library's ∂W: y = √d_model · embedding(W, ids), L = Σ y ⊙ g, L.backward().
Tensor library_dW(const TokenIds& ids, const Tensor& g, int64_t vocab_size, Generator& gen) {
  const Tensor W = Tensor::randn({vocab_size, g.shape().cols()}, gen, 1, /*requires_grad=*/true);   // [V, d_model]
  sum(mul(scale(embedding(W, ids), sqrt_d_model(g)), g)).backward();
  return Tensor::from_values(W.shape(), W.grad_values());                    // [V, d_model]
}

// What ∂W is when the rows of g go, times s, into the rows `target` names, added or (assign) written over.
enum class Target { id, position };
Tensor scattered(const TokenIds& ids, const Tensor& g, int64_t vocab_size, real s, Target target, bool assign) {
  const int64_t d = g.shape().cols();
  Tensor dW = Tensor::zeros({vocab_size, d});                                 // [V, d_model]
  for (int64_t p = 0; p < ids.shape.numel(); ++p) {
    const int64_t row = target == Target::id ? ids.values[static_cast<size_t>(p)] : p;
    for (int64_t j = 0; j < d; ++j) {
      real& w = dW.data()[row * d + j];
      w = (assign ? 0 : w) + s * g.data()[p * d + j];
    }
  }
  return dW;
}

std::vector<Mistake> usual_mistakes(const TokenIds& ids, const Tensor& g, int64_t vocab_size) {
  const real s = sqrt_d_model(g);
  return {
      {"assign", "a repeated id keeps only its last position's row: ∂W[v, :] = … is written, not added to",
       scattered(ids, g, vocab_size, s, Target::id, /*assign=*/true),
       "a token used at several positions gets one contribution from each (the \"+=\" of the chain rule): "
       "∂W[ids[p], :] += √d_model · g[p, :], never =."},
      {"by_position", "row p of ∂W holds position p's gradient: the rows are scattered by position, not by id",
       scattered(ids, g, vocab_size, s, Target::position, false),
       "position p looked up row ids[p] of W, so its gradient goes to row ids[p] of ∂W: "
       "∂W[ids[p], :] += √d_model · g[p, :]."},
      {"missing_scale", "∂W is 1/√d_model × the right one: the √d_model of the forward is missing",
       scattered(ids, g, vocab_size, 1, Target::id, false),
       "the forward multiplies every looked-up row by √d_model (Embedding::forward, src/nn/embedding.cpp), so its "
       "backward multiplies g by √d_model too: ∂W[ids[p], :] += √d_model · g[p, :]."},
      {"scale_inverted", "∂W is 1/d_model × the right one: g is divided by √d_model, not multiplied",
       scattered(ids, g, vocab_size, 1 / s, Target::id, false),
       "y = √d_model · W[id], so ∂y/∂W[id] = √d_model: multiply g by √d_model (d_model = g.shape().cols())."},
  };
}

std::vector<std::string> describe_case(const std::string& what, const TokenIds& ids, const Tensor& g) {
  std::string id_list;
  for (size_t p = 0; p < ids.values.size(); ++p) id_list += (p ? ", " : "") + std::to_string(ids.values[p]);
  std::vector<std::string> lines{"case: " + what, "ids " + ids.shape.str() + " = [" + id_list + "] (row p of g below is position p's)",
                                 "d_model = " + std::to_string(g.shape().cols()) + ", so √d_model = " +
                                     number(sqrt_d_model(g))};
  for (const std::string& line : tensor_lines("g", g)) lines.push_back(line);
  return lines;
}

struct Case {
  std::string what;
  TokenIds ids;
  int64_t vocab_size, d_model;
};

void check_case(const Case& c, bool first) {
  Generator gen(13);
  std::vector<int64_t> g_sizes = c.ids.shape.sizes();
  g_sizes.push_back(c.d_model);
  const Tensor g = Tensor::randn(Shape(g_sizes), gen);                       // [ids.shape..., d_model]
  const Tensor expected = library_dW(c.ids, g, c.vocab_size, gen);           // [V, d_model]
  const Tensor yours = embedding_backward(c.ids, g, c.vocab_size);
  const std::vector<std::string> input = describe_case(c.what, c.ids, g);
  if (first) diagnose(expected, yours, usual_mistakes(c.ids, g, c.vocab_size), input);
  expect_same("∂W", expected, yours, {1e-9, 1e-9}, input, all_zero(yours) ? zero_hint + hint : hint);
}

void check() {
  check_case({"ids [2, 3], vocabulary V = 7, d_model = 4: id 3 is used twice, ids 2 and 4 never",
              TokenIds{{2, 3}, {3, 0, 5, 3, 6, 1}}, 7, 4},
             /*first=*/true);
  check_case({"one sentence of 5 ids, V = 3, d_model = 6: id 2 three times", TokenIds{{5}, {2, 2, 0, 2, 1}}, 3, 6},
             false);
  check_case({"ids [2, 2, 3] (three ids per position), V = 9, d_model = 2",
              TokenIds{{2, 2, 3}, {8, 1, 1, 4, 0, 8, 2, 7, 1, 5, 5, 5}}, 9, 2},
             false);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("embedding_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
