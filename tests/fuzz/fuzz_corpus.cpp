// fuzz_corpus.cpp — the corpus reader (src/data/corpus.h) on arbitrary files.
//
// Feeds: the input split at its first NUL byte into two files read as a line-aligned pair (read_parallel; no NUL:
//   the same bytes on both sides), and the whole input as one "source<TAB>target" file (read_tsv).
// Asserts: each read accepts or refuses with a short attnlab::Error (fuzz_support.h) — a file that is not UTF-8,
//   sides of different lengths, a line without a TAB — never a crash; accepted text keeps corpus.h's promises:
//   as many sources as targets, no side empty, every sentence already space-normalised (normalize_spaces leaves
//   it as it is: no leading, trailing or doubled space), and lowercase() gives the same text when applied twice.
#include "data/corpus.h"
#include "fuzz_support.h"

using namespace attnlab;
using attnlab::fuzz::check;

namespace {

void check_sentence(const std::string& sentence) {
  check(!sentence.empty(), "an empty sentence accepted");
  check(normalize_spaces(sentence) == sentence, "a sentence whose spaces are not normalised: " + sentence);
  const std::string lower = lowercase(sentence);
  check(lowercase(lower) == lower, "lowercase is not idempotent on: " + sentence);
}

void check_text(const ParallelText& text) {
  check(text.src.size() == text.tgt.size(), "sides of different lengths accepted");
  for (const std::string& sentence : text.src) check_sentence(sentence);
  for (const std::string& sentence : text.tgt) check_sentence(sentence);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::bytes_of(data, size);
  const size_t split = bytes.find('\0');
  const std::string source_path = fuzz::scratch_file("train.src", bytes.substr(0, split));
  const std::string target_path =
      fuzz::scratch_file("train.tgt", split == std::string::npos ? bytes : bytes.substr(split + 1));
  ParallelText text;
  if (fuzz::refused_cleanly([&] { text = read_parallel(source_path, target_path); })) check_text(text);

  const std::string tsv_path = fuzz::scratch_file("train.tsv", bytes);
  if (fuzz::refused_cleanly([&] { text = read_tsv(tsv_path); })) check_text(text);
  return 0;
}
