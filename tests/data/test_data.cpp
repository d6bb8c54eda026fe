// test_data.cpp — facts about the data pipeline: reading parallel text, tokenizing it, and batching it.
//
// Corpus files are written by the tests into a fresh folder of the build tree, each test with the one flaw it
// is about. The tokenizer tests train on small texts made here (sentencepiece on ~200 generated sentences).
// The batching tests check the invariants the trainer relies on: the token budget, the padding layout of
// src / tgt_in / targets, every pair exactly once per epoch, and the same batches from the same (seed, epoch).
// The last test reads the real corpora in ../shared/corpora when they are there.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "data/batching.h"
#include "data/corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "model/config.h"
#include "tensor/random.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// An empty directory for one test's files, inside the build tree.
fs::path fresh_directory(const std::string& test_name) {
  fs::path directory = fs::path(ATTNLAB_BINARY_DIR) / "test_data" / test_name;
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

std::string write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  return path.string();
}

// The message of the attnlab::Error that `action` throws (fails the test if it throws none).
template <typename Action>
std::string error_message(Action action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  FAIL("expected an attnlab::Error, but nothing was thrown");
  return "";
}

TokenizerConfig tokenizer_config(TokenizerKind kind, int64_t vocab_size = 0, int64_t min_count = 1) {
  TokenizerConfig config;
  config.kind = kind;
  config.vocab_size = vocab_size;
  config.min_count = min_count;
  return config;
}

// ~200 short English sentences from a small grammar, the same every time.
std::vector<std::string> generated_sentences(size_t count) {
  const std::vector<std::string> subjects = {"the dog", "a small cat", "my brother", "the old woman",
                                             "two children", "the teacher", "a happy bird", "our neighbour"};
  const std::vector<std::string> verbs = {"sees", "likes", "paints", "follows", "carries", "watches", "finds"};
  const std::vector<std::string> objects = {"a red ball", "the green house", "an apple", "the river",
                                            "some flowers", "the yellow kite", "a wooden boat", "the mountains"};
  const std::vector<std::string> endings = {".", " today.", " every morning.", " in the garden.", "!"};
  Generator generator(7);
  auto pick = [&](const std::vector<std::string>& words) {
    return words[static_cast<size_t>(generator.integer(0, static_cast<int64_t>(words.size())))];
  };
  std::vector<std::string> sentences;
  for (size_t i = 0; i < count; ++i) {
    sentences.push_back(pick(subjects) + " " + pick(verbs) + " " + pick(objects) + pick(endings));
  }
  return sentences;
}

// Pairs with the given (source, target) lengths and ids 4, 5, 6, … so that each position is recognisable.
std::vector<EncodedPair> pairs_with_lengths(const std::vector<std::pair<size_t, size_t>>& lengths) {
  std::vector<EncodedPair> pairs;
  for (size_t i = 0; i < lengths.size(); ++i) {
    EncodedPair pair;
    for (size_t k = 0; k < lengths[i].first; ++k) pair.src.push_back(static_cast<int32_t>(4 + k));
    for (size_t k = 0; k < lengths[i].second; ++k) pair.tgt.push_back(static_cast<int32_t>(100 + k));
    pair.index = i;
    pairs.push_back(pair);
  }
  return pairs;
}

std::vector<EncodedPair> random_pairs(size_t count, uint64_t seed) {
  Generator generator(seed);
  std::vector<std::pair<size_t, size_t>> lengths;
  for (size_t i = 0; i < count; ++i) {
    lengths.emplace_back(static_cast<size_t>(generator.integer(1, 30)), static_cast<size_t>(generator.integer(1, 30)));
  }
  return pairs_with_lengths(lengths);
}

}  // namespace

// ---- Reading parallel text ----

TEST_CASE("line-aligned files with different line counts are refused, naming both files and both counts") {
  fs::path directory = fresh_directory("line_counts");
  std::string en = write_file(directory / "train.en", "one\ntwo\nthree\n");
  std::string de = write_file(directory / "train.de", "eins\nzwei\n");
  std::string message = error_message([&] { read_parallel(en, de); });
  CHECK(message.find(en + " has 3 lines but " + de + " has 2") != std::string::npos);
}

TEST_CASE("a missing corpus file is named in the error") {
  fs::path directory = fresh_directory("missing");
  std::string en = write_file(directory / "train.en", "one\n");
  std::string missing = (directory / "train.de").string();
  CHECK(error_message([&] { read_parallel(en, missing); }).find(missing) != std::string::npos);
  CHECK(error_message([&] { read_tsv(missing); }).find(missing) != std::string::npos);
}

TEST_CASE("text that is not UTF-8 is refused with the file, the line and the byte column") {
  fs::path directory = fresh_directory("not_utf8");
  std::string en = write_file(directory / "train.en", "one\ntwo\nthree\n");
  std::string de = write_file(directory / "train.de", "eins\nzwei\nGr\xFC\xDF" "e\n");  // Latin-1 "Grüße"
  std::string message = error_message([&] { read_parallel(en, de); });
  CHECK(message.find(de + ":3: invalid UTF-8 at byte 3 (0xFC)") != std::string::npos);

  // A truncated sequence, an overlong form and a surrogate are invalid too.
  for (const std::string& bad : {std::string("ab\xC3"), std::string("\xC0\xAF"), std::string("x\xED\xA0\x80")}) {
    std::string path = write_file(directory / "bad.txt", "fine\n" + bad + "\n");
    CHECK(error_message([&] { read_lines(path); }).find(path + ":2: invalid UTF-8") != std::string::npos);
  }
}

TEST_CASE("pairs with an empty side are skipped and counted; CRLF line ends are tolerated") {
  fs::path directory = fresh_directory("empty_pairs");
  std::string en = write_file(directory / "train.en", "a dog\r\n\r\n  runs \r\n \t \r\nfast\r\n");
  std::string de = write_file(directory / "train.de", "ein Hund\nB\nläuft\nD\n\u00A0\n");
  ParallelText text = read_parallel(en, de);
  CHECK(text.src == std::vector<std::string>{"a dog", "runs"});
  CHECK(text.tgt == std::vector<std::string>{"ein Hund", "läuft"});
  CHECK(text.empty_skipped == 3);
}

TEST_CASE("a TSV line without a TAB is an error naming the file and the line; extra columns are ignored") {
  fs::path directory = fresh_directory("tsv");
  std::string good = write_file(directory / "good.tsv", "Go.\tVa !\tCC-BY 2.0\nRun!\tCours\u202F!\n\n");
  ParallelText text = read_tsv(good);
  CHECK(text.src == std::vector<std::string>{"Go.", "Run!"});
  CHECK(text.tgt == std::vector<std::string>{"Va !", "Cours !"});
  CHECK(text.empty_skipped == 1);  // the blank last line

  std::string bad = write_file(directory / "bad.tsv", "Go.\tVa !\nRun! Cours !\n");
  CHECK(error_message([&] { read_tsv(bad); }).find(bad + ":2: no TAB") != std::string::npos);
}

TEST_CASE("Unicode spaces become one ASCII space, runs collapse and the ends are trimmed") {
  CHECK(normalize_spaces("Bonjour\u202F!") == "Bonjour !");
  CHECK(normalize_spaces("\u00A0 Ein  Hund\u00A0läuft.\t") == "Ein Hund läuft.");
  CHECK(normalize_spaces("a\u2009b\u2007c\u3000d\u200Ae") == "a b c d e");
  CHECK(normalize_spaces("zero\u200Bwidth") == "zero\u200Bwidth");  // not a space: kept
  CHECK(normalize_spaces(" \u00A0 ").empty());
}

TEST_CASE("lowercase() covers ASCII and the Latin letters of French and German, and nothing else") {
  CHECK(lowercase("ÉCOLE Œuvre ÀÖÞ Grüße ŸSER ẞ Ł") == "école œuvre àöþ grüße ÿser ß ł");
  CHECK(lowercase("2 × 3") == "2 × 3");      // U+00D7 sits among the capitals but is not a letter
  CHECK(lowercase("ΑΒΓ") == "ΑΒΓ");          // Greek: the documented limit
}

TEST_CASE("load_split reads the configured split, lower-cases on request, and requires training text") {
  fs::path directory = fresh_directory("load_split");
  DataConfig config;
  CHECK(error_message([&] { load_split(config, "train"); }).find("data.train_src") != std::string::npos);
  CHECK(load_split(config, "valid").src.empty());
  CHECK(load_split(config, "test").src.empty());
  CHECK(error_message([&] { load_split(config, "dev"); }).find("\"dev\"") != std::string::npos);

  config.train_tsv = write_file(directory / "train.tsv", "Hello.\tBONJOUR\u00A0L'ÉCOLE !\n");
  config.lowercase = true;
  ParallelText text = load_split(config, "train");
  CHECK(text.src == std::vector<std::string>{"hello."});
  CHECK(text.tgt == std::vector<std::string>{"bonjour l'école !"});

  config.train_src = config.train_tsv;
  CHECK(error_message([&] { load_split(config, "train"); }).find("data.train_tsv") != std::string::npos);
  config.train_tsv.clear();
  CHECK(error_message([&] { load_split(config, "train"); }).find("data.train_tgt is empty") != std::string::npos);
}

// ---- Tokenizers ----

TEST_CASE("the word tokenizer separates punctuation and French elision, and decodes to the spaced form") {
  const std::vector<std::string> text = {"C'est l'homme qu'il a vu aujourd'hui .", "Bonjour, l'ami !",
                                         "Il coûte 3,50 euros « seulement » ?", "L’eau n’est pas froide .",
                                         "l' homme n' est pas là", "ses loups vont à l' hôpital ."};
  auto tokenizer = train_tokenizer(tokenizer_config(TokenizerKind::word), text, "");
  CHECK(tokenizer->pieces(tokenizer->encode(text[0])) ==
        std::vector<std::string>{"C'", "est", "l'", "homme", "qu'", "il", "a", "vu", "aujourd'", "hui", "."});
  CHECK(tokenizer->pieces(tokenizer->encode(text[1])) == std::vector<std::string>{"Bonjour", ",", "l'", "ami", "!"});
  CHECK(tokenizer->pieces(tokenizer->encode(text[2])) ==
        std::vector<std::string>{"Il", "coûte", "3,50", "euros", "«", "seulement", "»", "?"});
  CHECK(tokenizer->pieces(tokenizer->encode(text[3])) ==
        std::vector<std::string>{"L’", "eau", "n’", "est", "pas", "froide", "."});

  // An elision already split off, as tokenised corpora write it (data/toy-en-fr does), keeps its apostrophe.
  CHECK(tokenizer->pieces(tokenizer->encode("l' homme n' est pas là")) ==
        std::vector<std::string>{"l'", "homme", "n'", "est", "pas", "là"});
  // Decoding gives the spaced, tokenised form: text already in it comes back unchanged.
  for (const std::string spaced : {"C' est l' homme qu' il a vu aujourd' hui .", "Bonjour , l' ami !",
                                   "Il coûte 3,50 euros « seulement » ?", "L’ eau n’ est pas froide .",
                                   "ses loups vont à l' hôpital ."}) {
    CHECK(tokenizer->decode(tokenizer->encode(spaced)) == spaced);
  }
  CHECK(tokenizer->decode(tokenizer->encode(text[1])) == "Bonjour , l' ami !");
  // A Unicode space splits words too (the tokenizer normalises spaces itself).
  CHECK(tokenizer->pieces(tokenizer->encode("Bonjour\u202F!")) == std::vector<std::string>{"Bonjour", "!"});
}

TEST_CASE("a tokenizer's surfaces are the text behind each id, an unknown word's own text where pieces say <unk>") {
  const std::vector<std::string> text = {"the girl sees the dog ."};
  for (TokenizerKind kind : {TokenizerKind::word, TokenizerKind::character}) {
    auto tokenizer = train_tokenizer(tokenizer_config(kind), text, "");
    const std::string sentence = kind == TokenizerKind::word ? "the zorblax sees ." : "the z";
    const std::vector<int32_t> ids = tokenizer->encode(sentence);
    const std::vector<std::string> surfaces = tokenizer->surfaces(sentence);
    REQUIRE(surfaces.size() == ids.size());
    CHECK(tokenizer->pieces(ids)[ids.size() - (kind == TokenizerKind::word ? 3 : 1)] == "<unk>");
    CHECK(surfaces[ids.size() - (kind == TokenizerKind::word ? 3 : 1)] == (kind == TokenizerKind::word ? "zorblax" : "z"));
  }
}

TEST_CASE("the word vocabulary is ordered by frequency then alphabetically, with min_count and a size cap") {
  const std::vector<std::string> text = {"b a c", "a b", "a d", "e"};  // a ×3, b ×2, c d e ×1
  auto all = train_tokenizer(tokenizer_config(TokenizerKind::word), text, "");
  CHECK(all->vocab_size() == 9);
  CHECK(all->pieces({4, 5, 6, 7, 8}) == std::vector<std::string>{"a", "b", "c", "d", "e"});

  auto frequent = train_tokenizer(tokenizer_config(TokenizerKind::word, 0, 2), text, "");
  CHECK(frequent->vocab_size() == 6);
  CHECK(frequent->encode("a b c z") == std::vector<int32_t>{4, 5, unk_id, unk_id});

  auto capped = train_tokenizer(tokenizer_config(TokenizerKind::word, 5), text, "");
  CHECK(capped->vocab_size() == 5);
  CHECK(capped->encode("a b") == std::vector<int32_t>{4, unk_id});

  CHECK(error_message([&] { train_tokenizer(tokenizer_config(TokenizerKind::word, 4), text, ""); }).find("vocab_size") !=
        std::string::npos);
}

TEST_CASE("word and char tokenizers save to a text file and load back with the same ids") {
  fs::path directory = fresh_directory("vocab_files");
  const std::vector<std::string> text = {"Grüße aus Köln !", "L'été est là ."};
  for (TokenizerKind kind : {TokenizerKind::word, TokenizerKind::character}) {
    CAPTURE(name_of(kind));
    auto trained = train_tokenizer(tokenizer_config(kind), text, "");
    std::string prefix = (directory / name_of(kind)).string();
    trained->save(prefix);
    CHECK(fs::exists(prefix + ".vocab"));
    auto loaded = load_tokenizer(tokenizer_config(kind), prefix);
    CHECK(loaded->vocab_size() == trained->vocab_size());
    for (const std::string& sentence : text) CHECK(loaded->encode(sentence) == trained->encode(sentence));
  }
  // A char vocabulary is not a word vocabulary (its line " " has a space), and a file without the specials is no
  // vocabulary at all.
  CHECK(error_message([&] { load_tokenizer(tokenizer_config(TokenizerKind::word), (directory / "char").string()); })
            .find("not a word piece") != std::string::npos);
  std::string foreign = write_file(directory / "foreign.vocab", "hello\nworld\n");
  CHECK(error_message([&] { load_tokenizer(tokenizer_config(TokenizerKind::word), (directory / "foreign").string()); })
            .find(foreign + " is not an attnlab vocabulary") != std::string::npos);
  std::string missing = (directory / "nothing").string();
  CHECK(error_message([&] { load_tokenizer(tokenizer_config(TokenizerKind::character), missing); }).find(missing + ".vocab") !=
        std::string::npos);
}

TEST_CASE("the char tokenizer makes one token per Unicode character and round-trips \"Grüße\"") {
  auto tokenizer = train_tokenizer(tokenizer_config(TokenizerKind::character), {"Grüße", "Straße"}, "");
  std::vector<int32_t> ids = tokenizer->encode("Grüße");
  CHECK(ids.size() == 5);
  CHECK(tokenizer->pieces(ids) == std::vector<std::string>{"G", "r", "ü", "ß", "e"});
  CHECK(tokenizer->decode(ids) == "Grüße");
  CHECK(tokenizer->encode("Grüße!").back() == unk_id);  // "!" was never seen
}

TEST_CASE("sentencepiece bpe and unigram train on generated sentences, save, and load with the same ids") {
  fs::path directory = fresh_directory("sentencepiece");
  const std::vector<std::string> text = generated_sentences(200);
  for (TokenizerKind kind : {TokenizerKind::bpe, TokenizerKind::unigram}) {
    CAPTURE(name_of(kind));
    const TokenizerConfig config = tokenizer_config(kind, 64);
    auto trained = train_tokenizer(config, text, (directory / (name_of(kind) + "_work")).string());
    CHECK(trained->vocab_size() == 64);
    CHECK_FALSE(fs::exists(directory / (name_of(kind) + "_work.input.txt")));  // the temporary input is removed

    std::string prefix = (directory / name_of(kind)).string();
    trained->save(prefix);
    auto loaded = load_tokenizer(config, prefix);
    for (const std::string& sentence : text) {
      std::vector<int32_t> ids = trained->encode(sentence);
      REQUIRE(loaded->encode(sentence) == ids);
      CHECK(loaded->decode(ids) == sentence);
      CHECK(std::none_of(ids.begin(), ids.end(), [](int32_t id) { return id < 4; }));  // all known, no specials
    }
    // A character the text never had is unk (no byte fallback).
    std::vector<int32_t> unknown = loaded->encode("the dog sees Ω");
    CHECK(std::find(unknown.begin(), unknown.end(), unk_id) != unknown.end());

    // Training is deterministic: the same text gives the same pieces.
    auto again = train_tokenizer(config, text, (directory / (name_of(kind) + "_again")).string());
    std::vector<int32_t> every_id(64);
    std::iota(every_id.begin(), every_id.end(), 0);
    CHECK(again->pieces(every_id) == trained->pieces(every_id));
  }
}

TEST_CASE("a missing or corrupt sentencepiece model is an attnlab::Error naming the file") {
  fs::path directory = fresh_directory("sentencepiece_corrupt");
  std::string missing = (directory / "missing").string();
  CHECK(error_message([&] { load_tokenizer(tokenizer_config(TokenizerKind::bpe), missing); }).find(missing + ".model") !=
        std::string::npos);
  std::string corrupt = write_file(directory / "corrupt.model", "this is not a sentencepiece model\n");
  CHECK(error_message([&] { load_tokenizer(tokenizer_config(TokenizerKind::unigram), (directory / "corrupt").string()); })
            .find(corrupt) != std::string::npos);
  // Asking for more pieces than the text can give is an error that names the setting.
  CHECK(error_message([&] {
          train_tokenizer(tokenizer_config(TokenizerKind::unigram, 5000), {"tiny text"}, (directory / "too_big").string());
        }).find("tokenizer.vocab_size = 5000") != std::string::npos);
}

TEST_CASE("every kind of tokenizer has the special ids pad 0, bos 1, eos 2, unk 3, and decode stops at eos") {
  fs::path directory = fresh_directory("specials");
  const std::vector<std::string> text = generated_sentences(200);
  for (TokenizerKind kind : {TokenizerKind::word, TokenizerKind::character, TokenizerKind::bpe, TokenizerKind::unigram}) {
    CAPTURE(name_of(kind));
    auto tokenizer = train_tokenizer(tokenizer_config(kind, kind == TokenizerKind::bpe || kind == TokenizerKind::unigram ? 64 : 0), text,
                                     (directory / name_of(kind)).string());
    CHECK(tokenizer->pieces({pad_id, bos_id, eos_id, unk_id}) == std::vector<std::string>{"<pad>", "<s>", "</s>",
                                                                                          "<unk>"});
    std::vector<int32_t> dog = tokenizer->encode("the dog");
    std::vector<int32_t> cat = tokenizer->encode("a small cat");
    std::vector<int32_t> ids = {bos_id};
    ids.insert(ids.end(), dog.begin(), dog.end());
    ids.push_back(eos_id);
    ids.insert(ids.end(), cat.begin(), cat.end());
    ids.push_back(pad_id);
    CHECK(tokenizer->decode(ids) == "the dog");
  }
  // The word "<s>" in a text is an unknown word, not the bos id.
  auto word = train_tokenizer(tokenizer_config(TokenizerKind::word), {"<s> hello"}, "");
  CHECK(word->encode("<s> hello") == std::vector<int32_t>{unk_id, 4});
}

// ---- Batching ----

TEST_CASE("encode_pairs leaves out pairs longer than max_len on either side, and counts them") {
  ParallelText text;
  text.src = {"a b c", "a b c d e", "a", "a b"};
  text.tgt = {"x y", "x", "x y z w v u", "x y z"};
  text.description = "test";
  auto tokenizer = train_tokenizer(tokenizer_config(TokenizerKind::word), {"a b c d e x y z w v u"}, "");
  int64_t too_long = -1;
  std::vector<EncodedPair> pairs = encode_pairs(text, *tokenizer, *tokenizer, 3, &too_long);
  CHECK(too_long == 2);
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].index == 0);
  CHECK(pairs[1].index == 3);
  CHECK(pairs[1].tgt == tokenizer->encode("x y z"));
}

TEST_CASE("make_batch pads on the right: tgt_in starts with bos, targets end with eos") {
  std::vector<EncodedPair> pairs = pairs_with_lengths({{3, 1}, {1, 2}});
  Batch batch = make_batch(pairs, {1, 0});
  CHECK(batch.src.shape == Shape{2, 3});
  CHECK(batch.tgt_in.shape == Shape{2, 3});
  CHECK(batch.targets.shape == Shape{2, 3});
  CHECK(batch.src.values == std::vector<int32_t>{4, pad_id, pad_id, /**/ 4, 5, 6});
  CHECK(batch.tgt_in.values == std::vector<int32_t>{bos_id, 100, 101, /**/ bos_id, 100, pad_id});
  CHECK(batch.targets.values == std::vector<int32_t>{100, 101, eos_id, /**/ 100, eos_id, pad_id});
  CHECK(batch.src_tokens == 4);
  CHECK(batch.tgt_tokens == 5);  // 2 + eos, 1 + eos
  CHECK(batch.indices == std::vector<size_t>{1, 0});
}

TEST_CASE("every batch of an epoch stays within the token budget and holds every pair exactly once") {
  const std::vector<EncodedPair> pairs = random_pairs(500, 3);
  const int64_t budget = 300;
  Batcher batcher(pairs, budget, 42);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    std::vector<Batch> batches = batcher.epoch(epoch);
    CHECK(batches.size() == batcher.batches_per_epoch());
    std::multiset<size_t> seen;
    for (const Batch& batch : batches) {
      const int64_t B = batch.src.shape[0], S = batch.src.shape[1], T = batch.tgt_in.shape[1];
      CHECK(B * (S + T) <= budget);  // T already includes the +1 of bos / eos
      seen.insert(batch.indices.begin(), batch.indices.end());
      for (int64_t b = 0; b < B; ++b) {
        const EncodedPair& pair = pairs[batch.indices[static_cast<size_t>(b)]];
        const auto row = static_cast<size_t>(b * T);
        CHECK(batch.tgt_in.values[row] == bos_id);
        CHECK(batch.targets.values[row + pair.tgt.size()] == eos_id);
        for (size_t t = pair.tgt.size() + 1; t < static_cast<size_t>(T); ++t) {
          CHECK(batch.targets.values[row + t] == pad_id);
        }
      }
    }
    CHECK(seen.size() == pairs.size());
    for (size_t i = 0; i < pairs.size(); ++i) CHECK(seen.count(i) == 1);
  }
}

TEST_CASE("the same seed and epoch give the same batches; another epoch or seed gives another order") {
  const std::vector<EncodedPair> pairs = random_pairs(500, 5);
  auto order = [](const std::vector<Batch>& batches) {
    std::vector<size_t> indices;
    for (const Batch& batch : batches) indices.insert(indices.end(), batch.indices.begin(), batch.indices.end());
    return indices;
  };
  Batcher first(pairs, 400, 11), resumed(pairs, 400, 11), other_seed(pairs, 400, 12);
  CHECK(order(first.epoch(4)) == order(resumed.epoch(4)));
  CHECK(first.epoch(4)[0].src.values == resumed.epoch(4)[0].src.values);
  CHECK(order(first.epoch(4)) != order(first.epoch(5)));
  CHECK(order(first.epoch(4)) != order(other_seed.epoch(4)));
}

TEST_CASE("a pair longer than the token budget gets a batch of its own") {
  const std::vector<EncodedPair> pairs = pairs_with_lengths({{2, 2}, {40, 30}, {2, 3}, {3, 2}});
  Batcher batcher(pairs, 20, 1);
  std::vector<Batch> batches = batcher.epoch(0);
  size_t pairs_seen = 0;
  for (const Batch& batch : batches) {
    pairs_seen += batch.indices.size();
    if (std::find(batch.indices.begin(), batch.indices.end(), 1) != batch.indices.end()) {
      CHECK(batch.indices.size() == 1);
    }
  }
  CHECK(pairs_seen == 4);
}

TEST_CASE("fixed_batches are sorted by length, within budget, and the same on every call") {
  const std::vector<EncodedPair> pairs = random_pairs(200, 9);
  std::vector<Batch> batches = fixed_batches(pairs, 250);
  std::vector<Batch> again = fixed_batches(pairs, 250);
  REQUIRE(batches.size() == again.size());
  size_t previous_length = 0, count = 0;
  for (size_t k = 0; k < batches.size(); ++k) {
    CHECK(batches[k].indices == again[k].indices);
    CHECK(batches[k].src.shape[0] * (batches[k].src.shape[1] + batches[k].tgt_in.shape[1]) <= 250);
    for (size_t i : batches[k].indices) {
      CHECK(pairs[i].src.size() >= previous_length);
      previous_length = pairs[i].src.size();
      ++count;
    }
  }
  CHECK(count == pairs.size());
}

// ---- The real corpora (../shared/corpora, when present) ----

TEST_CASE("the real corpora read without error: Multi30k train and Tatoeba en-fr") {
  const fs::path corpora = fs::path(ATTNLAB_SOURCE_DIR "/../shared/corpora");
  if (!fs::exists(corpora)) {
    MESSAGE("skipped: " << corpora.string() << " is absent");
    return;
  }
  auto start = std::chrono::steady_clock::now();
  ParallelText multi30k =
      read_parallel((corpora / "multi30k/train.en").string(), (corpora / "multi30k/train.de").string());
  CHECK(multi30k.src.size() == 29000);
  CHECK(multi30k.empty_skipped == 0);
  ParallelText tatoeba = read_tsv((corpora / "tatoeba-en-fr/fra.txt").string());
  CHECK(tatoeba.src.size() + static_cast<size_t>(tatoeba.empty_skipped) == 142787);
  CHECK(tatoeba.empty_skipped == 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("read 29000 + 142787 pairs in " << seconds << " s");

  // No special space survives normalisation (German has U+00A0, French U+202F and U+00A0).
  auto has_special_space = [](const std::vector<std::string>& sentences) {
    return std::any_of(sentences.begin(), sentences.end(), [](const std::string& s) {
      return s.find("\u00A0") != std::string::npos || s.find("\u202F") != std::string::npos;
    });
  };
  CHECK_FALSE(has_special_space(multi30k.tgt));
  CHECK_FALSE(has_special_space(tatoeba.tgt));
}
