// corpus.h — reading parallel text: the sentence pairs a translation model learns from.
//
// A corpus comes in one of two shapes:
//   * two line-aligned files, e.g. train.en and train.de: line i of one translates line i of the other;
//   * one TSV file, "source<TAB>target" on every line (Tatoeba's fra.txt has exactly these two columns;
//     any further columns are ignored).
// Both are read as UTF-8. Before a sentence reaches a tokenizer its spaces are normalised: every Unicode space
// (the no-break space U+00A0 in Multi30k German, the narrow no-break space U+202F that French typography puts
// before ! ? : ;, tabs, …) becomes an ASCII space, runs of spaces collapse to one, and the ends are trimmed.
// Without this, "Bonjour\u202F!" and "Bonjour !" would be different sentences to every tokenizer.
//
// A pair with an empty side (after trimming) teaches nothing, so it is skipped and counted. Anything else that
// is wrong with a file — it is missing, it is not UTF-8, the two sides have different numbers of lines — is an
// attnlab::Error naming the file (and the line), never a silently shifted or truncated corpus.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct ParallelText {
  std::vector<std::string> src, tgt;  // src[i] translates to tgt[i]; spaces normalised, never empty
  int64_t empty_skipped = 0;          // pairs dropped because one side was empty
  std::string description;            // where the text came from, for log lines: "train.en + train.de"
};

// Two line-aligned files. Throws attnlab::Error if a file is missing, is not UTF-8, or the line counts differ.
ParallelText read_parallel(const std::string& src_path, const std::string& tgt_path);

// One "source<TAB>target" file; columns after the second are ignored. A line that has text but no TAB is an
// error naming the file and line; a blank line is an empty pair (skipped and counted).
ParallelText read_tsv(const std::string& path);

// The "train", "valid" or "test" split that `config` names, either as …_src + …_tgt or as …_tsv, lower-cased
// when config.lowercase is set. Training text is required; a valid or test split with no paths gives an empty
// ParallelText.
ParallelText load_split(const DataConfig& config, const std::string& split);

// ---- Text helpers (also used by the tokenizers) ----

// The lines of a UTF-8 text file, without their line ends ("\n" or "\r\n") and without a leading byte-order
// mark. Throws attnlab::Error naming the file if it is missing, and the file, line (from 1) and byte column
// (from 1) of the first byte that is not valid UTF-8.
std::vector<std::string> read_lines(const std::string& path);

// Every Unicode white-space character (ASCII space, tab and line ends, U+0085, U+00A0, U+1680, U+2000–U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000) becomes one ASCII space; runs collapse and the ends are trimmed.
// "  Bonjour\u202F!\u00A0 " → "Bonjour !". Zero-width characters (U+200B, U+FEFF) are not spaces and are kept.
std::string normalize_spaces(std::string_view text);

// Lower-cases ASCII and the Latin letters French and German use: Latin-1 À…Þ → à…þ, Latin Extended-A
// (Œ → œ, Ÿ → ÿ, Ł → ł, …) and ẞ → ß. Other scripts (Greek, Cyrillic, …) are left as they are: a documented
// limit, not a full Unicode case mapping.
std::string lowercase(std::string_view text);

// The Unicode characters (code points) of UTF-8 text, each as its own string: "Grüße" → G r ü ß e.
// A byte that is not valid UTF-8 becomes U+FFFD (the replacement character �).
std::vector<std::string> utf8_characters(std::string_view text);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
