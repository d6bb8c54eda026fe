// tokenizer.cpp — choosing a tokenizer by kind, and the vocabulary machine the word and char kinds share.
//
// train_tokenizer / load_tokenizer look at TokenizerConfig.kind and hand over to the kind's own file
// (tokenizer_kinds.h lists them). VocabularyTokenizer, below, is a list of pieces and a map back from piece to
// id; encode() is "split, then look each piece up (unk if absent)", decode() is "look each id up, then join".
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "data/corpus.h"
#include "data/tokenizers/tokenizer_kinds.h"
#include "model/config.h"
#include "util/error.h"
#include "util/files.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

const std::vector<std::string>& choice_names(TokenizerKind) {
  static const std::vector<std::string> names{"word", "char", "bpe", "unigram"};
  return names;
}

// ---- Dispatch by kind ----

std::unique_ptr<Tokenizer> train_tokenizer(const TokenizerConfig& config, const std::vector<std::string>& text,
                                           const std::string& work_prefix) {
  if (text.empty()) throw Error("cannot train a " + name_of(config.kind) + " tokenizer: there is no training text");
  if (config.vocab_size < 0) {
    throw Error("tokenizer.vocab_size = " + std::to_string(config.vocab_size) + " is negative");
  }
  switch (config.kind) {
    case TokenizerKind::word: return train_word_tokenizer(config, text);
    case TokenizerKind::character: return train_char_tokenizer(config, text);
    case TokenizerKind::bpe:
    case TokenizerKind::unigram: return train_sentencepiece_tokenizer(config, text, work_prefix);
  }
  throw Error("tokenizer.kind: no kind numbered " + std::to_string(static_cast<int>(config.kind)));
}

std::unique_ptr<Tokenizer> load_tokenizer(const TokenizerConfig& config, const std::string& path_prefix) {
  switch (config.kind) {
    case TokenizerKind::word: return load_word_tokenizer(path_prefix);
    case TokenizerKind::character: return load_char_tokenizer(path_prefix);
    case TokenizerKind::bpe:
    case TokenizerKind::unigram: return load_sentencepiece_tokenizer(path_prefix);
  }
  throw Error("tokenizer.kind: no kind numbered " + std::to_string(static_cast<int>(config.kind)));
}

// ---- VocabularyTokenizer ----

void VocabularyTokenizer::build(const std::vector<std::string>& text, int64_t min_count, int64_t vocab_size,
                                const std::string& kind) {
  if (vocab_size > 0 && vocab_size <= static_cast<int64_t>(special_pieces.size())) {
    throw Error("tokenizer.vocab_size = " + std::to_string(vocab_size) + " leaves the " + kind +
                " tokenizer no room for real tokens beside the 4 special ids (0 means no cap)");
  }
  std::unordered_map<std::string, int64_t> counts;
  for (const std::string& sentence : text) {
    for (std::string& piece : split(sentence)) ++counts[std::move(piece)];
  }

  // A piece with a line end could not be saved one per line; a special piece in the text stays unk.
  std::vector<std::pair<std::string, int64_t>> ranked;
  int64_t rare = 0;
  for (const auto& [piece, count] : counts) {
    if (piece.find_first_of("\r\n") != std::string::npos) continue;
    if (std::find(special_pieces.begin(), special_pieces.end(), piece) != special_pieces.end()) continue;
    if (count < min_count) {
      ++rare;
      continue;
    }
    ranked.emplace_back(piece, count);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;  // most frequent first, then a…z
  });

  std::vector<std::string> pieces(special_pieces.begin(), special_pieces.end());
  size_t room = vocab_size > 0 ? static_cast<size_t>(vocab_size) - pieces.size() : ranked.size();
  size_t kept = std::min(room, ranked.size());
  for (size_t i = 0; i < kept; ++i) pieces.push_back(ranked[i].first);
  spdlog::info("{} tokenizer: {} ids ({} distinct pieces in the text, {} seen fewer than min_count = {} times, "
               "{} beyond vocab_size)",
               kind, pieces.size(), counts.size(), rare, min_count, ranked.size() - kept);
  set_pieces(std::move(pieces));
}

void VocabularyTokenizer::read(const std::string& path_prefix, const std::string& kind) {
  const std::string path = path_prefix + ".vocab";
  std::vector<std::string> lines = read_lines(path);
  for (size_t i = 0; i < special_pieces.size(); ++i) {
    if (i >= lines.size() || lines[i] != special_pieces[i]) {
      throw Error(path + " is not an attnlab vocabulary: line " + std::to_string(i + 1) + " should be \"" +
                  special_pieces[i] + "\" but is " + (i < lines.size() ? quote(lines[i]) : "missing"));
    }
  }
  std::unordered_map<std::string, size_t> first_line;
  for (size_t i = special_pieces.size(); i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1) + ": ";
    if (!is_valid_piece(lines[i])) {
      throw Error(where + quote(lines[i]) + " is not a " + kind + " piece; was this file written by a " +
                  "tokenizer of another tokenizer.kind?");
    }
    auto [previous, inserted] = first_line.emplace(lines[i], i + 1);
    if (!inserted) {
      throw Error(where + quote(lines[i]) + " appears twice (first on line " + std::to_string(previous->second) +
                  ")");
    }
  }
  set_pieces(std::move(lines));
}

void VocabularyTokenizer::save(const std::string& path_prefix) const {
  std::string contents;
  for (const std::string& piece : pieces_) contents += piece + "\n";
  write_file_atomically(path_prefix + ".vocab", contents);
}

std::vector<int32_t> VocabularyTokenizer::encode(const std::string& text) const {
  std::vector<int32_t> ids;
  for (const std::string& piece : split(text)) {
    auto found = ids_.find(piece);
    // The text "<s>" is an unknown word, not the bos id: only real tokens (id ≥ 4) come from text.
    bool real_token = found != ids_.end() && found->second >= static_cast<int32_t>(special_pieces.size());
    ids.push_back(real_token ? found->second : unk_id);
  }
  return ids;
}

std::string VocabularyTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::vector<std::string> text_pieces;
  for (int32_t id : ids) {
    if (id == eos_id) break;
    if (id == pad_id || id == bos_id) continue;
    text_pieces.push_back(piece_of(id));
  }
  return join(text_pieces);
}

std::vector<std::string> VocabularyTokenizer::pieces(const std::vector<int32_t>& ids) const {
  std::vector<std::string> labels;
  labels.reserve(ids.size());
  for (int32_t id : ids) labels.push_back(piece_of(id));
  return labels;
}

void VocabularyTokenizer::set_pieces(std::vector<std::string> pieces) {
  pieces_ = std::move(pieces);
  ids_.clear();
  for (size_t id = 0; id < pieces_.size(); ++id) ids_.emplace(pieces_[id], static_cast<int32_t>(id));
}

const std::string& VocabularyTokenizer::piece_of(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= pieces_.size()) {
    throw Error("token id " + std::to_string(id) + " is outside the vocabulary (0 … " +
                std::to_string(pieces_.size() - 1) + ")");
  }
  return pieces_[static_cast<size_t>(id)];
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
