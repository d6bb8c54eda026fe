// sentencepiece_absent.cpp — the stand-in for sentencepiece_tokenizer.cpp in a build without the sentencepiece
// library (the browser build, cmake/browser.cmake): the word and char tokenizers work, bpe and unigram say so.
#include "data/tokenizers/tokenizer_kinds.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {
Error absent(const std::string& kind) {
  return Error("tokenizer.kind " + kind +
               " needs the sentencepiece library, which this build leaves out (the "
               "browser build: cmake/browser.cmake); use a run with tokenizer.kind word or char, or the native "
               "attnlab");
}
}  // namespace

std::unique_ptr<Tokenizer> train_sentencepiece_tokenizer(const TokenizerConfig& config, const std::vector<std::string>&,
                                                         const std::string&) {
  throw absent(name_of(config.kind));
}

std::unique_ptr<Tokenizer> load_sentencepiece_tokenizer(const std::string& path_prefix) {
  throw absent("bpe or unigram (" + path_prefix + ".model)");
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
