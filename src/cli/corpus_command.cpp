// corpus_command.cpp — `attnlab corpus --task NAME --out DIR [--seed N] [--size N]`: write a generated corpus.
//
// The corpora themselves are made in the library (src/data/synthetic.h for copy / reverse / sort,
// src/data/toy_en_fr.h for the English→French grammar); this front end generates one, writes its six files
// and prints one line per file with its line count. Same task, seed and size → the same bytes on every machine.
#include <cstdio>

#include "cli/commands.h"
#include "data/synthetic.h"

namespace attnlab {

int corpus_command(const CorpusCommandOptions& options) {
  Corpus corpus = generate_corpus(options.task, options.seed, options.size);   // throws on a bad task or size
  std::vector<WrittenFile> written = write_corpus(corpus, options.out);
  std::printf("%s, seed %llu: %zu train, %zu valid, %zu test pairs\n", corpus.task.c_str(),
              static_cast<unsigned long long>(options.seed), corpus.train.size(), corpus.valid.size(),
              corpus.test.size());
  for (const WrittenFile& file : written) std::printf("  %-40s %7zu lines\n", file.path.c_str(), file.lines);
  return 0;
}

}  // namespace attnlab
