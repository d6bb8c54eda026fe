#!/usr/bin/env bash
# cli_test.sh — the `attnlab` command end to end: bad input gets one clear message and a non-zero exit (never a
# crash), and a short train → translate → resume round trip works through the real command line.
#   usage: cli_test.sh ATTNLAB_BINARY SOURCE_DIR WORK_DIR
set -u
attnlab=$1 source_dir=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0 passes=0

# expect_error "what" "message fragment" command…: exit code 1 (a handled error, not a crash) and, as the last
# line on stderr (progress logs may come before it), one "attnlab: …" message containing the fragment.
expect_error() {
  local what=$1 fragment=$2; shift 2
  "$@" > out.txt 2> err.txt; local code=$?
  local last; last=$(tail -n 1 err.txt)
  if [ "$code" -eq 1 ] && [[ "$last" == "attnlab: "* ]] && [[ "$last" == *"$fragment"* ]]; then
    passes=$((passes + 1))
  else
    failures=$((failures + 1))
    echo "FAIL: $what: exit $code, stderr:"; sed 's/^/    /' err.txt
  fi
}
expect_ok() {
  local what=$1; shift
  if "$@" > out.txt 2> err.txt; then passes=$((passes + 1)); else
    failures=$((failures + 1)); echo "FAIL: $what (exit $?):"; sed 's/^/    /' err.txt; fi
}

# --- bad input ---
expect_error "unknown corpus task" "did you mean 'reverse'" "$attnlab" corpus --task revers --out c
expect_error "unknown gradcheck op" "did you mean 'softmax'" "$attnlab" gradcheck --op sofmax
expect_error "missing config file" "not found" "$attnlab" train --config nope.yaml --run r
printf 'train:\n  max_step: 10\n' > typo.yaml
expect_error "mistyped config key" "did you mean 'train.max_steps'" "$attnlab" train --config typo.yaml --run r
expect_error "translate without a run" "not a run folder" "$attnlab" translate --run nowhere --text "a b"
expect_error "resume without a run" "not a run folder" "$attnlab" train --resume nowhere

# A corpus whose files disagree in length: the error names both files and both counts.
expect_ok "corpus copy" "$attnlab" corpus --task copy --out data --size 300
head -n 299 data/train.tgt > data/short.tgt
cat > mismatch.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/short.tgt}
YAML
expect_error "mismatched corpus" "300" "$attnlab" train --config mismatch.yaml --run m
grep -qF "short.tgt" err.txt || { failures=$((failures + 1)); echo "FAIL: the mismatch message does not name short.tgt"; }

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
printf 'a b c\nd e f g\n' > input.txt
expect_ok "translate stdin" "$attnlab" translate --run run < input.txt
[ "$(wc -l < out.txt)" -eq 2 ] || { failures=$((failures + 1)); echo "FAIL: two lines in, $(wc -l < out.txt) out"; }
expect_ok "a global option after the subcommand" "$attnlab" translate --run run --text "a b" --log-level warn
printf 'a \xfe b\n' > badinput.txt
expect_error "translate invalid UTF-8" "not valid UTF-8" "$attnlab" translate --run run < badinput.txt
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
# The command runs the float32 library (attnlab64's ATTNLAB_DOUBLE must not leak into it through the link).
grep -q '"precision":"float32"' out.txt ||
  { failures=$((failures + 1)); echo "FAIL: the attnlab command is not compiled in float32"; cat out.txt; }
expect_error "bench with --steps 0" "--steps" "$attnlab" bench --config tiny.yaml --steps 0

echo "cli: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
