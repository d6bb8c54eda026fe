// alloc_failure_cases.cpp — the readers under allocation failure, and the files they read (alloc_failure_cases.h).
#include "alloc_failure_cases.h"

#include <cstring>
#include <memory>

#include "data/corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "model/transformer.h"
#include "run/config_io.h"
#include "run/run.h"
#include "tensor/token_ids.h"
#include "test_support.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "util/files.h"

namespace attnlab::testing {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const std::vector<real>& numbers) {
  return std::string(reinterpret_cast<const char*>(numbers.data()), numbers.size() * sizeof(real));
}

// Every file in `folder` but `expected`, named; "" when there is none (no temporary file was left).
std::string other_files(const fs::path& folder, const std::string& expected) {
  std::string others;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    if (entry.path().filename() != expected) others += " " + entry.path().filename().string();
  }
  return others.empty() ? "" : "left behind:" + others;
}

// ---- checkpoint load and save ----

// A tiny model and its Adam state, with moments of its own (so that a load that changed them would show).
struct Trained {
  std::unique_ptr<Seq2Seq> model;
  std::unique_ptr<Optimizer> optimizer;
};

Trained tiny_trained(uint64_t seed, real moment_scale, int64_t steps) {
  ModelConfig config = small_model_config(12, 8, 2, 16, 1);
  config.share_embeddings = config.tie_output = true;
  Generator init(seed);
  Trained made{std::make_unique<Seq2Seq>(config, init), nullptr};
  made.optimizer = std::make_unique<Optimizer>(made.model->named_parameters(), OptimizerOptions{});
  std::vector<NamedTensor> moments = made.optimizer->state_tensors();
  for (size_t i = 0; i < moments.size(); ++i) {
    std::vector<real>& numbers = moments[i].tensor.values();
    for (size_t j = 0; j < numbers.size(); ++j) numbers[j] = moment_scale * static_cast<real>(i + j + 1);
  }
  made.optimizer->load_state(moments, steps);
  return made;
}

// The model's weights, the optimizer's moments and its step count, as bytes.
std::string state_bytes(const Trained& trained) {
  std::string bytes;
  for (const NamedParameter& parameter : trained.model->named_parameters())
    bytes += bytes_of(parameter.tensor.values());
  for (const NamedTensor& moment : trained.optimizer->state_tensors()) bytes += bytes_of(moment.tensor.values());
  return bytes + std::to_string(trained.optimizer->steps());
}

void restore(Trained& trained, const std::vector<Tensor>& weights, const std::vector<NamedTensor>& moments,
             int64_t steps) {
  const std::vector<NamedParameter> parameters = trained.model->named_parameters();
  for (size_t i = 0; i < parameters.size(); ++i) {
    Tensor target = parameters[i].tensor;
    target.values() = weights[i].values();
  }
  trained.optimizer->load_state(moments, steps);
}

ReaderCase checkpoint_load(const fs::path& work) {
  struct Fixture {
    Trained saved = tiny_trained(1, 1e-3f, 7), target = tiny_trained(2, 2e-3f, 3);
    std::vector<Tensor> weights;  // target's, to restore it after a successful load
    std::vector<NamedTensor> moments;
    std::string before, path;
    CheckpointState state;
    int64_t epoch = 0;
    bool loaded = false;  // load_checkpoint returned (the extras' read may still fail)
  };
  auto f = std::make_shared<Fixture>();
  f->path = (work / "load.safetensors").string();
  CheckpointState state;
  state.step = 12;
  state.config_yaml = "model: {d_model: 8}\n";
  state.best_metric = 1.5;
  state.extra = {{"epoch", "1"}, {"batch_in_epoch", "3"}};
  save_checkpoint(f->path, *f->saved.model, *f->saved.optimizer, state);
  for (const NamedParameter& parameter : f->target.model->named_parameters())
    f->weights.push_back(parameter.tensor.detach());
  for (const NamedTensor& moment : f->target.optimizer->state_tensors())
    f->moments.push_back({moment.name, moment.tensor.detach()});
  f->before = state_bytes(f->target);
  return {"checkpoint load",
          [f] {
            f->loaded = false;
            f->state = load_checkpoint(f->path, *f->target.model, f->target.optimizer.get());
            f->loaded = true;  // what may fail from here on (the extras) changes nothing
            f->epoch = checkpoint_extra_integer(f->path, f->state, "epoch", 0, f->state.step, ", at most the step");
          },
          [f] {
            return std::to_string(f->state.step) + f->state.config_yaml + f->state.generator_state +
                   std::to_string(f->epoch) + state_bytes(f->target);
          },
          [f] {
            if (f->loaded) {
              restore(f->target, f->weights, f->moments, 3);
              return "";
            }
            return state_bytes(f->target) == f->before ? "" : "a refused load changed the model or the optimizer";
          },
          [f] { restore(f->target, f->weights, f->moments, 3); }};
}

// A writer: `write` replaces `path`, which holds `old_bytes` before each try; a refused write must leave them whole
// and no other file in the folder.
ReaderCase file_writer(const std::string& name, const fs::path& path, const std::string& old_bytes,
                       std::function<void()> write) {
  fs::create_directories(path.parent_path());
  write_file_atomically(path.string(), old_bytes);
  const std::string file = path.string(), file_name = path.filename().string();
  const fs::path folder = path.parent_path();
  return {name, std::move(write), [file] { return read_text_file(file); },
          [file, file_name, folder, old_bytes] {
            if (!fs::exists(file) || read_text_file(file) != old_bytes) return std::string("the old file is not whole");
            return other_files(folder, file_name);
          },
          [file, old_bytes] { write_file_atomically(file, old_bytes); }};
}

ReaderCase checkpoint_save(const fs::path& work) {
  auto from = std::make_shared<Trained>(tiny_trained(3, 1e-3f, 5));
  const fs::path path = work / "save" / "step-00000012.safetensors";
  Trained previous = tiny_trained(4, 2e-3f, 4);
  save_checkpoint((work / "previous.safetensors").string(), *previous.model, *previous.optimizer, CheckpointState{});
  CheckpointState state;
  state.step = 12;
  state.extra = {{"epoch", "1"}};
  return file_writer("checkpoint save", path, read_text_file((work / "previous.safetensors").string()),
                     [from, path, state] { save_checkpoint(path.string(), *from->model, *from->optimizer, state); });
}

// ---- config and corpus ----

ReaderCase config(const std::string& source_dir) {
  auto read = std::make_shared<RunConfig>();
  const std::string path = source_dir + "/configs/toy-en-fr.yaml";
  return {"config (toy-en-fr.yaml)",
          [read, path] {
            *read = load_config(path, {"train.max_steps=100", "decode.beam=2"});
          },
          [read] { return to_yaml(*read); }, [] { return std::string(); }, [] {}};
}

std::string joined(const ParallelText& text) {
  std::string all;
  for (size_t i = 0; i < text.src.size(); ++i) all += text.src[i] + "\t" + text.tgt[i] + "\n";
  return all + std::to_string(text.empty_skipped);
}

// 200 pairs of the toy corpus as two files and as one TSV file; both readers.
std::vector<ReaderCase> corpus(const ParallelText& toy, const fs::path& work) {
  std::string src, tgt, tsv;
  for (size_t i = 0; i < toy.src.size(); ++i) {
    src += toy.src[i] + "\n";
    tgt += toy.tgt[i] + "\n";
    tsv += toy.src[i] + "\t" + toy.tgt[i] + "\n";
  }
  const std::string src_path = (work / "corpus.en").string(), tgt_path = (work / "corpus.fr").string();
  const std::string tsv_path = (work / "corpus.tsv").string();
  write_file_atomically(src_path, src);
  write_file_atomically(tgt_path, tgt);
  write_file_atomically(tsv_path, tsv);
  auto pair = std::make_shared<ParallelText>(), table = std::make_shared<ParallelText>();
  const auto nothing = [] { return std::string(); };
  return {{"corpus (two files)", [=] { *pair = read_parallel(src_path, tgt_path); }, [=] { return joined(*pair); },
           nothing, [] {}},
          {"corpus (TSV)", [=] { *table = read_tsv(tsv_path); }, [=] { return joined(*table); }, nothing, [] {}}};
}

// ---- tokenizers ----

std::string vocabulary(const Tokenizer& tokenizer) {
  std::vector<int32_t> ids;
  for (int64_t id = 0; id < tokenizer.vocab_size(); ++id) ids.push_back(static_cast<int32_t>(id));
  std::string all;
  for (const std::string& piece : tokenizer.pieces(ids)) all += piece + "\n";
  return all;
}

// A run folder holding the tokenizers of `kind` trained on the toy pairs, and tokenizers.json; the reader is
// load_run_tokenizers, as translate and resume use it. char keeps two vocabularies (tokenizer.shared: false).
ReaderCase tokenizers(TokenizerKind kind, const ParallelText& toy, const fs::path& work) {
  auto config = std::make_shared<RunConfig>();
  config->tokenizer.kind = kind;
  config->tokenizer.vocab_size = (kind == TokenizerKind::bpe || kind == TokenizerKind::unigram) ? 200 : 0;
  config->tokenizer.shared = kind != TokenizerKind::character;
  const std::string folder = (work / ("run-" + name_of(kind))).string();
  fs::create_directories(folder);
  prepare_tokenizers(*config, folder, toy.src, toy.tgt);
  auto read = std::make_shared<RunTokenizers>();
  ReaderCase reader{"tokenizers (" + name_of(kind) + ")", [=] { *read = load_run_tokenizers(*config, folder); },
                    [=] { return vocabulary(*read->src) + vocabulary(*read->tgt); }, [] { return std::string(); },
                    [=] { *read = RunTokenizers{}; }};
  if (kind == TokenizerKind::bpe || kind == TokenizerKind::unigram) {
    reader.not_failed = "SentencePieceProcessor::Load (its bundled protobuf-lite crashes on a failed allocation)";
  }
  return reader;
}

ReaderCase tokenizer_save(TokenizerKind kind, const ParallelText& toy, const fs::path& work) {
  TokenizerConfig config;
  config.kind = kind;
  config.vocab_size = (kind == TokenizerKind::bpe || kind == TokenizerKind::unigram) ? 200 : 0;
  std::vector<std::string> text = toy.src;
  text.insert(text.end(), toy.tgt.begin(), toy.tgt.end());
  std::shared_ptr<Tokenizer> tokenizer = train_tokenizer(config, text, (work / ("train-" + name_of(kind))).string());
  const fs::path prefix = work / ("save-" + name_of(kind)) / "tokenizer";
  const std::string extension = kind == TokenizerKind::word || kind == TokenizerKind::character ? ".vocab" : ".model";
  fs::path path = prefix;
  path += extension;
  return file_writer("tokenizer save (" + name_of(kind) + ")", path, "an older tokenizer file\n",
                     [tokenizer, prefix] { tokenizer->save(prefix.string()); });
}

}  // namespace

std::vector<ReaderCase> reader_cases(const std::string& source_dir, const fs::path& work) {
  ParallelText toy = read_parallel(source_dir + "/data/toy-en-fr/train.en", source_dir + "/data/toy-en-fr/train.fr");
  toy.src.resize(200);
  toy.tgt.resize(200);
  std::vector<ReaderCase> cases{checkpoint_load(work), checkpoint_save(work), config(source_dir)};
  for (ReaderCase& reader : corpus(toy, work)) cases.push_back(std::move(reader));
  for (TokenizerKind kind : all_choices<TokenizerKind>()) cases.push_back(tokenizers(kind, toy, work));
  cases.push_back(tokenizer_save(TokenizerKind::word, toy, work));
  cases.push_back(tokenizer_save(TokenizerKind::bpe, toy, work));
  return cases;
}

}  // namespace attnlab::testing
