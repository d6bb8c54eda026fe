// cloze.h — `cloze`: a reading-comprehension corpus of cloze questions, for the attention-over-attention reader.
//
// A cloze question (Hermann et al. 2015; Cui et al. 2017): a short document, and a query sentence in which one
// noun is replaced by a placeholder; the answer is a word of the document. The reader finds it by attending
// from the query to the document and pointing at the document position(s) of the answer. Example:
//
//   document:  the girl follows the horse . the horse hides the apple . the doctor sees the girl .
//   query:     the apple is hidden by @placeholder .
//   answer:    horse
//
// How it is made (every choice from one Generator, so the corpus is a pure function of the seed):
//   * 3 or 4 facts "the A <verb>s the B .", each with its own verb (so a query names exactly one fact); the
//     subject A is a person or an animal, the object B a person, an animal or a thing, A ≠ B.
//   * One noun, the topic, takes part in two facts; every other noun appears once.
//   * The query restates one fact, asking for its subject or its object, in one of two wordings:
//       active, the same order:   "@placeholder sees the dog ."      "the cat sees @placeholder ."
//       passive, order reversed:  "the dog is seen by @placeholder ." "@placeholder is seen by the cat ."
//     so answering needs the verb's two forms and which side of it a noun stands on — not just word overlap.
//   * The answer is the topic only when the asked side of the fact is the topic (about 1 time in 4): so the
//     most frequent noun of the document is the answer far less often than a reader that reads gets it right
//     (cloze_frequency_baseline() below is that baseline).
//
// Files: DIR/{train,valid,test}.question and .answer, line-aligned. A question line is the document, the token
// @query, then the query: "<document> @query <query>". An answer line is one word. So `attnlab train` reads the
// corpus like any parallel text (data.train_src: question, data.train_tgt: answer) with the word tokenizer.
// Reading a question line back (and the frequency baseline) is in cloze_question.h, which a reader of the files
// needs without the generator.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data/synthetic/cloze_question.h"
#include "data/synthetic/synthetic.h"
#include "tensor/random.h"
#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

constexpr int64_t cloze_train_size = 2000;
constexpr int64_t cloze_valid_size = 250;
constexpr int64_t cloze_test_size = 250;
// One random (question line, answer) pair.
std::pair<std::string, std::string> draw_cloze_pair(Generator& generator);

// The corpus: files train.question / train.answer, valid.*, test.* (see synthetic.h for the splits).
Corpus make_cloze_corpus(uint64_t seed, int64_t train_size);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
