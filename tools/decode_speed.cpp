// decode_speed.cpp — how much the decoder's cache buys: greedy sentences per second, recomputing the prefix
// (greedy_decode) against incremental decoding (greedy_decode_cached), and beam search on the cache.
//
// The model has the shape of configs/toy-en-fr.yaml (d_model 128, 4 heads, d_ff 512, 2 + 2 layers, one shared
// vocabulary, tied output) with a vocabulary of 400 and random parameters; the sources are 100 random
// sentences of 5 … 24 tokens. An untrained model seldom says eos, so most outputs run to the length limit
// (1.5 · source + 10): the long end of what decoding costs. The outputs of both greedy versions are compared.
// Run: ./build/release/decode_speed [threads, default 1]
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include <Eigen/Core>
#include <omp.h>

#include "decode/greedy.h"
#include "decode/translate.h"

using namespace attnlab;

namespace {

// Runs decode over the sentences in batches of `batch`; returns sentences per second of processor time (the
// process's CPU seconds, all threads together: with one thread, the time it would take on an idle machine)
// and the outputs.
double sentences_per_second(const std::vector<std::vector<int32_t>>& sentences, size_t batch,
                            const std::function<std::vector<std::vector<int32_t>>(const TokenIds&)>& decode,
                            std::vector<std::vector<int32_t>>& outputs) {
  outputs.clear();
  const std::clock_t start = std::clock();                      // processor time: fair on a busy machine
  for (size_t first = 0; first < sentences.size(); first += batch) {
    std::vector<std::vector<int32_t>> part(sentences.begin() + first,
                                           sentences.begin() + std::min(sentences.size(), first + batch));
    for (auto& out : decode(pad_batch(part))) outputs.push_back(out);
  }
  const double seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
  return double(sentences.size()) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  ModelConfig c;
  c.src_vocab = c.tgt_vocab = 400;
  c.share_embeddings = c.tie_output = true;
  c.d_model = 128;
  c.heads = 4;
  c.d_ff = 512;
  c.dropout = 0;
  Generator gen(1);
  Seq2Seq model(c, gen);
  std::vector<std::vector<int32_t>> sentences;
  for (int i = 0; i < 100; ++i) {
    std::vector<int32_t> s(static_cast<size_t>(gen.integer(5, 25)));
    for (int32_t& id : s) id = static_cast<int32_t>(gen.integer(4, c.src_vocab));
    sentences.push_back(s);
  }
  DecodeConfig greedy;
  std::printf("toy-en-fr-sized random model, 100 sentences, %d thread(s); sentences per CPU second\n", threads);
  std::printf("%-8s %14s %14s %8s %14s\n", "batch", "recompute", "cached", "speedup", "beam 4 cached");
  for (size_t batch : {size_t(1), size_t(10), size_t(100)}) {
    std::vector<std::vector<int32_t>> reference, cached, beam;
    const double slow = sentences_per_second(sentences, batch, [&](const TokenIds& src) {
      return greedy_decode(model, src, greedy);
    }, reference);
    const double fast = sentences_per_second(sentences, batch, [&](const TokenIds& src) {
      return greedy_decode_cached(model, src, greedy);
    }, cached);
    DecodeConfig wide = greedy;
    wide.beam = 4;
    const double beam4 = sentences_per_second(sentences, batch, [&](const TokenIds& src) {
      return translate_ids(model, src, wide);
    }, beam);
    if (cached != reference) {
      std::fprintf(stderr, "cached greedy differs from recomputing greedy at batch %zu\n", batch);
      return 1;
    }
    size_t tokens = 0;
    for (const auto& out : cached) tokens += out.size();
    std::printf("%-8zu %14.1f %14.1f %7.1fx %14.1f   (%zu output tokens)\n", batch, slow, fast, fast / slow, beam4,
                tokens);
  }
  return 0;
}
