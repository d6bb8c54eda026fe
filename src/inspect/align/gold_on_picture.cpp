// gold_on_picture.cpp — a picture's gold found in its corpus, laid over its tokens and scored (gold_on_picture.h).
#include "inspect/align/gold_on_picture.h"

#include "inspect/align/alignment_methods.h"
#include "inspect/align/alignment_report.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// The line of `corpus` whose source, cleaned, is `source`; −1 when none is.
int64_t line_of(const RunConfig& config, const AlignmentCorpus& corpus, const std::string& source) {
  for (size_t k = 0; k < corpus.sources.size(); ++k) {
    if (clean_like_training(config, corpus.sources[k]) == source) return static_cast<int64_t>(k);
  }
  return -1;
}

// The word pieces of both sides of the pair (word_pieces.h), named for errors.
std::pair<WordPieces, WordPieces> pieces_of(const LoadedRun& run, const std::string& source, const std::string& target,
                                            const std::string& where) {
  return {split_into_word_pieces(run.config, *run.tokenizers.src, source, "the source of " + where),
          split_into_word_pieces(run.config, *run.tokenizers.tgt, target, "the reference of " + where)};
}

// Fills the word mapping of `gold` from the pair's pieces; throws when the picture has other tokens than they.
void map_tokens(PictureGold& gold, const WordPieces& source, const WordPieces& target, const AttentionPicture& picture) {
  if (source.ids.size() != picture.source_tokens.size() || target.ids.size() + 1 != picture.target_output_tokens.size()) {
    throw Error("the picture of '" + picture.source_text + "' has " + std::to_string(picture.source_tokens.size()) +
                " source tokens and " + std::to_string(picture.target_output_tokens.size()) + " decoder rows, but its " +
                "words have " + std::to_string(source.ids.size()) + " and " + std::to_string(target.ids.size() + 1));
  }
  gold.source_words = source.words, gold.target_words = target.words;
  gold.source_word_of = source.word_of;
  gold.target_word_of = target.word_of;
  gold.target_word_of.push_back(-1);   // the row that predicts </s> belongs to no word
}

}  // namespace

std::vector<std::pair<std::string, AlignmentCounts>> score_views(const LoadedRun& run, const AttentionPicture& picture,
                                                                 const PictureGold& gold) {
  SentenceAlignment pair;
  std::tie(pair.source, pair.target) =
      pieces_of(run, joined(gold.source_words), joined(gold.target_words), gold.split + " line " + std::to_string(gold.line));
  add_picture_methods(picture, pair);
  const auto J = static_cast<int64_t>(pair.target.words.size()), I = static_cast<int64_t>(pair.source.words.size());
  std::vector<std::pair<std::string, AlignmentCounts>> scores;
  for (const MethodMatrix& matrix : pair.methods) {
    const std::vector<real> weights(matrix.words.begin(), matrix.words.end());   // [J, I]
    scores.emplace_back(matrix.name, count_alignment(argmax_alignment(weights.data(), J, I), gold.alignment));
  }
  return scores;
}

PictureGold find_gold(const LoadedRun& run, const AttentionPicture& picture) {
  PictureGold gold;
  const std::string source = clean_like_training(run.config, picture.source_text);
  std::string unreadable, searched;   // why the first split's gold could not be read; the splits searched
  for (const std::string split : {"test", "valid"}) {
    AlignmentCorpus corpus;
    try {
      corpus = read_alignment_corpus(run.config, split);
    } catch (const Error& e) {
      if (unreadable.empty()) unreadable = e.what();
      continue;
    }
    searched += (searched.empty() ? "" : " or ") + split;
    const int64_t k = line_of(run.config, corpus, source);
    if (k < 0) continue;
    gold.split = split, gold.line = k + 1, gold.alignment_file = corpus.alignment_file;
    const std::string reference = clean_like_training(run.config, corpus.targets[static_cast<size_t>(k)]);
    if (clean_like_training(run.config, picture.target_text) != reference) {
      gold.reference = reference;
      gold.why = "this sentence is line " + std::to_string(k + 1) + " of the corpus's " + split + " split, but the " +
                 "translation shown is not its reference \"" + reference + "\", and the gold aligns only the reference";
      return gold;
    }
    const auto [source_pieces, target_pieces] = pieces_of(run, source, reference, split + " line " + std::to_string(k + 1));
    map_tokens(gold, source_pieces, target_pieces, picture);
    gold.alignment = corpus.gold[static_cast<size_t>(k)];
    gold.found = true;
    gold.scores = score_views(run, picture, gold);
    return gold;
  }
  gold.why = searched.empty() ? "the corpus's gold could not be read: " + unreadable
                              : "this sentence is not one of the corpus's " + searched + " sentences (data.test_src, "
                                "data.valid_src), the ones whose gold alignment is looked up";
  return gold;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
