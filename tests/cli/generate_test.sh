#!/usr/bin/env bash
# generate_test.sh — `attnlab train` on model.task: language_model and `attnlab generate` through the real command
# line: a tiny model of the toy English trains in seconds; greedy generation (--temperature 0) and a seeded draw
# repeat themselves; bad input gets one clear message and exit code 1: generate on a translation run, a prompt
# with no known token, a temperature below 0, a top-p above 1; train --resume of a language model is refused.
#   usage: generate_test.sh ATTNLAB_BINARY SOURCE_DIR WORK_DIR
set -u
attnlab=$1 source_dir=$2 work=$3
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"   # expect_error, expect_ok
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0 passes=0

cat > lm.yaml <<YAML
data: {train_text: $source_dir/data/toy-en-fr/valid.en, valid_text: $source_dir/data/toy-en-fr/test.en, max_len: 32}
tokenizer: {kind: word}
model: {task: language_model, d_model: 32, heads: 2, d_ff: 64, decoder_layers: 1, tie_output: true}
train: {threads: 1, batch_tokens: 512, max_steps: 30, lr: 0.003, schedule: constant, valid_every: 1000}
YAML
expect_ok "train a language model" "$attnlab" train --config lm.yaml --run lm
grep -q "perplexity" err.txt || { failures=$((failures + 1)); echo "FAIL: no perplexity in the log"; cat err.txt; }

expect_ok "generate greedily" "$attnlab" generate --run lm --prompt "the old" --temperature 0 --max-tokens 12
greedy=$(cat out.txt)
[[ "$greedy" == "the old "* ]] || { failures=$((failures + 1)); echo "FAIL: the output does not start with the prompt: $greedy"; }
expect_ok "generate greedily, another seed" "$attnlab" generate --run lm --prompt "the old" --temperature 0 \
  --max-tokens 12 --seed 9
[ "$(cat out.txt)" == "$greedy" ] || { failures=$((failures + 1)); echo "FAIL: greedy depends on the seed"; }
expect_ok "generate with a seed" "$attnlab" generate --run lm --prompt "we" --seed 5 --top-k 20 --top-p 0.9
sampled=$(cat out.txt)
expect_ok "generate with the same seed" "$attnlab" generate --run lm --prompt "we" --seed 5 --top-k 20 --top-p 0.9
[ "$(cat out.txt)" == "$sampled" ] || { failures=$((failures + 1)); echo "FAIL: the same seed drew another text"; }
expect_ok "the next token's distribution" "$attnlab" generate --run lm --prompt "the old" --distribution 4 \
  --temperature 1 --top-k 3
grep -q "top-k 3.*3 token(s) may come next" out.txt && [ "$(grep -c "^  [^ (]" out.txt)" -eq 3 ] ||
  { failures=$((failures + 1)); echo "FAIL: --distribution 4 --top-k 3 does not show the 3 kept tokens"; cat out.txt; }
first=$(awk 'NR == 2 {print $1}' out.txt)
[[ "$greedy" == "the old $first"* ]] ||
  { failures=$((failures + 1)); echo "FAIL: the likeliest next token '$first' is not greedy's: $greedy"; }
expect_error "--distribution with --continuation-only" "excludes" \
  "$attnlab" generate --run lm --prompt "the" --distribution 3 --continuation-only
expect_error "--distribution 0" "--distribution" "$attnlab" generate --run lm --prompt "the" --distribution 0
expect_ok "generate --help" "$attnlab" generate --help
grep -q -- "--temperature" out.txt || { failures=$((failures + 1)); echo "FAIL: --help does not list --temperature"; }

# trace reads a language model: one stack, the causal mask's −inf above the diagonal, the next token at each position.
expect_ok "trace a language model" "$attnlab" trace --run lm --text "the old king sleeps ."
grep -q "^decoder.layers.0.self_attn.scores .*-inf" out.txt && grep -q "^next\[5\] after \.:" out.txt &&
  ! grep -q "encoder" out.txt || { failures=$((failures + 1)); echo "FAIL: the trace of a language model:"; cat out.txt; }
expect_error "trace a language model with --target" "--target is for a translation run" \
  "$attnlab" trace --run lm --text "the" --target "le"

# Bad input: one "attnlab: …" line naming the problem, exit code 1.
printf 'data: {train_src: a.en, train_tgt: a.fr}\n' > translation.yaml
mkdir -p translation && cp translation.yaml translation/config.yaml
expect_error "generate on a translation run" "not a language model" "$attnlab" generate --run translation --prompt "a"
expect_error "a prompt with no known token" "no token this model knows" \
  "$attnlab" generate --run lm --prompt "xylophone zebra"
expect_error "a temperature below 0" "--temperature must be 0 (greedy) or more" \
  "$attnlab" generate --run lm --prompt "the" --temperature -1
expect_error "a top-p above 1" "--top-p" "$attnlab" generate --run lm --prompt "the" --top-p 1.5
expect_error "generate without a run" "not a run folder" "$attnlab" generate --run nowhere --prompt "the"
expect_error "resume a language model" "--resume is not supported" "$attnlab" train --resume lm
expect_error "translate a language model" "attnlab generate" "$attnlab" translate --run lm --text "the cat"

echo "generate: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
