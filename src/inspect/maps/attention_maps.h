// attention_maps.h — recording what every attention head looked at, for one sentence pair.
//
// The pictures of chapter "Looking inside". One teacher-forced forward pass of the trained model over
//   source  x_1 … x_S                       (no bos/eos: the encoder sees exactly what training showed it)
//   target input  <s> y_1 … y_m              (the decoder's input, shifted right, as in training)
// with an AttentionRecorder (src/nn/context.h) attached hands over every attention module's weights
//   a[h, i, j] = how much query i draws from key j in head h,   a ∈ [B = 1, heads, T_query, T_key]
// Three types of map, one per layer:
//   encoder_self  source → source                        "encoder.layers.L.self_attn"
//   decoder_self  target input → target input (causal)   "decoder.layers.L.self_attn"
//   cross         target → source                        "decoder.layers.L.encoder_attn"
// Row i of a decoder map is position i of the target input (token y_{i−1}, <s> for i = 0): that position's
// output predicts target output token i (y_i, or </s> at the end). So the rows of every decoder map, cross- and
// self-attention alike, are labelled with the token they PREDICT — the convention of alignment pictures
// (Bahdanau et al. 2015, Figure 3) — and decoder self-attention's columns with the input token each position
// holds (the token it reads). One rule, so a row has the same name in every picture and view.
// External attention has no keys from the sentence: its columns are its S learned memory slots.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/alignment.h"
#include "data/alignment_error.h"
#include "inspect/pages/svg.h"
#include "run/run.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// One number-making stage behind a map, for the explorer's neuron view: a tensor the module traced on its way to
// the weights (q, k, scores, additive's tanh, linear's phi_q/phi_k, external's token_softmax, local_p's softmax
// and gaussian, hard's distribution), one of its parameters (additive's w = score_proj.weight, sagan's gamma,
// external's memory_k), or read off traced tensors: the local kinds' centre (their p_head0, p_head1, … lines as
// one [heads, T_query]) and window (the first and last key its scores let through), hard's chosen_key (the key
// of the one 1 in each row of what it chose; its weights are the distribution a, the key only marked). Shape without the batch axis.
struct NeuronStage {
  std::string name;             // "q", "scores", "tanh", "w", …
  std::vector<int64_t> shape;   // "q": [heads, T_query, d_k]; "tanh": [heads, T_query, T_key, d_k]; …
  std::vector<double> values;   // row-major; −∞ (a hidden key's score) and NaN (no key) are null in the JSON
  bool keys = false;            // the values are key positions (window, chosen_key): integers in the JSON
};

struct SentenceTrace;   // inspect/maps/trace.h

struct AttentionMapRecord {
  std::string name;           // "decoder.layers.0.encoder_attn", as the module was named
  std::string type;           // encoder_self | decoder_self | cross
  int64_t layer = 0;
  AttentionKind kind = AttentionKind::scaled_dot;   // the attention kind of that use (model.attention.*.kind)
  int64_t heads = 0, queries = 0, keys = 0;
  std::vector<double> weights;  // [heads, queries, keys], row-major
  // How its scores were made, for the neuron view: the factor the softmax kinds multiply q·k by (1/√d_k, or 1
  // with scale: false; 0 for the kinds with no q·k score: additive, linear, external), the window (when
  // has_window) and the stages of the one forward pass that made `weights`.
  double score_scale = 0;
  bool has_window = false;
  int64_t window_left = 0, window_right = 0;
  int64_t local_width = 0;    // local_m, local_p: D, the window [p_i − D, p_i + D] (σ = D / 2); 0 for the others
  std::optional<HardEval> hard_eval{};   // hard: how the recorded (evaluation) pass chose; empty for the others
  std::vector<NeuronStage> stages{};
  // ‖α_ij · f_h(v_j)‖ [heads, queries, keys]: how large a vector each weight actually moves (Kobayashi et al.
  // 2020; src/inspect/maps/flow.h); empty for a map whose values could not be read.
  std::vector<double> value_norms{};

  double at(int64_t head, int64_t query, int64_t key) const { return weights[(head * queries + query) * keys + key]; }
  bool keys_are_slots() const { return kind == AttentionKind::external; }
};

// One step of the translation, for the explorer's decoding view: at decoder position t (reading target input
// token t) the model's distribution over the next token, p = softmax(logits[t]) of the same forward pass.
struct DecodingStep {
  std::string chosen;                                      // the token the translation has there (</s> at the end)
  double chosen_probability = 0;
  std::vector<std::pair<std::string, double>> likeliest;   // the five most likely next tokens, best first
};

// One candidate of one beam-search step (decode/beam_search.h, BeamCandidateLog) with its tokens as text.
struct BeamCandidate {
  std::vector<std::string> tokens;
  double log_prob = 0, score = 0;
  std::string fate;                                        // kept | finished | dropped
};

// Where information flows (src/inspect/maps/flow.h): attention rollout through the whole encoder–decoder, and the
// gradient attributions of each predicted token's log-probability to the source token embeddings.
struct Rollout {
  std::vector<double> encoder;          // [S, S]: how much encoder output i carries of source token j
  std::vector<double> decoder_source;   // [T, S]: decoder position t (predicting target_output[t]) ← source j
  std::vector<double> decoder_target;   // [T, T]: the same position ← target input token u; each row of
                                        //         [decoder_source | decoder_target] sums to 1
};
struct Attribution {
  int64_t steps = 0;                         // integrated gradients' Riemann steps m (0: not computed)
  std::vector<double> gradient_x_input;      // [T, S]: e_s · ∂F_t/∂e_s
  std::vector<double> integrated;            // [T, S]: e_s · (1/m) Σ_k ∂F_t/∂e_s at α_k e, α_k = (k − ½)/m
  std::vector<double> log_prob;              // [T]: F_t(e) = log p(target_output[t] | …)
  std::vector<double> baseline_log_prob;     // [T]: F_t(0), every source token embedding zero
  std::vector<double> completeness_error;    // [T]: Σ_s integrated[t][s] − (F_t(e) − F_t(0))
};

// The gold alignment of the sentence pair, when the run's corpus has one for it (found by find_gold(),
// src/inspect/align/gold_on_picture.h, which says when that is and how words map onto tokens).
struct PictureGold {
  bool found = false;
  std::string why;                      // found false: why there is no gold
  std::string reference;                // the source was found but the target differs: the reference it would need
  std::string split, alignment_file;    // "test", "data/toy-en-fr/test.align"
  int64_t line = 0;                     // 1-based line of the corpus (and of the .align file)
  std::vector<std::string> source_words, target_words;
  std::vector<int32_t> source_word_of;  // [source tokens]: the word of each token, −1 for none
  std::vector<int32_t> target_word_of;  // [target_output tokens]: the word each decoder row predicts, −1 for </s>
  Alignment alignment;                  // sure and possible links over words
  // Every view of the picture scored against the gold, in align's names and order: cross.l<L>.h<H>,
  // cross.l<L>.mean, value_norms.l<L>, rollout, and gradient_x_input, integrated_gradients when computed.
  std::vector<std::pair<std::string, AlignmentCounts>> scores;
};

// "Why this token and not that one?" at one decoder position (src/inspect/maps/contrast.h computes it): the gap
// Δ = log p(chosen) − log p(alternative) attributed to the source token embeddings, and ALTI+'s split of the
// position between the source and the target prefix.
struct Contrast {
  int64_t position = 0;                      // decoder position t (it predicts target_output[t])
  std::string chosen, alternative;           // the tokens compared (chosen: the translation's target_output[t])
  double p_chosen = 0, p_alternative = 0;    // their probabilities at t, from the recorded pass
  int64_t steps = 0;                         // integrated gradients' m
  double gap = 0, baseline_gap = 0;          // Δ at the sentence (e) and with every source embedding 0
  std::vector<double> gradient_x_input;      // [S]: e_s · ∂Δ/∂e_s
  std::vector<double> integrated;            // [S]: e_s · (1/m) Σ_k ∂Δ/∂e_s at α_k e
  double completeness_error = 0;             // Σ_s integrated[s] − (gap − baseline_gap)
  double alti_source = -1, alti_target = -1;  // ALTI+: Σ_s R_src[t][s] and Σ_u R_tgt[t][u] (−1: not computed)
  std::string alti_error;                    // why ALTI+ is missing (alti.h refuses some layers), or empty
};

// A decoder-only language model's picture (language_model_maps.h) has no source: one pass over bos + the text,
// whose maps are all decoder_self. The text is the prompt and the model's continuation of it; decoder position t
// reads text token t − 1 (bos first) and its row is named by the token it predicts, text token t.
struct TextGeneration {
  std::string prompt, continuation;   // as given; the continuation as the tokenizer decodes it (may be empty)
  int64_t prompt_tokens = 0;          // the text's first prompt_tokens tokens are the prompt's
  int64_t max_tokens = 0;             // what was asked for (0: the prompt alone, no continuation)
  double temperature = 0;             // the sampling settings (gpt/sampling.h); temperature 0: greedy
  int64_t top_k = 0;
  double top_p = 1;
  uint64_t seed = 1;
};

struct AttentionPicture {
  std::optional<TextGeneration> generation;   // set for a language model's picture; empty for a translation
  std::string source_text, target_text;  // the sentence pair, as given (target: forced, or the greedy output)
  bool target_forced = false;            // true: --target; false: the model's own greedy translation
  std::vector<std::string> source_tokens, target_input_tokens, target_output_tokens;
  std::vector<std::string> source_typed;  // each source token as typed: an unknown word's own text, not "<unk>"
  std::vector<bool> source_unknown;       // true where the model read <unk> (the vocabulary lacks the word)
  std::vector<AttentionMapRecord> maps;  // encoder_self layers, then decoder_self layers, then cross layers
  std::string checkpoint;                // which weights drew it
  int64_t step = 0;
  std::vector<DecodingStep> decoding;    // one per target position (target_output_tokens.size())
  int64_t beam = 1;                      // the beam size the translation was searched with (1: greedy)
  double length_penalty = 0;             // its GNMT α
  std::vector<std::vector<BeamCandidate>> beam_steps;  // beam > 1 and not forced: every step's 2k candidates
  Rollout rollout;                       // from the maps (flow.h)
  Attribution attribution;               // from gradients of the model (flow.h); steps 0 when not asked for
  PictureGold gold;                      // set by find_gold(); empty (found false, no why): not looked for
  std::vector<Contrast> contrasts;       // asked for by attnlab attention --contrast (contrast.h); often none
};

// Keeps a copy of every map the modules hand over (B = 1: the one sentence), named but not yet classified.
class AttentionMapCollector : public AttentionRecorder {
 public:
  void record(const std::string& name, const Tensor& weights) override;
  std::vector<AttentionMapRecord> maps;
};

// The collected maps made whole: each classified by its name (type, layer, the settings of that use of
// attention in `config`), checked finite, with its neuron stages and value norms from `trace` and the model's
// parameters, then ordered encoder_self, decoder_self, cross and by layer.
void finish_maps(std::vector<AttentionMapRecord>& maps, const SentenceTrace& trace, const Module& model,
                 const ModelConfig& config);

// A token piece as a label that can be seen: an empty piece "∅", a piece of spaces "␣" each.
std::string visible_piece(const std::string& piece);

// The source text as the model's ids, with the clean-up the training text had (spaces normalised, lower case
// when data.lowercase). Throws attnlab::Error if it is not UTF-8 or has no tokens.
std::vector<int32_t> encode_text(const LoadedRun& run, const Tokenizer& tokenizer, const std::string& text,
                                 const std::string& what);

// Greedy translation of one tokenized sentence: the output ids without <s> and </s>.
std::vector<int32_t> translate_for_pictures(Seq2Seq& model, const std::vector<int32_t>& source_ids,
                                            const DecodeConfig& config);


// Translates `source` as the run's decode settings say (beam > 0 overrides decode.beam; 1 = greedy), or takes
// `forced_target` when not empty, then runs the one teacher-forced forward pass on the paper's path with a
// recorder and a tracer (src/inspect/maps/trace.h): the maps, the stages behind them and the next-token
// distributions all come from that pass. Every map it returns has real weights (NaN or ±∞ would be a bug
// upstream and throws attnlab::Error naming the map). Each map's value norms and the rollout come from the same
// pass; with integration_steps > 0 also the gradient attributions (src/inspect/maps/flow.h), which cost
// T forward and backward passes of a batch of integration_steps + 2 sentences. With `trace` it also hands over the
// pass's trace (every stage; src/inspect/align/alti.h reads the sublayers' terms from it). The source tokens at
// `masked_source` are read as <unk> (src/model/intervention.h, mask_source; intervention_maps.h).
AttentionPicture record_attention(LoadedRun& run, const std::string& source, const std::string& forced_target = "",
                                  int64_t beam = 0, int64_t integration_steps = 0, SentenceTrace* trace = nullptr,
                                  const std::vector<int64_t>& masked_source = {});

// "encoder self-attention", "decoder self-attention", "cross-attention"
std::string type_title(const std::string& type);
// The source tokens as labels: each as typed, an unknown word followed by "?" (the model read <unk>).
std::vector<std::string> source_labels(const AttentionPicture& picture);
// The labels of a map's rows and columns (see the file comment): tokens, or "slot 0" … for external keys.
std::vector<std::string> query_labels(const AttentionPicture& picture, const AttentionMapRecord& map);
std::vector<std::string> key_labels(const AttentionPicture& picture, const AttentionMapRecord& map);
// One head of one map as a heatmap (title "cross-attention · layer 1 · head 0 (scaled_dot)").
Heatmap heatmap_of(const AttentionPicture& picture, const AttentionMapRecord& map, int64_t head);
// File name of that heatmap: "cross-layer1-head0.svg".
std::string heatmap_file_name(const AttentionMapRecord& map, int64_t head);

// How this map's rows come to sum to 1 — every kind attnlab has but local_p makes each query's row sum to 1 when
// the query sees at least one key: "softmax over keys" (scaled_dot, additive, simplified, sagan, local_m); "phi(q).
// phi(k) divided by its sum over keys" (linear: the map it implies but never forms); "L1 over memory slots, after a
// softmax over tokens" (external: its FIRST softmax runs down the columns, over the tokens; the stored map is the
// second, row-wise normalisation); softmax over keys (hard: the distribution a; the chosen key is marked, not recorded). local_p's rows are a softmax times a Gaussian, which the
// paper does not renormalise: they sum to between e^(−2) and 1. Exempt rows are all zero: a query at a <pad> token — a one-sentence picture has no
// padding, but an untrained model's greedy translation can emit the pad id, which the masks then treat as
// padding (external attention blanks such rows) — or a query whose attention window holds no key.
std::string row_normalisation(const AttentionMapRecord& map);

// attention.json — the schema is documented at the writer, attention_json.cpp, and in docs/guide/explorer-and-serve.md.
std::string attention_json(const AttentionPicture& picture);

// A Unicode-shaded heatmap of one head for the terminal: rows = queries, columns = keys (labels written
// downwards), one shade per weight band: "  " < 0.1 ≤ "░░" < 0.3 ≤ "▒▒" < 0.5 ≤ "▓▓" < 0.75 ≤ "██".
std::string terminal_heatmap(const AttentionPicture& picture, const AttentionMapRecord& map, int64_t head);

// Writes into out_dir (created if missing): attention.json, one SVG per map and head, and index.html (the
// explorer, src/inspect/pages/explorer_page.h). With `compared`, the same sentence through a second run, also
// compared.json (its attention.json), and the page's compare view shows the two side by side, named `names`
// (the first run's, then the second's). With `film_json` (film.h) also film.json, and the page's film view plays it.
// Returns the paths written, index.html last.
std::vector<std::string> write_attention_folder(const AttentionPicture& picture, const std::string& out_dir,
                                                const AttentionPicture* compared = nullptr,
                                                const std::vector<std::string>& names = {},
                                                const std::string& film_json = "");

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
