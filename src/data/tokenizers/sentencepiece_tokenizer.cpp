// sentencepiece_tokenizer.cpp — subword tokens (bpe or unigram), trained and applied by Google's sentencepiece.
//
// Subwords sit between words and characters: frequent words are one token, rare ones are spelled from pieces
// ("▁Schwimm" "bad"), so nothing is ever unknown and sequences stay short. Two ways to choose the pieces:
//   bpe      (Sennrich et al. 2016) start from characters and repeatedly merge the most frequent adjacent pair
//            until vocab_size pieces exist;
//   unigram  (Kudo 2018) start from many candidate pieces and repeatedly drop those whose removal costs the
//            least likelihood under a unigram language model, until vocab_size remain.
// sentencepiece writes a space as "▁" inside pieces, so decoding is concatenation. It first normalises text with
// its default rule nmt_nfkc (Unicode NFKC plus white-space clean-up), so decode(encode(x)) is the normalised x:
// "…" comes back as "...", a full-width "Ａ" as "A".
//
// attnlab pins what sentencepiece would otherwise choose:
//   pad_id=0 bos_id=1 eos_id=2 unk_id=3   the fixed special ids of every attnlab tokenizer (model/config.h)
//   byte_fallback=false                   an unseen character is unk, not a run of byte tokens
//   character_coverage=1.0                every character of the training text gets a piece (the default 0.9995
//                                         is for Chinese/Japanese, where rare characters are many)
// Training is deterministic: every sentence is used (input_sentence_size=0, so nothing is sampled) and
// sentencepiece's random generator is seeded with a constant before training anyway.
// sentencepiece's own progress log is turned down to warnings (minloglevel=1): it writes to stderr directly,
// not through spdlog.
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <new>
#include <string_view>
#include <unordered_map>

#include "data/tokenizers/tokenizer_kinds.h"
#include "model/config.h"
#include "util/error.h"
#include "util/quote.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// sentencepiece's messages start with the source line and the failed check, "./src/x.cc(660) [a == b] Vocabulary
// size too high …"; a user needs only the sentence after them.
std::string plain_message(const sentencepiece::util::Status& status) {
  std::string message = status.message();
  size_t check_end = message.rfind("] ");
  if (check_end != std::string::npos && check_end + 2 < message.size()) return message.substr(check_end + 2);
  return status.ToString();
}

// processor.Load(path), with running out of memory reported as std::bad_alloc: sentencepiece's bundled darts_clone
// (the unigram model's trie) turns a failed allocation into an exception of its own, "darts.h:703: exception: failed
// to resize pool: std::bad_alloc" (tests/run/alloc_failure/).
sentencepiece::util::Status load_model(sentencepiece::SentencePieceProcessor& processor, const std::string& path) {
  try {
    return processor.Load(path);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    if (std::string_view(error.what()).find("bad_alloc") != std::string_view::npos) throw std::bad_alloc();
    throw;
  }
}

class SentencePieceTokenizer : public Tokenizer {
 public:
  // Loads path (a .model file); throws attnlab::Error naming it if it is missing or not an attnlab model.
  explicit SentencePieceTokenizer(const std::string& path) {
    if (!std::filesystem::is_regular_file(path)) {
      throw Error(path + ": no such file (a bpe or unigram tokenizer is saved as <prefix>.model)");
    }
    sentencepiece::util::Status status = load_model(processor_, path);
    if (!status.ok()) {
      spdlog::debug("sentencepiece could not load {}: {}", path, status.ToString());
      throw Error(path + " is not a sentencepiece model: it does not parse as one (is it truncated, or a file of "
                         "another kind?)");
    }
    const bool pinned = processor_.pad_id() == pad_id && processor_.bos_id() == bos_id &&
                        processor_.eos_id() == eos_id && processor_.unk_id() == unk_id;
    if (!pinned) {
      throw Error(path + " was not trained by attnlab: its special ids are pad " +
                  std::to_string(processor_.pad_id()) + ", bos " + std::to_string(processor_.bos_id()) + ", eos " +
                  std::to_string(processor_.eos_id()) + ", unk " + std::to_string(processor_.unk_id()) +
                  " (attnlab needs 0, 1, 2, 3)");
    }
  }

  std::vector<int32_t> encode(const std::string& text) const override {
    std::vector<int> ids;
    sentencepiece::util::Status status = processor_.Encode(text, &ids);
    if (!status.ok()) throw Error("sentencepiece could not encode " + quote(text) + ": " + plain_message(status));
    return {ids.begin(), ids.end()};
  }

  // Each piece's span of the (normalised) text: an unknown piece's own characters instead of "<unk>".
  std::vector<std::string> surfaces(const std::string& text) const override {
    sentencepiece::ImmutableSentencePieceText spt;
    sentencepiece::util::Status status = processor_.Encode(text, spt.mutable_proto());
    if (!status.ok()) throw Error("sentencepiece could not encode " + quote(text) + ": " + plain_message(status));
    std::vector<std::string> out;
    for (const auto& piece : spt.pieces()) out.push_back(piece.surface());
    return out;
  }

  std::string decode(const std::vector<int32_t>& ids) const override {
    std::vector<int> text_ids;
    for (int32_t id : ids) {
      if (id == eos_id) break;
      if (id == pad_id || id == bos_id) continue;
      check_id(id);
      text_ids.push_back(id);
    }
    std::string text;
    sentencepiece::util::Status status = processor_.Decode(text_ids, &text);
    if (!status.ok()) throw Error("sentencepiece could not decode: " + plain_message(status));
    return text;
  }

  std::vector<std::string> pieces(const std::vector<int32_t>& ids) const override {
    std::vector<std::string> labels;
    labels.reserve(ids.size());
    for (int32_t id : ids) {
      check_id(id);
      labels.push_back(processor_.IdToPiece(id));
    }
    return labels;
  }

  int64_t vocab_size() const override { return processor_.GetPieceSize(); }

  void save(const std::string& path_prefix) const override {
    write_file_atomically(path_prefix + ".model", processor_.serialized_model_proto());
  }

 private:
  void check_id(int32_t id) const {
    if (id < 0 || id >= processor_.GetPieceSize()) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary (0 … " +
                  std::to_string(processor_.GetPieceSize() - 1) + ")");
    }
  }

  sentencepiece::SentencePieceProcessor processor_;
};

}  // namespace

std::unique_ptr<Tokenizer> train_sentencepiece_tokenizer(const TokenizerConfig& config,
                                                         const std::vector<std::string>& text,
                                                         const std::string& work_prefix) {
  if (config.vocab_size <= static_cast<int64_t>(special_pieces.size())) {
    throw Error("tokenizer.vocab_size = " + std::to_string(config.vocab_size) + " is too small for a " +
                name_of(config.kind) + " tokenizer: it needs the 4 special ids and at least one piece per character");
  }

  // sentencepiece reads its training text from a file, one sentence per line.
  const std::string input_path = work_prefix + ".input.txt";
  std::string lines;
  for (const std::string& sentence : text) {
    std::string line = sentence;
    for (char& c : line) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    lines += line + "\n";
  }
  write_file_atomically(input_path, lines);

  const std::unordered_map<std::string, std::string> options = {
      {"input", input_path},
      {"model_prefix", work_prefix},
      {"model_type", name_of(config.kind)},
      {"vocab_size", std::to_string(config.vocab_size)},
      {"pad_id", std::to_string(pad_id)},
      {"bos_id", std::to_string(bos_id)},
      {"eos_id", std::to_string(eos_id)},
      {"unk_id", std::to_string(unk_id)},
      {"pad_piece", special_pieces[pad_id]},
      {"bos_piece", special_pieces[bos_id]},
      {"eos_piece", special_pieces[eos_id]},
      {"unk_piece", special_pieces[unk_id]},
      {"byte_fallback", "false"},
      {"character_coverage", "1.0"},
      {"input_sentence_size", "0"},
      {"minloglevel", "1"},
  };
  sentencepiece::SetRandomGeneratorSeed(1);
  spdlog::info("training a sentencepiece {} tokenizer of {} ids on {} sentences", name_of(config.kind),
               config.vocab_size, text.size());
  sentencepiece::util::Status status = sentencepiece::SentencePieceTrainer::Train(options);
  std::remove(input_path.c_str());
  if (!status.ok()) {
    throw Error("sentencepiece could not train a " + name_of(config.kind) + " tokenizer with tokenizer.vocab_size = " +
                std::to_string(config.vocab_size) + ": " + plain_message(status));
  }
  return std::make_unique<SentencePieceTokenizer>(work_prefix + ".model");
}

std::unique_ptr<Tokenizer> load_sentencepiece_tokenizer(const std::string& path_prefix) {
  return std::make_unique<SentencePieceTokenizer>(path_prefix + ".model");
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
