// gold_on_picture.h — the gold alignment of the sentence a picture shows, laid over the picture's tokens, and the
// AER of every view of it: what the explorer draws as outlines (src/inspect/pages/explorer/gold.js).
//
// A gold alignment (src/data/alignment.h) links the WORDS of a corpus sentence to the words of its REFERENCE
// translation. So a picture has a gold when
//   1. its source, cleaned as the training text was (clean_like_training), is a line of the run's test or valid
//      split (data.test_src, data.valid_src, searched in that order; the train split is not searched), and that
//      split has its .align file beside the target file;
//   2. its target is that line's reference — the model's own translation equal to it, or the reference given with
//      --target. A different target has other words, which the gold does not align.
// Otherwise there is no gold, and `why` says which of these failed, in words a learner can act on.
// Words and tokens (src/inspect/align/word_pieces.h): the gold is over words, the maps over the model's tokens. A
// map's cell (decoder position t, source token s) is outlined when the word of t's predicted token and the word
// of s are linked: word_of maps each token to its word (−1: a token of spaces, and the </s> row). Each view is
// scored as `attnlab align` scores it: its matrix pooled to words (sum over a word's source pieces, mean over its
// target pieces), each target word linked to its largest source word (argmax_alignment), the links counted
// against the sure and possible gold (count_alignment), AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "inspect/maps/attention_maps.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// struct PictureGold is in attention_maps.h (a picture carries its gold): found, why, the words, the token
// mapping, the links and every view's score.


// The gold of `picture` (drawn by `run`'s tokenizers from its config's corpus), its token mapping and every view's
// score; found false with `why` when there is none. Never throws for a missing or unreadable gold (that is a why);
// throws attnlab::Error only for a picture whose tokens do not match its own text (a bug upstream).
PictureGold find_gold(const LoadedRun& run, const AttentionPicture& picture);

// The views of `picture` scored against a gold found before for the same sentence pair (the film's frames: every
// checkpoint, one lookup). `gold` must have found = true.
std::vector<std::pair<std::string, AlignmentCounts>> score_views(const LoadedRun& run, const AttentionPicture& picture,
                                                                 const PictureGold& gold);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
