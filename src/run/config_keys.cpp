// config_keys.cpp — attnlab's config file format, written down once: every section and key of a YAML config, the
// field of RunConfig it fills, the range its value must be in, its choices and one line of documentation.
//
// config_table.h is the machinery that walks such a table (reading, writing, the documentation test);
// config_io.cpp reads and writes configs with it; configs/README.md documents every key listed here (a test
// checks that the two agree). A new key is one entry below.
#include "run/config_keys.h"

#include <map>
#include <string>
#include <vector>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

using namespace config_table;  // Table, Section, Key, Range, Window, Shorthand, Choice

const std::vector<std::string> attention_uses{"encoder", "decoder", "cross"};

const AttentionConfig& attention_of(const RunConfig& c, const std::string& use) {
  if (use == "encoder") return c.model.encoder_attention;
  if (use == "decoder") return c.model.decoder_attention;
  return c.model.cross_attention;
}

namespace {

AttentionConfig& attention_of(RunConfig& c, const std::string& use) {
  if (use == "encoder") return c.model.encoder_attention;
  if (use == "decoder") return c.model.decoder_attention;
  return c.model.cross_attention;
}

// The keys of model.attention.<use>; the same four for each use.
Section attention_section(const std::string& use) {
  auto at = [use](RunConfig& c) -> AttentionConfig& { return attention_of(c, use); };
  return {"model.attention." + use,
          {{"kind", [at](RunConfig& c) { return choice_of(&at(c).kind); }, Range::any,
            "the attention mechanism (the table below)"},
           {"scale", [at](RunConfig& c) { return &at(c).scale; }, Range::any,
            "divide scores by √d_k (softmax kinds); false shows what the √d_k is for"},
           {"window",
            [at](RunConfig& c) {
              return Window{&at(c).has_window, &at(c).window_left, &at(c).window_right};
            },
            Range::any, "none, or [left, right]: query i sees only keys i − left … i + right (softmax kinds)"},
           {"memory_slots", [at](RunConfig& c) { return &at(c).memory_slots; }, Range::positive,
            "S, the number of learned memory rows of external attention", 65536},
           {"local_width", [at](RunConfig& c) { return &at(c).local_width; }, Range::positive,
            "D, the half-width of local_m / local_p's window [p_i − D, p_i + D] (σ = D / 2)", 65536},
           {"hard_expectation", [at](RunConfig& c) { return &at(c).hard_expectation; }, Range::below_one,
            "hard: the probability that a training sentence uses the expectation instead of a sample"},
           {"hard_entropy", [at](RunConfig& c) { return &at(c).hard_entropy; }, Range::non_negative,
            "hard: λ_e, the weight of the entropy bonus"},
           {"hard_baseline_decay", [at](RunConfig& c) { return &at(c).hard_baseline_decay; }, Range::below_one,
            "hard: the reward baseline's moving average, b ← decay · b + (1 − decay) · mean reward"},
           {"hard_eval", [at](RunConfig& c) { return choice_of(&at(c).hard_eval); }, Range::any,
            "hard, at evaluation: argmax (the likeliest key) | expectation (the soft mix) | sample (a drawn key)"},
           {"hard_estimator", [at](RunConfig& c) { return choice_of(&at(c).hard_estimator); }, Range::any,
            "hard, training: reinforce (score function) | gumbel_st (Gumbel-softmax straight-through)"},
           {"hard_reward", [at](RunConfig& c) { return choice_of(&at(c).hard_reward); }, Range::any,
            "hard, reinforce: sentence (its log-likelihood) | position (the rest of the sentence from t on)"},
           {"hard_discount", [at](RunConfig& c) { return &at(c).hard_discount; }, Range::non_negative,
            "hard, hard_reward: position: γ in [0, 1], R_t = Σ_{u ≥ t} γ^(u − t) log p(y_u)"},
           {"hard_baseline", [at](RunConfig& c) { return choice_of(&at(c).hard_baseline); }, Range::any,
            "hard, reinforce: moving (average of past batches) | others (the batch's other sentences)"},
           {"hard_normalize", [at](RunConfig& c) { return &at(c).hard_normalize; }, Range::any,
            "hard, reinforce: divide the advantages by their root mean square over the batch"},
           {"hard_clip", [at](RunConfig& c) { return &at(c).hard_clip; }, Range::non_negative,
            "hard, reinforce: clip the score term's gradient at the scores to this norm (0: no)"},
           {"hard_clean_reward", [at](RunConfig& c) { return &at(c).hard_clean_reward; }, Range::any,
            "hard, reinforce: measure the reward on a second pass with dropout off that replays the keys drawn"},
           {"hard_temperature", [at](RunConfig& c) { return &at(c).hard_temperature; }, Range::positive,
            "hard, gumbel_st: τ_0, the first temperature"},
           {"hard_temperature_min", [at](RunConfig& c) { return &at(c).hard_temperature_min; }, Range::positive,
            "hard, gumbel_st: the lowest temperature"},
           {"hard_temperature_decay", [at](RunConfig& c) { return &at(c).hard_temperature_decay; }, Range::non_negative,
            "hard, gumbel_st: r of τ = max(τ_min, τ_0 e^(−r n)), n training passes"}}};
}

// The keys of data: the files a run reads: translation pairs, or a language model's text.
Section data_section() {
  return {
      "data",
      {{"train_src", [](RunConfig& c) { return &c.data.train_src; }, Range::any,
        "training source text, one sentence a line (needs train_tgt)"},
       {"train_tgt", [](RunConfig& c) { return &c.data.train_tgt; }, Range::any,
        "training target text: line i translates line i of train_src"},
       {"train_tsv", [](RunConfig& c) { return &c.data.train_tsv; }, Range::any,
        "instead of train_src/train_tgt: one file of `source<TAB>target` lines"},
       {"valid_src", [](RunConfig& c) { return &c.data.valid_src; }, Range::any,
        "validation source text (optional; needs valid_tgt)"},
       {"valid_tgt", [](RunConfig& c) { return &c.data.valid_tgt; }, Range::any, "validation target text"},
       {"valid_tsv", [](RunConfig& c) { return &c.data.valid_tsv; }, Range::any,
        "instead of valid_src/valid_tgt: one TSV file"},
       {"test_src", [](RunConfig& c) { return &c.data.test_src; }, Range::any,
        "test source text (optional; needs test_tgt)"},
       {"test_tgt", [](RunConfig& c) { return &c.data.test_tgt; }, Range::any, "test target text"},
       {"test_tsv", [](RunConfig& c) { return &c.data.test_tsv; }, Range::any,
        "instead of test_src/test_tgt: one TSV file"},
       {"train_text", [](RunConfig& c) { return &c.data.train_text; }, Range::any,
        "model.task: language_model: the training text, one document a line"},
       {"valid_text", [](RunConfig& c) { return &c.data.valid_text; }, Range::any,
        "model.task: language_model: the validation text (optional)"},
       {"test_text", [](RunConfig& c) { return &c.data.test_text; }, Range::any,
        "model.task: language_model: the test text (optional)"},
       {"max_len", [](RunConfig& c) { return &c.data.max_len; }, Range::positive,
        "pairs with more tokens than this on either side are skipped (and counted); language_model: the block length"},
       {"lowercase", [](RunConfig& c) { return &c.data.lowercase; }, Range::any,
        "lower-case all text before tokenizing"}}};
}

// The keys of tokenizer: how text becomes token ids.
Section tokenizer_section() {
  return {
      "tokenizer",
      {{"kind", [](RunConfig& c) { return choice_of(&c.tokenizer.kind); }, Range::any,
        "word | char | bpe | unigram (bpe and unigram are sentencepiece subwords)"},
       {"vocab_size", [](RunConfig& c) { return &c.tokenizer.vocab_size; }, Range::non_negative,
        "bpe / unigram: the vocabulary size; word / char: a cap on it (0 = keep all)"},
       {"shared", [](RunConfig& c) { return &c.tokenizer.shared; }, Range::any, "one vocabulary for source and target"},
       {"min_count", [](RunConfig& c) { return &c.tokenizer.min_count; }, Range::positive,
        "word / char: tokens seen fewer times become unk"}}};
}

// The keys of model: the Transformer's shape and the path its ops take.
Section model_section() {
  return {
      "model",
      {{"task", [](RunConfig& c) { return choice_of(&c.model.task); }, Range::any,
        "translation (the encoder-decoder) | cloze (a reader answering cloze questions, data/synthetic/cloze.h) | "
        "language_model (decoder-only, GPT: next-token prediction on data.train_text)"},
       {"reader", [](RunConfig& c) { return choice_of(&c.model.reader); }, Range::any,
        "cloze only: aoa (attention over attention) | as_reader (attention sum), attention/reader.h"},
       {"share_embeddings", [](RunConfig& c) { return &c.model.share_embeddings; }, Range::any,
        "one embedding table for source and target (needs tokenizer.shared: true)"},
       {"tie_output", [](RunConfig& c) { return &c.model.tie_output; }, Range::any,
        "the output projection reuses the target embedding table"},
       {"d_model", [](RunConfig& c) { return &c.model.d_model; }, Range::positive,
        "width of every token vector (a multiple of heads)", 65536},
       {"heads", [](RunConfig& c) { return &c.model.heads; }, Range::positive,
        "attention heads; each has d_k = d_model / heads"},
       {"d_ff", [](RunConfig& c) { return &c.model.d_ff; }, Range::positive,
        "hidden width of the position-wise feed-forward network", 1048576},
       {"encoder_layers", [](RunConfig& c) { return &c.model.encoder_layers; }, Range::positive, "N, encoder layers",
        1000},
       {"decoder_layers", [](RunConfig& c) { return &c.model.decoder_layers; }, Range::positive, "N, decoder layers",
        1000},
       {"dropout", [](RunConfig& c) { return &c.model.dropout; }, Range::below_one,
        "on embeddings, attention weights, FFN hidden units and sublayer outputs"},
       {"activation", [](RunConfig& c) { return choice_of(&c.model.activation); }, Range::any,
        "relu | gelu, inside the feed-forward network"},
       {"norm", [](RunConfig& c) { return choice_of(&c.model.norm); }, Range::any,
        "post (LayerNorm after the residual, as in the paper) | pre (before the sublayer)"},
       {"residual", [](RunConfig& c) { return &c.model.residual; }, Range::any,
        "x + Sublayer(x) in every layer; false drops the x + (an ablation)"},
       {"positional", [](RunConfig& c) { return choice_of(&c.model.positional); }, Range::any,
        "sinusoidal | learned | none"},
       {"max_len", [](RunConfig& c) { return &c.model.max_len; }, Range::positive,
        "positions in the learned table (learned positions only)", 1048576},
       {"path", [](RunConfig& c) { return choice_of(&c.model.path); }, Range::any,
        "paper (the paper's chain of plain ops, what to read) | fused (the fast kernels, "
        "src/kernels/; the same numbers to rounding)"},
       {"gemm", [](RunConfig& c) { return choice_of(&c.model.gemm); }, Range::any,
        "the fused path's matrix products: auto (simd128 in the browser build, else packed) | packed (attnlab's "
        "own) | eigen | blas (OpenBLAS) | simd128 (the browser build's); the same numbers to rounding"},
       {"precision", [](RunConfig& c) { return choice_of(&c.model.precision); }, Range::any,
        "the fused path's products (Linear layers, output layer): float32 | bfloat16 (operands rounded to bfloat16, "
        "sums in float32; needs AVX512_BF16) | bfloat16-emulated (the same numbers on any CPU, many times slower)"}}};
}

// The keys of train: the optimizer, the schedule, the budget and the checkpoints.
Section train_section() {
  return {
      "train",
      {{"seed", [](RunConfig& c) { return &c.train.seed; }, Range::any,
        "seeds initialisation, dropout and batch order: the same seed gives the same run"},
       {"threads", [](RunConfig& c) { return &c.train.threads; }, Range::non_negative, "CPU threads (0 = all cores)",
        1024},
       {"batch_tokens", [](RunConfig& c) { return &c.train.batch_tokens; }, Range::positive,
        "source + target tokens per batch, padding included (approximately)"},
       {"max_steps", [](RunConfig& c) { return &c.train.max_steps; }, Range::positive, "optimizer steps"},
       {"max_minutes", [](RunConfig& c) { return &c.train.max_minutes; }, Range::non_negative,
        "stop after this much wall time (0 = no limit)"},
       {"optimizer", [](RunConfig& c) { return choice_of(&c.train.optimizer); }, Range::any,
        "adam | adamw (decoupled weight decay)"},
       {"lr", [](RunConfig& c) { return &c.train.lr; }, Range::positive,
        "peak learning rate; for noam, the multiplier of d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)"},
       {"beta1", [](RunConfig& c) { return &c.train.beta1; }, Range::below_one, "Adam's β₁"},
       {"beta2", [](RunConfig& c) { return &c.train.beta2; }, Range::below_one, "Adam's β₂"},
       {"eps", [](RunConfig& c) { return &c.train.eps; }, Range::positive, "Adam's ε"},
       {"weight_decay", [](RunConfig& c) { return &c.train.weight_decay; }, Range::non_negative, "adamw only"},
       {"schedule", [](RunConfig& c) { return choice_of(&c.train.schedule); }, Range::any,
        "noam | inverse_sqrt | constant | cosine"},
       {"warmup_steps", [](RunConfig& c) { return &c.train.warmup_steps; }, Range::non_negative,
        "steps of linear warm-up (noam and inverse_sqrt need at least 1)"},
       {"schedule_by", [](RunConfig& c) { return choice_of(&c.train.schedule_by); }, Range::any,
        "steps | time: with time (needs max_minutes) the schedule is at max(step, max_steps · elapsed / max_minutes)"},
       {"label_smoothing", [](RunConfig& c) { return &c.train.label_smoothing; }, Range::below_one,
        "ε_ls: the target distribution puts 1 − ε_ls on the right token"},
       {"clip_norm", [](RunConfig& c) { return &c.train.clip_norm; }, Range::non_negative,
        "clip the global gradient norm to this (0 = off)"},
       {"accumulate", [](RunConfig& c) { return &c.train.accumulate; }, Range::positive, "batches per optimizer step"},
       {"valid_every", [](RunConfig& c) { return &c.train.valid_every; }, Range::positive, "steps between validations"},
       {"valid_samples", [](RunConfig& c) { return &c.train.valid_samples; }, Range::non_negative,
        "validation sentences translated greedily for exact match and BLEU"},
       {"checkpoint_every", [](RunConfig& c) { return &c.train.checkpoint_every; }, Range::positive,
        "steps between checkpoints"},
       {"keep_last", [](RunConfig& c) { return &c.train.keep_last; }, Range::non_negative,
        "checkpoints kept besides the best"},
       {"average_last", [](RunConfig& c) { return &c.train.average_last; }, Range::non_negative,
        "at the end, write checkpoints/average.safetensors, the mean of the last N step checkpoints (0 = don't)", 1000},
       {"log_every", [](RunConfig& c) { return &c.train.log_every; }, Range::positive,
        "steps between log lines when not on a terminal"},
       {"shard_optimizer", [](RunConfig& c) { return &c.train.shard_optimizer; }, Range::any,
        "under mpirun, each rank keeps Adam's moments for 1/N of the parameters (ZeRO stage 1)"},
       {"allreduce_bucket_mb", [](RunConfig& c) { return &c.train.allreduce_bucket_mb; }, Range::non_negative,
        "under mpirun, gradients summed in buckets of this many MB while backward runs (0 = one all-reduce after)",
        4096}}};
}

// The keys of decode: how translations are searched for.
Section decode_section() {
  return {"decode",
          {{"beam", [](RunConfig& c) { return &c.decode.beam; }, Range::positive, "beam size (1 = greedy)", 1000},
           {"length_penalty", [](RunConfig& c) { return &c.decode.length_penalty; }, Range::non_negative,
            "GNMT's α: scores are divided by ((5 + length) / 6)^α"},
           {"max_len_ratio", [](RunConfig& c) { return &c.decode.max_len_ratio; }, Range::positive,
            "longest output = max_len_ratio · source length + max_len_extra", 10},
           {"max_len_extra", [](RunConfig& c) { return &c.decode.max_len_extra; }, Range::non_negative,
            "see max_len_ratio", 1000},
           {"no_repeat_ngram", [](RunConfig& c) { return &c.decode.no_repeat_ngram; }, Range::non_negative,
            "N: no n-gram of N tokens appears twice in an output (0 = off)", 1000},
           {"batch_tokens", [](RunConfig& c) { return &c.decode.batch_tokens; }, Range::positive,
            "source tokens per batch when many sentences are translated (sorted by length)", 1048576}}};
}

// The sections, in the order to_yaml() writes them.
std::vector<Section> sections() {
  return {data_section(),
          tokenizer_section(),
          model_section(),
          attention_section("encoder"),
          attention_section("decoder"),
          attention_section("cross"),
          train_section(),
          decode_section()};
}

// Keys that look like config keys but are not, with the reason.
const std::map<std::string, std::string> not_keys{
    {"model.src_vocab", "the vocabulary sizes come from the tokenizer (set tokenizer.vocab_size instead)"},
    {"model.tgt_vocab", "the vocabulary sizes come from the tokenizer (set tokenizer.vocab_size instead)"},
};

// A single attention kind where a mapping is expected: `model.attention.decoder: linear` sets
// model.attention.decoder.kind, and `model.attention: linear` sets the kind of all three uses — except external.
// model.kernels (fused | reference) became model.path (fused | paper): the paper's chain is not a kernel.
const std::map<std::string, Renamed> renamed_keys{
    {"model.kernels", {"model.path", {{"fused", "fused"}, {"reference", "paper"}}}}};

std::vector<Shorthand> attention_shorthands() {
  Shorthand all_uses{"model.attention",
                     {},
                     "an attention kind",
                     {{"external",
                       "'external' would set all three uses, but external attention cannot be cross-attention — its "
                       "keys and values are learned memories, not the encoder's output, so the decoder would never "
                       "see the source sentence. Write `attention: {encoder: external, decoder: external}` instead"}}};
  std::vector<Shorthand> shorthands;
  for (const std::string& use : attention_uses) {
    const std::string path = "model.attention." + use;
    shorthands.push_back({path, {path + ".kind"}, "an attention kind", {}});
    all_uses.keys.push_back(path + ".kind");
  }
  shorthands.push_back(all_uses);
  return shorthands;
}

}  // namespace

const Table& config_keys() {
  static const Table attnlab_keys{sections(), not_keys, renamed_keys, attention_shorthands()};
  return attnlab_keys;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
