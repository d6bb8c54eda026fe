#!/usr/bin/env bash
# cli_test.sh — the `attnlab` command end to end: bad input gets one clear message and a non-zero exit (never a
# crash), and a short train → translate → resume round trip works through the real command line.
#   usage: cli_test.sh ATTNLAB_BINARY SOURCE_DIR WORK_DIR
set -u
attnlab=$1 source_dir=$2 work=$3
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"   # expect_error, expect_ok
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0 passes=0

# --- bad input ---
expect_error "unknown corpus task" "did you mean 'reverse'" "$attnlab" corpus --task revers --out c
expect_error "unknown gradcheck op" "did you mean 'softmax'" "$attnlab" gradcheck --op sofmax
expect_error "missing config file" "not found" "$attnlab" train --config nope.yaml --run r
printf 'train:\n  max_step: 10\n' > typo.yaml
expect_error "mistyped config key" "did you mean 'train.max_steps'" "$attnlab" train --config typo.yaml --run r
expect_error "translate without a run" "not a run folder" "$attnlab" translate --run nowhere --text "a b"
expect_error "resume without a run" "not a run folder" "$attnlab" train --resume nowhere
[ ! -e r ] && [ ! -e nowhere ] || { failures=$((failures + 1)); echo "FAIL: a refused train left a folder behind"; }

# The command line itself: an unknown subcommand is named with the closest one; CLI11's own refusals (a value out
# of range, an unknown or missing option) end like every other error, in one "attnlab: …" line and exit code 1.
expect_error "unknown subcommand" "unknown subcommand 'trian'; did you mean 'train'?" "$attnlab" trian --run r
expect_error "no subcommand" "a subcommand is needed: gradcheck, corpus, train" "$attnlab"
expect_error "an option value out of range" "translate: --beam: Value 0 not in range 1 to 1000" \
  "$attnlab" translate --run nowhere --beam 0
expect_error "eval --beam above its ceiling" "eval: --beam: Value 100000000 not in range" \
  "$attnlab" eval --run nowhere --beam 100000000
expect_error "an unknown option" "corpus: " "$attnlab" corpus --task copy --out c --sise 3
expect_error "a missing required option" "translate: --run is required" "$attnlab" translate --text "a b"
huge=$(printf '9%.0s' $(seq 1 5000))
expect_error "a huge option value" "translate: " "$attnlab" translate --run nowhere --beam "$huge"
[ "$(tail -n 1 err.txt | wc -c)" -lt 500 ] ||
  { failures=$((failures + 1)); echo "FAIL: the message echoes the whole value"; }
expect_ok "--help" "$attnlab" --help
expect_ok "translate --help" "$attnlab" translate --help
# --version says where model.precision: bfloat16 would multiply on this CPU (a CPU without AVX512_BF16 is what
# ATTNLAB_NO_AVX512_BF16=1 pretends), and the build's vectors (the docs test reads those).
expect_ok "--version" "$attnlab" --version
check "--version names the bfloat16 path and the vectors" grep -Eq \
  '^attnlab [0-9.]+ \(float32, and bfloat16 (on AMX tiles|on AVX512_BF16|emulated only); vectors: [^)]+\)$' out.txt
ATTNLAB_NO_AVX512_BF16=1 "$attnlab" --version > out.txt
check "--version on a CPU without AVX512_BF16" grep -q "and bfloat16 emulated only;" out.txt
printf 'data: {train_src: a.src, train_tgt: a.tgt}\n' > sized.yaml
expect_error "a size above its ceiling" "model.d_model: expected a whole number > 0 and at most 65536" \
  "$attnlab" train --config sized.yaml --run r --set model.d_model=1000000000
expect_error "train.threads above its ceiling" "train.threads: expected a whole number ≥ 0 and at most 1024" \
  "$attnlab" train --config sized.yaml --run r --set train.threads=99999999
expect_error "decode.max_len_extra above its ceiling" "decode.max_len_extra: expected a whole number ≥ 0 and at most" \
  "$attnlab" train --config sized.yaml --run r --set decode.max_len_extra=9223372036854775807
expect_error "decode.max_len_ratio above its ceiling" "decode.max_len_ratio: expected a number > 0 and at most 10" \
  "$attnlab" train --config sized.yaml --run r --set decode.max_len_ratio=1e300
[ ! -e r ] || { failures=$((failures + 1)); echo "FAIL: a refused config left the folder r"; }

# A corpus whose files disagree in length: the error names both files and both counts.
expect_ok "corpus copy" "$attnlab" corpus --task copy --out data --size 300
head -n 299 data/train.tgt > data/short.tgt
cat > mismatch.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/short.tgt}
YAML
expect_error "mismatched corpus" "300" "$attnlab" train --config mismatch.yaml --run m
grep -qF "short.tgt" err.txt || { failures=$((failures + 1)); echo "FAIL: the mismatch message does not name short.tgt"; }
[ ! -e m ] || { failures=$((failures + 1)); echo "FAIL: a start refused for its corpus left the folder m"; ls -R m; }

# Invalid UTF-8 in a corpus: the error names the file and the line.
cp data/train.src bad.src && printf 'a b \xff c\n' >> bad.src && cp data/train.tgt bad.tgt && echo "a b c" >> bad.tgt
printf 'data: {train_src: bad.src, train_tgt: bad.tgt}\n' > bad.yaml
expect_error "invalid UTF-8" "bad.src:301" "$attnlab" train --config bad.yaml --run b

# --- a short run end to end ---
cat > tiny.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/train.tgt, valid_src: data/valid.src, valid_tgt: data/valid.tgt}
tokenizer: {kind: word}
model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}
train: {max_steps: 12, batch_tokens: 300, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 6,
        checkpoint_every: 6, threads: 1, log_every: 3}
YAML
expect_ok "train" "$attnlab" train --config tiny.yaml --run run
grep -q "finished at step 12" out.txt || { failures=$((failures + 1)); echo "FAIL: train did not report finishing"; cat out.txt; }
[ -s run/metrics.jsonl ] && [ -f run/config.yaml ] && [ -f run/checkpoints/best.safetensors ] ||
  { failures=$((failures + 1)); echo "FAIL: the run folder is incomplete"; ls -R run; }
expect_error "new run into an existing run folder" "already holds a run" "$attnlab" train --config tiny.yaml --run run
# A start that fails — here a model too large for the machine, found after the tokenizers are written — leaves no
# folder; the same command with the cause fixed then trains.
expect_error "a model too large for the machine" "too large for this machine" "$attnlab" train --config tiny.yaml \
  --run big --set model.d_model=65536 --set model.heads=1 --set model.d_ff=1048576 --set model.encoder_layers=1000
grep -q "but this machine has" err.txt || { failures=$((failures + 1)); echo "FAIL: no memory figures"; cat err.txt; }
[ ! -e big ] || { failures=$((failures + 1)); echo "FAIL: the refused start left the folder big"; ls -R big; }
expect_ok "the same command, fixed" "$attnlab" train --config tiny.yaml --run big --set train.max_steps=2
printf 'a b c\nd e f g\n' > input.txt
expect_ok "translate stdin" "$attnlab" translate --run run < input.txt
[ "$(wc -l < out.txt)" -eq 2 ] || { failures=$((failures + 1)); echo "FAIL: two lines in, $(wc -l < out.txt) out"; }
expect_ok "translate with beam search" "$attnlab" translate --run run --beam 3 --alpha 0.6 < input.txt
[ "$(wc -l < out.txt)" -eq 2 ] || { failures=$((failures + 1)); echo "FAIL: beam 3: two lines in, $(wc -l < out.txt) out"; }
expect_ok "translate with beam 1 (greedy)" "$attnlab" translate --run run --beam 1 --text "a b c"
# The two paths (model.path): a run trained on the fused path translates the same on the paper's path.
expect_ok "translate on the fused path" "$attnlab" translate --run run --path fused < input.txt
cp out.txt fused.txt
expect_ok "translate on the paper's path" "$attnlab" translate --run run --path paper < input.txt
cmp -s out.txt fused.txt || { failures=$((failures + 1)); echo "FAIL: --path paper translated differently"; }
"$attnlab" translate --run run --path fast --text "a" > out.txt 2> err.txt; code=$?   # refused by the parser
if [ "$code" -ne 0 ] && [ "$code" -lt 128 ] && grep -q "fast not in {paper,fused}" err.txt; then
  passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: --path fast: exit $code"; cat err.txt; fi
expect_error "train with a bad model.path" "model.path" "$attnlab" train --config tiny.yaml --run k \
  --set model.path=fast
# The old key still loads, with one line naming the new one.
expect_ok "train with the old key model.kernels" "$attnlab" train --config tiny.yaml --run oldkey \
  --set model.kernels=reference --set train.max_steps=1
grep -q "model.kernels is now model.path" err.txt && grep -q "path: paper" oldkey/config.yaml ||
  { failures=$((failures + 1)); echo "FAIL: model.kernels=reference did not load as model.path: paper"; cat err.txt; }
# Readers name what they refuse, in one line with the path and exit 1: a run folder that is a symlink loop (each
# command that opens one), a device as a config (read until memory ran out), a folder as a config or where the
# tokenizer index belongs, YAML nested past any config's depth (the parser recurses once a level), and bytes that
# are not UTF-8, shown as \xHH.
ln -s loop loop
for command in "translate --run loop --text a" "attention --run loop --text a --out page" "serve --run loop" \
               "train --config tiny.yaml --run loop" "train --resume loop"; do
  # shellcheck disable=SC2086   # the words of the command
  expect_error "$command: a symlink loop" "'loop/config.yaml': Too many levels of symbolic links" "$attnlab" $command
done
expect_error "a device as the config" "'/dev/zero' is not a regular file" "$attnlab" train --config /dev/zero --run z
expect_error "a folder as the config" "'data' is a folder" "$attnlab" train --config data --run z
head -c 2000000 /dev/zero | tr '\0' '#' > huge.yaml
expect_error "a config over the size ceiling" "'huge.yaml' has 2000000 bytes, more than the 1048576" \
  "$attnlab" train --config huge.yaml --run z
python3 -c "print('train: ' + '[' * 100000 + ']' * 100000)" > deep.yaml
expect_error "YAML nested 100,000 deep" "deep.yaml: the YAML nests deeper than 32 levels at line 1" \
  "$attnlab" train --config deep.yaml --run z
printf 'train:\n  optimizer: ad\377\376m\n' > latin.yaml
expect_error "bytes that are not UTF-8 in a value" 'ad\xFF\xFEm' "$attnlab" train --config latin.yaml --run z
cp -r run dirindex && rm dirindex/tokenizers.json && mkdir dirindex/tokenizers.json
expect_error "a folder where tokenizers.json belongs" "'dirindex/tokenizers.json' is a folder" \
  "$attnlab" translate --run dirindex --text "a b"
[ ! -e z ] || { failures=$((failures + 1)); echo "FAIL: a refused config left the folder z"; }
expect_ok "a global option after the subcommand" "$attnlab" translate --run run --text "a b" --log-level warn
# A damaged tokenizers.json (a number where a file name belongs) is refused naming the file, not by the JSON library.
cp -r run badindex && printf '{"src": 5, "tgt": "tokenizer"}' > badindex/tokenizers.json
expect_error "a tokenizers.json with a wrong type" "badindex/tokenizers.json: \"src\" must be the name of a tokenizer" \
  "$attnlab" translate --run badindex --text "a b"
printf 'a \xfe b\n' > badinput.txt
expect_error "translate invalid UTF-8" "not valid UTF-8" "$attnlab" translate --run run < badinput.txt
# Sinusoidal positions have no last row, but memory has a limit: a 3000-token line is cut to its first 1024 tokens
# with a warning naming the line, and the next line is still translated.
{ printf 'a %.0s' $(seq 1 3000); printf '\na b c\n'; } > longline.txt
expect_ok "translate a runaway line" "$attnlab" translate --run run < longline.txt
[ "$(wc -l < out.txt)" -eq 2 ] ||
  { failures=$((failures + 1)); echo "FAIL: runaway line: 2 lines in, $(wc -l < out.txt) out"; }
grep -q "input line 1 has 3000 tokens, more than the 1024 tokens attnlab translate reads at once" err.txt ||
  { failures=$((failures + 1)); echo "FAIL: no warning naming the runaway line"; cat err.txt; }
# --- eval: scores of a run on a split or on two files ---
grep '"type":"valid"' run/metrics.jsonl | grep -q '"bleu":' ||
  { failures=$((failures + 1)); echo "FAIL: metrics.jsonl validation lines carry no bleu"; }
valid_lines=$(wc -l < data/valid.src)
expect_ok "eval --split valid --json" "$attnlab" eval --run run --split valid --json
[ "$(wc -l < out.txt)" -eq 1 ] || { failures=$((failures + 1)); echo "FAIL: eval --json printed more than one line"; }
for key in bleu chrf exact_match loss perplexity token_accuracy sentences beam length_penalty hypotheses_file \
           attention_entropy encoder decoder cross; do
  grep -q "\"$key\":" out.txt || { failures=$((failures + 1)); echo "FAIL: eval --json has no \"$key\""; cat out.txt; }
done
grep -q "\"sentences\":$valid_lines," out.txt && grep -q '"hypotheses_file":"run/eval-valid.hyp"' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: eval --json sentences / hypotheses_file"; cat out.txt; }
[ "$(wc -l < run/eval-valid.hyp)" -eq "$valid_lines" ] ||
  { failures=$((failures + 1)); echo "FAIL: run/eval-valid.hyp does not have $valid_lines lines"; }
expect_ok "eval table" "$attnlab" eval --run run --split valid --checkpoint latest
grep -q "BLEU" out.txt && grep -q "hypotheses written to run/eval-valid.hyp" out.txt ||
  { failures=$((failures + 1)); echo "FAIL: the eval table lacks BLEU or the hypotheses file"; cat out.txt; }
# The model's own translations as references: BLEU 100 (there are sentences of 4+ tokens), every one exact.
cp run/eval-valid.hyp own.ref
expect_ok "eval against its own output" "$attnlab" eval --run run --src data/valid.src --ref own.ref --beam 1 --json
grep -q '"beam":1,' out.txt && grep -q '"exact_match":1.0,' out.txt && grep -q '"hypotheses_file":"run/eval-valid.src.hyp"' out.txt &&
  awk -F'"bleu":' '{ split($2, v, ","); exit !(v[1] > 99.999) }' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: eval against its own output is not BLEU 100 / exact 1"; cat out.txt; }
expect_ok "eval --out" "$attnlab" eval --run run --src data/valid.src --ref data/valid.tgt --out mine.hyp --json
[ "$(wc -l < mine.hyp)" -eq "$valid_lines" ] || { failures=$((failures + 1)); echo "FAIL: --out mine.hyp"; }
head -n 3 data/valid.tgt > short.ref
expect_error "eval with mismatched files" "short.ref has 3" "$attnlab" eval --run run --src data/valid.src --ref short.ref
grep -qF "data/valid.src has $valid_lines lines" err.txt ||
  { failures=$((failures + 1)); echo "FAIL: the mismatch message does not name data/valid.src and its count"; cat err.txt; }
expect_error "eval without a run" "not a run folder" "$attnlab" eval --run nowhere --split valid
expect_error "eval of a split the config lacks" "no test split" "$attnlab" eval --run run --split test
expect_error "eval --src without --ref" "--src needs --ref" "$attnlab" eval --run run --src data/valid.src
expect_error "eval without text" "needs either --split" "$attnlab" eval --run run
: > empty.src && : > empty.ref
expect_error "eval of empty files" "no sentences to evaluate" "$attnlab" eval --run run --src empty.src --ref empty.ref

# --- average: the mean of a run's step checkpoints (steps 6 and 12), read back by name by translate and eval ---
expect_ok "average --last 2" "$attnlab" average --run run --last 2
grep -q "wrote run/checkpoints/average.safetensors (the mean of 2 checkpoints)" out.txt ||
  { failures=$((failures + 1)); echo "FAIL: average did not say what it wrote"; cat out.txt; }
expect_ok "translate with the averaged checkpoint" "$attnlab" translate --run run --checkpoint average < input.txt
[ "$(wc -l < out.txt)" -eq 2 ] || { failures=$((failures + 1)); echo "FAIL: the averaged checkpoint translated"; }
expect_ok "eval the averaged checkpoint" "$attnlab" eval --run run --split valid --checkpoint average --json
expect_ok "average --best 1 --out" "$attnlab" average --run run --best 1 --out best1.safetensors
expect_ok "translate with a checkpoint path" "$attnlab" translate --run run --checkpoint best1.safetensors --text "a b"
expect_error "average more than the run keeps" "it has 2 step checkpoints" "$attnlab" average --run run --last 5
expect_error "average --last with --best" "not both" "$attnlab" average --run run --last 1 --best 1
expect_error "average of no run" "is not a run folder" "$attnlab" average --run nowhere
expect_error "the average of a run that has none" "has no averaged checkpoint" \
  "$attnlab" translate --run big --checkpoint average --text "a b"
# --- the repetition guard: with N = 1 no token is written twice ---
expect_ok "translate --no-repeat-ngram 1" "$attnlab" translate --run run --beam 3 --no-repeat-ngram 1 < input.txt
awk '{ delete seen; for (i = 1; i <= NF; i++) if (seen[$i]++) bad = 1 } END { exit bad }' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: --no-repeat-ngram 1 repeated a token"; cat out.txt; }
expect_ok "eval --no-repeat-ngram 2" "$attnlab" eval --run run --split valid --no-repeat-ngram 2 --json
grep -q '"no_repeat_ngram":2' out.txt || { failures=$((failures + 1)); echo "FAIL: eval --json no_repeat_ngram"; }
# --alpha: beam search's length penalty, as translate --alpha sets it; the same translations as translate's
expect_ok "eval --alpha 2" "$attnlab" eval --run run --split valid --beam 3 --alpha 2 --json --out alpha.hyp
grep -q '"length_penalty":2.0' out.txt || { failures=$((failures + 1)); echo "FAIL: eval --json length_penalty"; }
expect_ok "translate --alpha 2" "$attnlab" translate --run run --beam 3 --alpha 2 < data/valid.src
cmp -s out.txt alpha.hyp ||
  { failures=$((failures + 1)); echo "FAIL: eval --alpha 2 translated otherwise than translate"; }

# Learned positions end at model.max_len = 8: eval refuses a longer source by its line; translate cuts it to its
# first 8 tokens with a warning naming the line, and keeps one output line per input line.
cat > learned.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/train.tgt, max_len: 7}
tokenizer: {kind: word}
model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1, positional: learned, max_len: 8}
train: {max_steps: 2, batch_tokens: 300, schedule: constant, lr: 0.003, warmup_steps: 1, threads: 1, log_every: 1}
YAML
expect_ok "train with learned positions" "$attnlab" train --config learned.yaml --run learned
printf 'a b c\na b c d e f g h i j k l\nd e f g h i j k\n' > long.src
cp long.src long.ref
expect_error "eval of a source longer than model.max_len" "line 2 of long.src has 12 tokens, more than model.max_len = 8" \
  "$attnlab" eval --run learned --src long.src --ref long.ref
expect_ok "translate a source longer than model.max_len" "$attnlab" translate --run learned < long.src
[ "$(wc -l < out.txt)" -eq 3 ] || { failures=$((failures + 1)); echo "FAIL: long lines: 3 lines in, $(wc -l < out.txt) out"; }
grep -q "input line 2 has 12 tokens, more than model.max_len = 8" err.txt && [ "$(grep -c "tokens, more than" err.txt)" -eq 1 ] ||
  { failures=$((failures + 1)); echo "FAIL: translate did not warn once, about line 2"; cat err.txt; }
expect_ok "translate --text longer than model.max_len" "$attnlab" translate --run learned --text "a b c d e f g h i j"
grep -q -- "--text has 10 tokens" err.txt || { failures=$((failures + 1)); echo "FAIL: no warning for --text"; cat err.txt; }

# trace: one forward pass, its stages in the order of the code, the next tokens at the end.
expect_error "trace without a run" "not a run folder" "$attnlab" trace --run nowhere --text "a b"
expect_error "trace of an empty text" "--text is empty" "$attnlab" trace --run run --text ""
expect_error "trace of a blank text" "--text is empty" "$attnlab" trace --run run --text "   "
expect_ok "trace" "$attnlab" trace --run run --text "a b c" --values 2
order=$(grep -oE '^(encoder.input_ids|encoder.layers.0.self_attn.q|decoder.input_ids|decoder.layers.0.encoder_attn.weights|logits|next\[0\]) ' out.txt | tr -d ' ' | tr '\n' ' ')
[ "$order" = "encoder.input_ids encoder.layers.0.self_attn.q decoder.input_ids decoder.layers.0.encoder_attn.weights logits next[0] " ] ||
  { failures=$((failures + 1)); echo "FAIL: trace stages out of order: $order"; cat out.txt; }
grep -qE '^encoder.layers.0.self_attn.q +\[1, 2, 3, 8\] +-?[0-9.]+ +-?[0-9.]+  …$' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: trace q line is not [1, 2, 3, 8] with 2 numbers"; grep self_attn.q out.txt; }
expect_ok "trace --target" "$attnlab" trace --run run --text "a b c" --target "c b a b"
grep -qE '^decoder.input_ids +\[1, 5\] ' out.txt && [ "$(grep -c '^next\[' out.txt)" -eq 5 ] ||
  { failures=$((failures + 1)); echo "FAIL: trace --target did not feed bos + 4 tokens"; cat out.txt; }
expect_ok "resume to step 18" "$attnlab" train --resume run --set train.max_steps=18
grep -q "finished at step 18" out.txt || { failures=$((failures + 1)); echo "FAIL: resume did not reach step 18"; cat out.txt; }

# A truncated checkpoint is refused by name.
latest=$(ls run/checkpoints/step-*.safetensors | tail -n 1)
head -c 1000 "$latest" > "$latest.cut" && mv "$latest.cut" "$latest"
expect_error "truncated checkpoint" "$(basename "$latest")" "$attnlab" train --resume run --set train.max_steps=24

# A real Ctrl-C (SIGINT) and SIGTERM: the step finishes, a checkpoint is saved, exit 130 with a resume hint.
for signal in INT TERM; do
  "$attnlab" train --config tiny.yaml --run "sig$signal" --set train.max_steps=100000 > out.txt 2> err.txt &
  pid=$!
  for _ in $(seq 1 100); do [ -s "sig$signal/metrics.jsonl" ] && break; sleep 0.1; done   # wait for steps
  kill -s "$signal" "$pid"; wait "$pid"; code=$?
  if [ "$code" -eq 130 ] && grep -q "interrupted at step" out.txt && grep -q "attnlab train --resume" out.txt &&
     ls "sig$signal"/checkpoints/step-*.safetensors > /dev/null 2>&1; then passes=$((passes + 1)); else
    failures=$((failures + 1)); echo "FAIL: SIG$signal: exit $code"; cat out.txt; tail -n 3 err.txt; fi
done

# bench: a tiny timing run prints one JSON object with the step time; a bad option is refused by name.
expect_ok "bench --json" "$attnlab" bench --config tiny.yaml --steps 1 --warmup 0 --batch 2 --length 4 --vocab 20 \
  --decode-sentences 1 --threads 1 --json
grep -q '"step_ms":' out.txt && grep -q '"program":"attnlab"' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: bench --json printed no step time"; cat out.txt; }
grep -q '"bf16_support":' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: bench --json names no bf16 support"; cat out.txt; }
# The command runs the float32 library (attnlab64's ATTNLAB_DOUBLE must not leak into it through the link).
grep -q '"precision":"float32"' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: the attnlab command is not compiled in float32"; cat out.txt; }
expect_error "bench with --steps 0" "--steps" "$attnlab" bench --config tiny.yaml --steps 0
# A model whose products run in bfloat16 (the emulated path: any CPU) is named so, in the table and in the JSON.
expect_ok "bench in bfloat16" "$attnlab" bench --config tiny.yaml --steps 1 --warmup 0 --batch 2 --length 4 \
  --vocab 20 --decode-sentences 0 --threads 1 --set model.precision=bfloat16-emulated
grep -q "threads, bfloat16-emulated$" out.txt && grep -q "products in bfloat16-emulated (model.precision" out.txt ||
  { failures=$((failures + 1)); echo "FAIL: bench in bfloat16 does not say so"; cat out.txt; }
expect_ok "bench --json in bfloat16" "$attnlab" bench --config tiny.yaml --steps 1 --warmup 0 --batch 2 --length 4 \
  --vocab 20 --decode-sentences 0 --threads 1 --set model.precision=bfloat16-emulated --json
grep -q '"precision":"bfloat16-emulated"' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: bench --json in bfloat16 names another precision"; cat out.txt; }
# The bf16 product's line names the CPU's support; on a CPU without AVX512_BF16 (as ATTNLAB_NO_AVX512_BF16 makes
# this one count) it says so instead of a speed.
expect_ok "bench without AVX512_BF16" env ATTNLAB_NO_AVX512_BF16=1 "$attnlab" bench --config tiny.yaml --steps 1 \
  --warmup 0 --batch 2 --length 4 --vocab 20 --decode-sentences 0 --threads 1
grep -q "bf16 *not measured: AVX512_BF16 switched off" out.txt ||
  { failures=$((failures + 1)); echo "FAIL: bench without AVX512_BF16 did not say so"; cat out.txt; }

# A run trained with bfloat16 products is read on a CPU without AVX512_BF16 (as ATTNLAB_NO_AVX512_BF16 makes this
# one count): translated with the emulated product, the same numbers, and told so; training it on there is refused.
# (The run is trained emulated, which any CPU can, and its config.yaml then says bfloat16 as a fast run's would.)
expect_ok "train bfloat16-emulated" "$attnlab" train --config tiny.yaml --run bf16run --set train.max_steps=4 \
  --set model.precision=bfloat16-emulated
expect_ok "translate the emulated run" "$attnlab" translate --run bf16run < input.txt
mv out.txt emulated.txt
sed -i 's/precision: bfloat16-emulated/precision: bfloat16/' bf16run/config.yaml
check "the run's config says bfloat16" grep -Eq 'precision: bfloat16( |$)' bf16run/config.yaml
expect_ok "translate a bfloat16 run without AVX512_BF16" env ATTNLAB_NO_AVX512_BF16=1 "$attnlab" translate \
  --run bf16run < input.txt
check "it translates as the emulated product does" cmp -s out.txt emulated.txt
check "it says it reads the run with bfloat16-emulated" grep -q "reading it with bfloat16-emulated" err.txt
# Said once per run folder, however often a command reads the run: `attention --compare` with the run itself reads
# it twice (the old code said it twice there).
expect_ok "compare a bfloat16 run with itself without AVX512_BF16" env ATTNLAB_NO_AVX512_BF16=1 "$attnlab" attention \
  --run bf16run --compare bf16run --text "a b c" --out bf16page
check "it says so once, not once per read" test "$(grep -c "reading it with bfloat16-emulated" err.txt)" -eq 1
expect_error "resume a bfloat16 run without AVX512_BF16" "bfloat16 needs AVX512_BF16" env ATTNLAB_NO_AVX512_BF16=1 \
  "$attnlab" train --resume bf16run --set train.max_steps=6

echo "cli: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
