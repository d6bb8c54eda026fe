// golden_support.h — comparing a model with PyTorch through a golden file (tools/make_golden.py): loading the
// file, building the config it names, taking PyTorch's weights by name, and comparing logits, loss and every
// gradient to |attnlab − PyTorch| ≤ 1e-9 + 1e-9 · |PyTorch|. The encoder–decoder's test (tests/model/f64_golden.cpp)
// and the decoder-only model's (tests/gpt/f64_golden.cpp) both use it.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "model/transformer.h"
#include "tensor/safetensors.h"
#include "util/error.h"

namespace attnlab::testing {

inline constexpr double absolute_tolerance = 1e-9;
inline constexpr double relative_tolerance = 1e-9;

// One golden file, sorted by what each tensor is.
struct Golden {
  std::string path;
  std::map<std::string, std::string> metadata;
  std::map<std::string, Tensor> weights;     // "encoder.layers.0.self_attn.q_proj.weight" → its value
  std::map<std::string, Tensor> gradients;   // the same names (without "grad.") → PyTorch's gradient
  std::map<std::string, Tensor> data;        // "input.src", …, "output.logits", "output.loss"
};

inline Golden load_golden(const std::string& path) {
  SafetensorsContents contents = load_safetensors(path);   // a missing file throws, naming the path
  Golden golden;
  golden.path = path;
  golden.metadata = contents.metadata;
  for (NamedTensor& named : contents.tensors) {
    const std::string& name = named.name;
    if (name.rfind("grad.", 0) == 0) {
      golden.gradients[name.substr(5)] = named.tensor;
    } else if (name.rfind("input.", 0) == 0 || name.rfind("output.", 0) == 0) {
      golden.data[name] = named.tensor;
    } else {
      golden.weights[name] = named.tensor;
    }
  }
  return golden;
}

inline const std::string& metadata_value(const Golden& golden, const std::string& key) {
  auto found = golden.metadata.find(key);
  if (found == golden.metadata.end()) {
    throw Error(golden.path + ": the metadata has no \"" + key + "\"; regenerate the file with "
                "/usr/bin/python3 tools/make_golden.py");
  }
  return found->second;
}

inline const Tensor& data_tensor(const Golden& golden, const std::string& name) {
  auto found = golden.data.find(name);
  if (found == golden.data.end()) throw Error(golden.path + ": the file has no tensor \"" + name + "\"");
  return found->second;
}

// The model the file was made with: the metadata holds ModelConfig's keys.
inline ModelConfig config_from(const Golden& golden) {
  auto integer = [&](const char* key) { return std::stoll(metadata_value(golden, key)); };
  auto boolean = [&](const char* key) { return metadata_value(golden, key) == "true"; };
  // A fixed choice, written with the config's word for it.
  auto choice = [&]<typename Enum>(const char* key, Enum) {
    const std::string& word = metadata_value(golden, key);
    const std::optional<Enum> value = choice_named<Enum>(word);
    if (!value) throw Error(std::string("golden file: ") + key + " '" + word + "' is not a word the config knows");
    return *value;
  };
  ModelConfig c;
  c.src_vocab = integer("src_vocab");
  c.tgt_vocab = integer("tgt_vocab");
  c.d_model = integer("d_model");
  c.heads = integer("heads");
  c.d_ff = integer("d_ff");
  c.encoder_layers = integer("encoder_layers");
  c.decoder_layers = integer("decoder_layers");
  c.dropout = std::stod(metadata_value(golden, "dropout"));
  c.activation = choice("activation", Activation{});
  c.norm = choice("norm", NormPlacement{});
  c.positional = choice("positional", PositionalKind{});
  c.share_embeddings = boolean("share_embeddings");
  c.tie_output = boolean("tie_output");
  if (golden.metadata.count("path")) c.path = choice_named<ComputePath>(golden.metadata.at("path")).value();
  c.encoder_attention.kind = c.decoder_attention.kind = c.cross_attention.kind = choice("attention", AttentionKind{});
  return c;
}

// Token ids were stored as F64; each must be a whole number.
inline TokenIds token_ids(const Golden& golden, const std::string& name) {
  const Tensor& stored = data_tensor(golden, name);
  TokenIds ids;
  ids.shape = stored.shape();
  for (int64_t i = 0; i < stored.numel(); ++i) {
    const real value = stored.data()[i];
    if (value != std::floor(value)) throw Error(golden.path + ": " + name + " holds " + std::to_string(value));
    ids.values.push_back(static_cast<int32_t>(value));
  }
  return ids;
}

// "[2, 5, 11]": the index of a row-major offset within a shape.
inline std::string index_text(const Shape& shape, int64_t offset) {
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
  for (int axis = shape.rank() - 1; axis >= 0; --axis) {
    index[static_cast<size_t>(axis)] = offset % shape[axis];
    offset /= shape[axis];
  }
  std::string text = "[";
  for (size_t a = 0; a < index.size(); ++a) text += (a ? ", " : "") + std::to_string(index[a]);
  return text + "]";
}

// How well attnlab's numbers match PyTorch's for one tensor.
struct Agreement {
  std::string name;
  double max_abs_error = 0;   // max |attnlab − PyTorch| over the elements
  int64_t outside = 0;        // elements outside the tolerance
  std::string worst;          // the element furthest outside it (or closest to it), in words
};

inline Agreement compare(const std::string& name, const Shape& shape, const real* ours, const Tensor& theirs) {
  Agreement result;
  result.name = name;
  double worst_ratio = -1;                                       // |Δ| / tolerance of the worst element
  for (int64_t i = 0; i < theirs.numel(); ++i) {
    const double a = ours ? static_cast<double>(ours[i]) : 0.0;  // no gradient at all counts as zeros
    const double b = static_cast<double>(theirs.data()[i]);
    const double error = std::abs(a - b);
    const double tolerance = absolute_tolerance + relative_tolerance * std::abs(b);
    const double ratio = std::isnan(error) ? INFINITY : error / tolerance;
    result.max_abs_error = std::max(result.max_abs_error, std::isnan(error) ? INFINITY : error);
    if (!(error <= tolerance)) ++result.outside;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      std::ostringstream text;
      text.precision(17);
      text << "element " << index_text(shape, i) << ": attnlab " << a << ", PyTorch " << b << ", |difference| "
           << error;
      result.worst = text.str();
    }
  }
  return result;
}

inline std::string describe(const Agreement& a, int64_t elements) {
  std::ostringstream text;
  text << a.name << " differs from PyTorch in " << a.outside << " of " << elements << " numbers; worst "
       << a.worst << " (allowed " << absolute_tolerance << " + " << relative_tolerance << "·|PyTorch|)";
  return text.str();
}

// Everything one run against a golden file found.
struct GoldenRun {
  std::vector<std::string> missing, extra;    // parameter names only PyTorch has / only attnlab has
  std::vector<std::string> shape_problems;
  std::vector<Agreement> logits_loss;         // output.logits, output.loss
  std::vector<Agreement> gradients;           // one per parameter, in attnlab's order
  std::map<std::string, int64_t> elements;    // name → number count, for messages
};

// Copies PyTorch's weights into `model` by name. The parameter names must be exactly PyTorch's state_dict names,
// both ways, and the shapes the same; false (with the problems in `run`) when they are not.
inline bool take_weights(const Golden& golden, Module& model, GoldenRun& run) {
  const std::vector<NamedParameter> parameters = model.named_parameters();
  std::set<std::string> ours;
  for (const NamedParameter& p : parameters) ours.insert(p.name);
  for (const auto& [name, tensor] : golden.weights) {
    if (!ours.count(name)) run.missing.push_back(name);
  }
  for (const std::string& name : ours) {
    if (!golden.weights.count(name)) {
      run.extra.push_back(name);
    } else if (!golden.gradients.count(name)) {
      run.missing.push_back("grad." + name);
    }
  }
  if (!run.missing.empty() || !run.extra.empty()) return false;
  for (const NamedParameter& p : parameters) {
    const Tensor& theirs = golden.weights.at(p.name);
    if (theirs.shape() != p.tensor.shape() || golden.gradients.at(p.name).shape() != p.tensor.shape()) {
      run.shape_problems.push_back(p.name + ": attnlab " + p.tensor.shape().str() + ", PyTorch " +
                                   theirs.shape().str());
      continue;
    }
    Tensor mine = p.tensor;
    std::copy(theirs.data(), theirs.data() + theirs.numel(), mine.data());
  }
  return run.shape_problems.empty();
}

// Compares attnlab's logits, loss and every parameter's gradient (after backward) with PyTorch's.
inline void compare_outputs(const Golden& golden, const Module& model, const Tensor& logits, const Tensor& loss,
                     GoldenRun& run) {
  for (const auto& [name, computed] : {std::pair{"output.logits", logits}, std::pair{"output.loss", loss}}) {
    const Tensor& expected = data_tensor(golden, name);
    if (expected.shape() != computed.shape()) {
      run.shape_problems.push_back(std::string(name) + ": attnlab " + computed.shape().str() + ", PyTorch " +
                                   expected.shape().str());
      continue;
    }
    run.logits_loss.push_back(compare(name, expected.shape(), computed.data(), expected));
    run.elements[name] = expected.numel();
  }
  for (const NamedParameter& p : model.named_parameters()) {
    const Tensor& expected = golden.gradients.at(p.name);
    const real* computed = p.tensor.has_grad() ? p.tensor.grad_values().data() : nullptr;
    run.gradients.push_back(compare("grad." + p.name, expected.shape(), computed, expected));
    run.elements["grad." + p.name] = expected.numel();
  }
}

inline real label_smoothing_of(const Golden& golden) {
  REQUIRE(std::stoi(metadata_value(golden, "pad_id")) == pad_id);
  return static_cast<real>(std::stod(metadata_value(golden, "label_smoothing")));
}

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += "\n  " + line;
  return text;
}

// Every check of one run against its file; `what` names the model in the message.
inline void check_golden_run(const Golden& golden, const GoldenRun& run, const std::string& what) {
  if (!run.missing.empty()) FAIL_CHECK("PyTorch has parameters attnlab does not:" << join_lines(run.missing));
  if (!run.extra.empty()) FAIL_CHECK("attnlab has parameters PyTorch does not:" << join_lines(run.extra));
  if (!run.shape_problems.empty()) FAIL_CHECK("shapes differ:" << join_lines(run.shape_problems));
  REQUIRE(run.missing.empty());
  REQUIRE(run.extra.empty());
  REQUIRE(run.shape_problems.empty());
  REQUIRE(run.logits_loss.size() == 2);
  REQUIRE(run.gradients.size() == golden.weights.size());

  for (const std::vector<Agreement>* group : {&run.logits_loss, &run.gradients}) {
    for (const Agreement& a : *group) {
      if (a.outside > 0) FAIL_CHECK(describe(a, run.elements.at(a.name)));
    }
  }

  // How close it came, for the record.
  auto worst = std::max_element(run.gradients.begin(), run.gradients.end(), [](const Agreement& a, const Agreement& b) {
    return a.max_abs_error < b.max_abs_error;
  });
  MESSAGE(what << " vs PyTorch " << metadata_value(golden, "torch_version") << ": max |difference| logits "
               << run.logits_loss[0].max_abs_error << ", loss " << run.logits_loss[1].max_abs_error
               << ", gradients " << worst->max_abs_error << " (" << worst->name << ", over "
               << run.gradients.size() << " parameters)");
}

}  // namespace attnlab::testing
