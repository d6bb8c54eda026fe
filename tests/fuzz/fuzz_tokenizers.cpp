// fuzz_tokenizers.cpp — every tokenizer kind's encode (src/data/tokenizers/tokenizer.h) on arbitrary text.
//
// Feeds: the input, as it is (bytes that need not be UTF-8) and cleaned the way translate cleans a line
//   (normalize_spaces), to the encode() of each kind data/config.h's TokenizerKind lists — word, char, bpe and unigram —
//   each trained once, at start-up, on 300 pairs of the toy English–French grammar.
// Asserts: encode accepts or refuses with a short attnlab::Error (fuzz_support.h), never a crash; every id is
//   in the vocabulary and is unk or a real token (text never becomes pad, bos or eos: "<s>" typed is a word, not
//   bos); pieces() gives one label per id and decode() accepts the ids; for word and char, re-encoding the
//   decoded text of a sentence without unk gives the same ids, and char's decode gives the cleaned text back.
#include <array>
#include <memory>

#include "data/corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "fuzz_support.h"
#include "tensor/token_ids.h"
#include "util/utf8.h"

using namespace attnlab;
using attnlab::fuzz::check;

namespace {

struct Kind {
  std::string name;
  std::unique_ptr<Tokenizer> tokenizer;
};

std::vector<Kind>& kinds() {
  static std::vector<Kind> trained = [] {
    ParallelText toy = fuzz::toy_text(300);
    std::vector<std::string> text = toy.src;
    text.insert(text.end(), toy.tgt.begin(), toy.tgt.end());
    std::vector<Kind> all;
    for (TokenizerKind kind : all_choices<TokenizerKind>()) {
      const std::string& name = name_of(kind);
      TokenizerConfig config;
      config.kind = kind;
      config.vocab_size = (kind == TokenizerKind::bpe || kind == TokenizerKind::unigram) ? 200 : 0;
      const std::string prefix = (fuzz::scratch_directory() / name).string();
      all.push_back({name, train_tokenizer(config, text, prefix)});
    }
    return all;
  }();
  return trained;
}

void check_encode(const Kind& kind, const std::string& text, bool cleaned) {
  std::vector<int32_t> ids;
  if (!fuzz::refused_cleanly([&] { ids = kind.tokenizer->encode(text); })) return;
  const int64_t vocab = kind.tokenizer->vocab_size();
  bool has_unk = false;
  for (int32_t id : ids) {
    check(id >= 0 && id < vocab, kind.name + ": id " + std::to_string(id) + " outside the vocabulary");
    check(id == unk_id || id > eos_id, kind.name + ": text encoded as the special id " + std::to_string(id));
    has_unk = has_unk || id == unk_id;
  }
  check(kind.tokenizer->pieces(ids).size() == ids.size(), kind.name + ": pieces() is not one label per id");
  std::string decoded;
  check(fuzz::refused_cleanly([&] { decoded = kind.tokenizer->decode(ids); }),
        kind.name + ": decode refused the ids encode gave");
  if (!cleaned || has_unk || (kind.name != "word" && kind.name != "char")) return;
  check(kind.tokenizer->encode(decoded) == ids, kind.name + ": encode(decode(ids)) is not ids for: " + text);
  if (kind.name == "char") check(decoded == text, "char: decode(encode(text)) is not the text: " + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::bytes_of(data, size);
  const bool utf8 = first_invalid_utf8(bytes) == std::string::npos;
  const std::string cleaned = normalize_spaces(bytes);
  for (const Kind& kind : kinds()) {
    check_encode(kind, bytes, false);
    if (utf8) check_encode(kind, cleaned, true);
  }
  return 0;
}
