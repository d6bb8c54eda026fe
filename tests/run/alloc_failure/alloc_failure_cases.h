// alloc_failure_cases.h — the readers (and writers) alloc_failure_test.cpp makes run out of memory, each with what
// it promises after a refused read.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace attnlab::testing {

struct ReaderCase {
  std::string name;
  std::function<void()> read;              // the reader, once, on files set up beforehand (the counted part)
  std::function<std::string()> result;     // what the last successful read gave, as text to compare
  std::function<std::string()> unchanged;  // after a refused read: "" when what it must not touch is as it was
  std::function<void()> reset;             // after a successful read: back to the state before it
  std::string not_failed = "";             // not "": the calls into a library whose allocations are not failed
                                           // (sentencepiece_unfailed.cpp says why), printed beside the results
};

// Sets up the files each reader reads in `work` (a tiny model's checkpoint, 200 pairs of the toy corpus, the
// tokenizers of every kind trained on them) and returns the cases: checkpoint load and save, config, corpus
// (two files, TSV), tokenizers (word, char, bpe, unigram, through tokenizers.json) and tokenizer save.
std::vector<ReaderCase> reader_cases(const std::string& source_dir, const std::filesystem::path& work);

}  // namespace attnlab::testing
