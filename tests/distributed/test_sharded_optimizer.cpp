// test_sharded_optimizer.cpp — ZeRO stage 1 (src/distributed/sharded_optimizer.h) as facts, in one process, with N ranks
// played by N copies of the parameters (tests/distributed/mpi_test.sh runs the real thing on 2 ranks under mpirun):
//   * the flat vector's shards cover every number once, each part of a parameter where parts_in says;
//   * N optimizers, each keeping the moments of one shard and updating only it, followed by the all-gather, give
//     every number the bits of one optimizer that keeps all, and hold 1/N of its moment bytes between them each;
//   * the shards' Σ g² add up to ‖g‖², and clipping each shard with that norm gives clip_grad_norm's bits;
//   * a shard takes its numbers from a checkpoint's whole moments; a checkpoint is refused from a shard and
//     written from the gathered whole;
//   * the sharded step on a job of one rank is the plain step, bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "distributed/sharded_optimizer.h"
#include "tensor/random.h"
#include "train/checkpoint.h"
#include "train/clip.h"
#include "train/flat_parameters.h"
#include "train/optimizer.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// Parameters of 5, 7, 1, 12 and 4 numbers (Ψ = 29, so no N below splits them evenly); "unused" never gets a gradient.
std::vector<NamedParameter> make_parameters() {
  Generator generator(3);
  std::vector<NamedParameter> parameters;
  const std::vector<std::pair<std::string, Shape>> shapes = {
      {"a.weight", Shape{5}}, {"b.weight", Shape{7}}, {"c.bias", Shape{1}}, {"d.weight", Shape{3, 4}}, {"unused", Shape{4}}};
  for (const auto& [name, shape] : shapes) parameters.push_back({name, Tensor::randn(shape, generator, 1, true)});
  return parameters;
}

// Gradients drawn from (seed, step), the same for every copy of the parameters; none for "unused".
void set_gradients(const std::vector<NamedParameter>& parameters, int step) {
  Generator generator(100 + step);
  for (const NamedParameter& p : parameters) {
    if (p.name == "unused") continue;
    real* g = p.tensor.grad();
    for (int64_t j = 0; j < p.tensor.numel(); ++j) g[j] = static_cast<real>(generator.normal());
  }
}

OptimizerOptions adamw() {
  OptimizerOptions options;
  options.kind = OptimizerKind::adamw;
  options.beta1 = 0.9, options.beta2 = 0.98, options.eps = 1e-9, options.weight_decay = 0.01;
  return options;
}

std::vector<real> all_values(const std::vector<NamedParameter>& parameters) {
  std::vector<real> values;
  for (const NamedParameter& p : parameters) values.insert(values.end(), p.tensor.values().begin(), p.tensor.values().end());
  return values;
}

std::vector<NamedParameter> copy_of(const std::vector<NamedParameter>& parameters) {
  std::vector<NamedParameter> copy;
  for (const NamedParameter& p : parameters) copy.push_back({p.name, Tensor::from_values(p.tensor.shape(), p.tensor.values(), true)});
  return copy;
}

}  // namespace

TEST_CASE("the N shards cover the flat vector once, the last one short, and parts_in names each parameter's numbers") {
  const std::vector<NamedParameter> parameters = make_parameters();   // Ψ = 29
  CHECK(flat_size(parameters) == 29);
  for (int N : {1, 2, 3, 4, 7, 29, 30}) {
    CAPTURE(N);
    const int64_t s = (29 + N - 1) / N;
    int64_t covered = 0;
    for (int r = 0; r < N; ++r) {
      const FlatRange shard = OptimizerShards(parameters, r, N).shard();
      CHECK(shard.begin == std::min<int64_t>(r * s, 29));
      CHECK(shard.end == std::min<int64_t>((r + 1) * s, 29));
      for (const ParameterPart& part : parts_in(parameters, shard)) {
        CHECK(part.flat_begin == covered);            // in flat order, no gap, no overlap
        covered += part.to - part.from;
      }
    }
    CHECK(covered == 29);
  }
  // The header's example: 4, 3 and 3 numbers, range [3, 8).
  std::vector<NamedParameter> three = {{"x", Tensor::zeros({4})}, {"y", Tensor::zeros({3})}, {"z", Tensor::zeros({3})}};
  const std::vector<ParameterPart> parts = parts_in(three, {3, 8});
  REQUIRE(parts.size() == 3);
  CHECK((parts[0].parameter == 0 && parts[0].from == 3 && parts[0].to == 4 && parts[0].flat_begin == 3));
  CHECK((parts[1].parameter == 1 && parts[1].from == 0 && parts[1].to == 3 && parts[1].flat_begin == 4));
  CHECK((parts[2].parameter == 2 && parts[2].from == 0 && parts[2].to == 1 && parts[2].flat_begin == 7));
}

TEST_CASE("N optimizers keeping one shard each, then the all-gather, give every number one whole optimizer's bits") {
  for (int N : {2, 3, 5}) {
    CAPTURE(N);
    std::vector<NamedParameter> whole_parameters = make_parameters();
    Optimizer whole(whole_parameters, adamw());
    std::vector<std::vector<NamedParameter>> rank_parameters;   // rank r's copy of the model
    std::vector<Optimizer> rank_optimizers;
    std::vector<FlatRange> shards;
    for (int r = 0; r < N; ++r) {
      rank_parameters.push_back(copy_of(whole_parameters));
      rank_optimizers.emplace_back(rank_parameters.back(), adamw());
      shards.push_back(OptimizerShards(rank_parameters.back(), r, N).shard());
      rank_optimizers.back().keep_only(shards.back());
    }
    const std::vector<real> unused_before = whole_parameters[4].tensor.values();
    for (int step = 1; step <= 3; ++step) {
      set_gradients(whole_parameters, step);
      whole.step(0.01);
      for (int r = 0; r < N; ++r) {
        set_gradients(rank_parameters[r], step);
        rank_optimizers[r].step(0.01);
      }
      // The all-gather: rank r's new numbers to every rank.
      for (int r = 0; r < N; ++r) {
        for (const ParameterPart& part : parts_in(rank_parameters[r], shards[r])) {
          for (int q = 0; q < N; ++q) {
            const std::vector<real>& from = rank_parameters[r][part.parameter].tensor.values();
            std::vector<real>& to = rank_parameters[q][part.parameter].tensor.values();
            std::copy(from.begin() + part.from, from.begin() + part.to, to.begin() + part.from);
          }
        }
      }
      for (int r = 0; r < N; ++r) CHECK(all_values(rank_parameters[r]) == all_values(whole_parameters));
    }
    CHECK(whole_parameters[4].tensor.values() == unused_before);   // no gradient: left alone, sharded or not
    int64_t bytes = 0;
    for (const Optimizer& o : rank_optimizers) {
      CHECK(o.moment_bytes() <= 2 * static_cast<int64_t>(sizeof(real)) * ((29 + N - 1) / N));   // 2 · 4 · s
      bytes += o.moment_bytes();
    }
    CHECK(bytes == whole.moment_bytes());
    CHECK(whole.moment_bytes() == 2 * 29 * static_cast<int64_t>(sizeof(real)));
  }
}

TEST_CASE("the shards' sums of squares add up to ‖g‖², and clipping each shard with that norm gives clip_grad_norm's bits") {
  std::vector<NamedParameter> whole = make_parameters();
  std::vector<NamedParameter> sharded = copy_of(whole);
  set_gradients(whole, 1);
  set_gradients(sharded, 1);
  const int N = 3;
  double squares = 0;
  for (int r = 0; r < N; ++r) squares += sum_of_squares(sharded, OptimizerShards(sharded, r, N).shard());
  const double norm = clip_grad_norm(whole, 0.5);
  CHECK(norm > 0.5);   // so that it clips
  CHECK(std::sqrt(squares) == doctest::Approx(norm).epsilon(1e-14));
  for (int r = 0; r < N; ++r) clip_to_norm(sharded, norm, 0.5, OptimizerShards(sharded, r, N).shard());
  for (size_t i = 0; i < whole.size(); ++i) CHECK(sharded[i].tensor.grad_values() == whole[i].tensor.grad_values());
  CHECK_FALSE(sharded[4].tensor.has_grad());
}

TEST_CASE("a shard takes its numbers from whole moments; a checkpoint is refused from a shard, written from the whole") {
  std::vector<NamedParameter> parameters = make_parameters();
  Optimizer whole(parameters, adamw());
  for (int step = 1; step <= 2; ++step) {
    set_gradients(parameters, step);
    whole.step(0.01);
  }
  std::vector<NamedTensor> saved;   // as a checkpoint holds them: whole moments
  for (const NamedTensor& t : whole.state_tensors()) saved.push_back({t.name, t.tensor.detach()});

  Optimizer shard(parameters, adamw());
  const FlatRange range = OptimizerShards(parameters, 1, 2).shard();   // [15, 29): part of d.weight, and unused
  shard.keep_only(range);
  shard.load_state(saved, 2);
  CHECK(shard.steps() == 2);
  const std::vector<NamedTensor> pieces = shard.state_tensors();
  REQUIRE(pieces.size() == 4);   // m and v of d.weight's part and of unused
  CHECK(pieces[0].name == "optimizer.exp_avg.d.weight");
  const std::vector<real>& m_d = saved[3].tensor.values();   // optimizer.exp_avg.d.weight, 12 numbers at 13 … 24
  CHECK(pieces[0].tensor.values() == std::vector<real>(m_d.begin() + 2, m_d.end()));   // its numbers 15 … 24
  CHECK(shard.moment_bytes() == 2 * 14 * static_cast<int64_t>(sizeof(real)));
  CHECK_THROWS_AS(shard.keep_only(range), Error);   // only once

  const std::filesystem::path directory = std::filesystem::path(ATTNLAB_BINARY_DIR) / "test_sharded_optimizer";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  Module empty_model;
  std::string message;
  try {
    save_checkpoint((directory / "shard.safetensors").string(), empty_model, shard, CheckpointState{});
  } catch (const Error& error) {
    message = error.what();
  }
  CHECK(message.find("shard") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(directory / "shard.safetensors"));

  // One rank's shard is everything: gathered, it is the whole optimizer again, moments and step count.
  Optimizer one(parameters, adamw());
  one.load_state(saved, 2);
  one.keep_only({0, 29});
  CHECK_FALSE(one.owns_all());
  std::optional<Optimizer> gathered = OptimizerShards(parameters, 0, 1).gather(one);
  REQUIRE(gathered.has_value());
  CHECK(gathered->owns_all());
  CHECK(gathered->steps() == 2);
  for (size_t i = 0; i < saved.size(); ++i) CHECK(gathered->state_tensors()[i].tensor.values() == saved[i].tensor.values());
}

TEST_CASE("the sharded step on a job of one rank is the plain step, bit for bit") {
  std::vector<NamedParameter> plain = make_parameters();
  std::vector<NamedParameter> sharded = copy_of(plain);
  Optimizer plain_optimizer(plain, adamw());
  Optimizer sharded_optimizer(sharded, adamw());
  OptimizerShards shards(sharded, 0, 1);
  sharded_optimizer.keep_only(shards.shard());
  for (int step = 1; step <= 3; ++step) {
    set_gradients(plain, step);
    set_gradients(sharded, step);
    const double plain_norm = clip_grad_norm(plain, 1.0);
    plain_optimizer.step(0.01);
    shards.reduce_scatter_gradients(sharded);
    const double sharded_norm = shards.clip_grad_norm(sharded, 1.0);
    sharded_optimizer.step(0.01);
    shards.all_gather_parameters(sharded);
    CHECK(sharded_norm == plain_norm);
    CHECK(all_values(sharded) == all_values(plain));
  }
  CHECK_FALSE(sharded[4].tensor.has_grad());
}
