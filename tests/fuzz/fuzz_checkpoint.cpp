// fuzz_checkpoint.cpp — the checkpoint loader (src/train/checkpoint.h), metadata included, as a resumed run uses it.
//
// Feeds: a tiny model and its Adam optimizer (d_model 4, one layer each side) and one valid checkpoint of them,
//   written at start-up. The input's first byte picks what the rest is:
//     even  the whole checkpoint file, as bytes (a damaged, truncated or hand-made file);
//     odd   edits to the valid checkpoint's metadata, NUL-separated "key", "value", "key", "value", …; a key
//           without a value is removed ("step" "-1": a negative step; "format": no format at all).
//   load_checkpoint then reads the file into the model and the optimizer, and, as the trainer does on resume,
//   checkpoint_extra_integer reads "epoch" and "batch_in_epoch" and the generator takes the saved state.
// Asserts: every step accepts or refuses with a short attnlab::Error (fuzz_support.h), never a crash, a raw
//   std::stoll / map::at exception or a read outside an array; a refused checkpoint has changed nothing in the
//   model or the optimizer (checkpoint.h's promise, checked bit for bit); an accepted one has a step ≥ 0 and a
//   generator state that the generator takes.
#include <cstring>
#include <map>
#include <memory>

#include "fuzz_support.h"
#include "model/transformer.h"
#include "tensor/safetensors.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "util/files.h"

using namespace attnlab;
using attnlab::fuzz::check;

namespace {

struct Fixture {
  std::unique_ptr<Seq2Seq> model;
  std::unique_ptr<Optimizer> optimizer;
  SafetensorsContents valid;           // the valid checkpoint, parsed
  std::string valid_bytes;             // … and as bytes
  std::vector<Tensor> weights;         // copies of the model's parameters, in named_parameters() order
  std::vector<NamedTensor> moments;    // copies of the optimizer's state_tensors()
  int64_t optimizer_steps = 0;
};

Fixture& fixture() {
  static Fixture f = [] {
    Fixture made;
    ModelConfig config;
    config.src_vocab = config.tgt_vocab = 8;
    config.share_embeddings = config.tie_output = true;
    config.d_model = 4;
    config.heads = 1;
    config.d_ff = 8;
    config.encoder_layers = config.decoder_layers = 1;
    config.dropout = 0;
    Generator init(1);
    made.model = std::make_unique<Seq2Seq>(config, init);
    made.optimizer = std::make_unique<Optimizer>(made.model->named_parameters(), OptimizerOptions{});
    CheckpointState state;
    state.step = 12;
    state.config_yaml = "model: {d_model: 4}\n";
    state.best_metric = 1.5;
    state.extra = {{"epoch", "1"}, {"batch_in_epoch", "3"}};
    const std::string path = (fuzz::scratch_directory() / "valid.safetensors").string();
    save_checkpoint(path, *made.model, *made.optimizer, state);
    made.valid_bytes = read_text_file(path);
    made.valid = parse_safetensors(made.valid_bytes, path);
    for (const NamedParameter& parameter : made.model->named_parameters()) made.weights.push_back(parameter.tensor.detach());
    for (const NamedTensor& moment : made.optimizer->state_tensors()) made.moments.push_back({moment.name, moment.tensor.detach()});
    made.optimizer_steps = made.optimizer->steps();
    return made;
  }();
  return f;
}

bool same_numbers(const Tensor& a, const Tensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), sizeof(real) * static_cast<size_t>(a.numel())) == 0;
}

void check_unchanged(const Fixture& f) {
  const std::vector<NamedParameter> parameters = f.model->named_parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    check(same_numbers(parameters[i].tensor, f.weights[i]), "a refused checkpoint changed " + parameters[i].name);
  }
  const std::vector<NamedTensor> moments = f.optimizer->state_tensors();
  for (size_t i = 0; i < moments.size(); ++i) {
    check(same_numbers(moments[i].tensor, f.moments[i].tensor), "a refused checkpoint changed " + moments[i].name);
  }
  check(f.optimizer->steps() == f.optimizer_steps, "a refused checkpoint changed the optimizer's step count");
}

// After an accepted checkpoint: the model and optimizer back as they were, for the next input.
void restore(Fixture& f) {
  const std::vector<NamedParameter> parameters = f.model->named_parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    Tensor target = parameters[i].tensor;
    std::memcpy(target.data(), f.weights[i].data(), sizeof(real) * static_cast<size_t>(target.numel()));
  }
  f.optimizer->load_state(f.moments, f.optimizer_steps);
}

// The valid checkpoint with its metadata edited as `edits` says (see the top of the file).
std::string edited_checkpoint(const Fixture& f, const std::string& edits) {
  std::vector<std::string> parts;
  size_t at = 0;
  while (at <= edits.size()) {
    const size_t end = std::min(edits.find('\0', at), edits.size());
    parts.push_back(edits.substr(at, end - at));
    at = end + 1;
  }
  std::map<std::string, std::string> metadata = f.valid.metadata;
  for (size_t i = 0; i < parts.size(); i += 2) {
    if (i + 1 < parts.size()) {
      metadata[parts[i]] = parts[i + 1];
    } else {
      metadata.erase(parts[i]);
    }
  }
  const std::string path = (fuzz::scratch_directory() / "edited.safetensors").string();
  save_safetensors(path, f.valid.tensors, metadata);
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Fixture& f = fixture();
  const std::string rest = fuzz::bytes_of(data + 1, size - 1);
  std::string path;
  if (data[0] % 2 == 0) {
    path = fuzz::scratch_file("fuzz.safetensors", rest);
  } else if (!fuzz::refused_cleanly([&] { path = edited_checkpoint(f, rest); })) {
    return 0;   // metadata save_safetensors refuses (say, a key "__metadata__")
  }

  CheckpointState state;
  if (!fuzz::refused_cleanly([&] { state = load_checkpoint(path, *f.model, f.optimizer.get()); })) {
    check_unchanged(f);
    return 0;
  }
  check(state.step >= 0, "a checkpoint with step " + std::to_string(state.step) + " accepted");
  Generator dropout_generator(2);
  dropout_generator.set_state(state.generator_state);   // checked by load_checkpoint: must not throw
  fuzz::refused_cleanly([&] {
    const int64_t epoch = checkpoint_extra_integer(path, state, "epoch", 0, state.step, ", at most the step");
    const int64_t batch = checkpoint_extra_integer(path, state, "batch_in_epoch", 0, 10, ", the batches in one epoch");
    check(epoch >= 0 && epoch <= state.step && batch >= 0 && batch <= 10, "an extra outside its range accepted");
  });
  restore(f);
  return 0;
}
