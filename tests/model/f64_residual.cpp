// f64_residual.cpp — model.residual: false (an ablation, configs/experiments/no-residual.yaml) drops the "x +"
// of every sublayer and changes nothing else: the same parameters with the same shapes, outputs of the same
// shape, but other numbers; every parameter still receives a gradient that matches central differences.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "model/transformer.h"

using namespace attnlab;

namespace {

ModelConfig small_config(NormPlacement norm, bool residual) {
  ModelConfig c;
  c.src_vocab = 9;
  c.tgt_vocab = 9;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 12;
  c.encoder_layers = 2;
  c.decoder_layers = 1;
  c.dropout = 0;
  c.norm = norm;
  c.residual = residual;
  return c;
}

const TokenIds src{{2, 4}, {4, 5, 6, 2, 7, 6, 2, 0}};   // [B, S], sentence 1 padded
const TokenIds tgt{{2, 3}, {1, 5, 4, 1, 8, 0}};         // [B, T], bos first
const TokenIds tgt_out{{2, 3}, {5, 4, 2, 8, 2, 0}};     // tgt shifted left

}  // namespace

TEST_CASE("without residual connections the model has the same parameters and output shape, but other logits") {
  for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
    CAPTURE(name_of(norm));
    Generator init_with(3), init_without(3);
    Seq2Seq with(small_config(norm, true), init_with);
    Seq2Seq without(small_config(norm, false), init_without);

    std::set<std::string> names_with, names_without;
    for (const NamedParameter& p : with.named_parameters()) names_with.insert(p.name + " " + p.tensor.shape().str());
    for (const NamedParameter& p : without.named_parameters()) {
      names_without.insert(p.name + " " + p.tensor.shape().str());
    }
    CHECK(names_with == names_without);                     // the same weights, drawn from the same seed

    ForwardContext eval;
    Tensor a = with.forward(src, tgt, eval);                 // [B, T, V]
    Tensor b = without.forward(src, tgt, eval);              // [B, T, V]
    REQUIRE(a.shape() == b.shape());
    CHECK(a.shape() == Shape{2, 3, 9});
    double largest_change = 0;
    for (int64_t i = 0; i < a.numel(); ++i) {
      REQUIRE(std::isfinite(b.data()[i]));
      largest_change = std::max(largest_change, std::abs(a.data()[i] - b.data()[i]));
    }
    CHECK(largest_change > 1e-2);                             // the residual path carried real signal
  }
}

TEST_CASE("without residual connections every parameter's gradient still matches central differences") {
  for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
    CAPTURE(name_of(norm));
    Generator init(5);
    auto model = std::make_shared<Seq2Seq>(small_config(norm, false), init);
    GradcheckCase check{"model.seq2seq", name_of(norm) + "-LN, no residual",
                        [model](Generator&) {
                          model->zero_grad();
                          std::vector<Tensor> parameters;
                          for (const NamedParameter& p : model->named_parameters()) parameters.push_back(p.tensor);
                          return parameters;
                        },
                        [model](const std::vector<Tensor>&) {
                          ForwardContext eval;
                          return cross_entropy(model->forward(src, tgt, eval), tgt_out, real(0.1), pad_id);  // [1]
                        }};
    GradcheckResult r = run_gradcheck(check);
    INFO(r.problem, " max abs error ", r.max_abs_error);
    CHECK(r.passed);
    size_t with_gradient = 0;                                 // no parameter is cut off from the loss
    for (const InputComparison& in : r.inputs) {
      bool any = false;
      for (double g : in.analytic) any = any || g != 0;
      with_gradient += any;
    }
    CHECK(with_gradient == r.inputs.size());
  }
}
