#!/usr/bin/env bash
# align_test.sh — `attnlab align` end to end on a tiny run of the reverse task (whose gold links source word i to
# target word n − 1 − i): clear errors for a corpus without alignments, a gold file that does not fit, a bad
# --checkpoint and clashing options; the JSON's fields, the table's best head and method, the picture, every step
# checkpoint with --checkpoints all, and the one-line note of a kind scored its own way. About 20 seconds.
#   usage: align_test.sh ATTNLAB_BINARY WORK_DIR
set -u
attnlab=$(realpath "$1") work=$2
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"   # expect_error, expect_ok
command -v jq >/dev/null || { echo "jq is not installed: skipping"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0 passes=0

# check "what" condition…: the condition (a command) must succeed.
check() {
  local what=$1; shift
  if "$@" > /dev/null; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $what"; fi
}

"$attnlab" corpus --task reverse --out data --size 1500 > /dev/null || { echo "FAIL: corpus"; exit 1; }
cat > tiny.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/train.tgt, valid_src: data/valid.src, valid_tgt: data/valid.tgt,
       test_src: data/test.src, test_tgt: data/test.tgt}
tokenizer: {kind: word}
model: {d_model: 32, heads: 2, d_ff: 64, encoder_layers: 1, decoder_layers: 2, dropout: 0}
train: {max_steps: 60, batch_tokens: 800, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 20,
        valid_samples: 0, checkpoint_every: 20, keep_last: 10, threads: 1, log_every: 20}
YAML
"$attnlab" train --config tiny.yaml --run run > train.log 2>&1 || { echo "FAIL: train"; cat train.log; exit 1; }

# --- bad input: one clear message each ---
mv data/test.align data/test.align.kept
expect_error "a corpus without alignments" "this corpus has no alignments: data/test.align is missing; regenerate it with attnlab corpus" \
  "$attnlab" align --run run --limit 5
head -n 10 data/test.align.kept > data/test.align
expect_error "an .align file of the wrong length" "data/test.align has 10 lines, but the corpus has 500 sentence pairs" \
  "$attnlab" align --run run --limit 5
{ echo "0-99"; tail -n +2 data/test.align.kept; } > data/test.align
expect_error "an .align index outside its pair" "data/test.align line 1" "$attnlab" align --run run --limit 5
mv data/test.align.kept data/test.align
expect_error "a checkpoint that does not exist" "nope.safetensors" "$attnlab" align --run run --checkpoint nope.safetensors
expect_error "--checkpoint and --checkpoints together" "--checkpoint excludes --checkpoints" \
  "$attnlab" align --run run --checkpoint latest --checkpoints all
expect_error "--checkpoints with another word" "--checkpoints: some not in {all}" "$attnlab" align --run run --checkpoints some
expect_error "a run folder that is not one" "not a run folder" "$attnlab" align --run nowhere

# --- one checkpoint: the JSON's fields, the table, the picture ---
"$attnlab" align --run run --limit 40 --gradient-limit 5 --ig-steps 4 --json > align.json 2> align.err ||
  { failures=$((failures + 1)); echo "FAIL: align --json"; cat align.err; }
check "the JSON names the run, split and scale" jq -e '.run == "run" and .split == "test" and .sentences == 40
  and .gradient_sentences == 5 and .integration_steps == 4 and .deletions == 3 and (.loss | type) == "number"' align.json
check "the JSON scores at least 8 methods, each of the explorer's kinds of picture and ALTI+" jq -e '
  ([.methods[].name] | length >= 8) and
  ([.methods[].name] | contains(["cross.l0.h0", "cross.l1.h1", "cross.l0.mean", "value_norms.l1", "rollout",
                                 "alti_plus", "gradient_x_input", "integrated_gradients"]))' align.json
check "every method has AER, precision, recall, own, phenomena and AOPC" jq -e '
  all(.methods[]; has("aer") and has("precision") and has("recall") and (.own | has("aer")) and has("phenomena")
      and (.aopc | type) == "number" and (.deletion_curve | length) == 3 and .aer >= 0 and .aer <= 1)' align.json
check "the gradient methods say their subset" jq -e \
  'all(.methods[] | select(.family == "integrated_gradients" or .family == "gradient_x_input"); .sentences == 5)' align.json
check "the best head is a head and no head beats it" jq -e '
  .best_head.name as $b | ([.methods[] | select(.family == "head") | .aer] | min) == .best_head.aer
  and ($b | startswith("cross."))' align.json
check "the random ranking's AOPC is there" jq -e '(.random.aopc | type) == "number"' align.json
"$attnlab" align --run run --limit 20 --gradient-limit 3 --svg heads.svg > table.txt 2> table.err ||
  { failures=$((failures + 1)); echo "FAIL: align (table)"; cat table.err; }
check "the table names the best head and the best method" grep -q "^best head: cross\.l[0-9]\.h[0-9] (AER [0-9.]*); best method: " table.txt
check "the table states the gradient subset" grep -q "the first 3 pairs only" table.txt
check "the picture is an SVG heatmap" grep -q "<svg" heads.svg

# --- every step checkpoint ---
"$attnlab" align --run run --checkpoints all --limit 10 --gradient-limit 2 --ig-steps 2 --json --svg curve.svg \
  > all.json 2> all.err || { failures=$((failures + 1)); echo "FAIL: --checkpoints all"; cat all.err; }
steps=$(ls run/checkpoints/step-*.safetensors | wc -l)
check "--checkpoints all scores every step checkpoint, oldest first" jq -e --argjson n "$steps" '
  (.checkpoints | length) == $n and ([.checkpoints[].step] == ([.checkpoints[].step] | sort))' all.json
check "--checkpoints all draws the curves" grep -q "AER of the cross-attention heads" curve.svg
check "--checkpoints all logs progress on stderr" grep -q "align: checkpoint 3 of $steps" all.err

# --- a kind whose weights are not token-to-token: one note, not an error ---
"$attnlab" train --config tiny.yaml --run external --set model.attention.encoder.kind=external \
  --set train.max_steps=2 > /dev/null 2>&1 || { failures=$((failures + 1)); echo "FAIL: train external"; }
"$attnlab" align --run external --limit 5 --gradient-limit 0 > external.txt 2> external.err ||
  { failures=$((failures + 1)); echo "FAIL: align on external attention"; cat external.err; }
check "external attention gets one note line" grep -q "^note: encoder self-attention is external: its weights are over learned memory slots" external.txt

echo "align_test: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
