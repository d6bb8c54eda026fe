#!/usr/bin/env bash
# compare_test.sh — tools/compare.sh trains two configs on one budget and tabulates them: the table has a row per
# config with its steps, validation exact match and parameter count, the SVG a curve per config and panel,
# --tabulate writes the same table again without training, and bad arguments are refused with a message; two cloze
# readers get a reader's table (accuracy, the most-frequent-noun baseline, the best step). Skips (77) without jq.
#   tests/cli/compare_test.sh ATTNLAB SOURCE_DIR WORK_DIR
set -euo pipefail
attnlab="$1"; source_dir="$2"; work="$3"
source "$(dirname "$0")/tiny_corpus.sh" "$work"   # jq or skip, an empty $work, fail(), $work/tiny.en|fr
# Two tiny models that differ in one key.
for name in small small-no-positional; do
  positional=sinusoidal; [ "$name" = small ] || positional=none
  cat > "$work/$name.yaml" <<YAML
data: {train_src: $work/tiny.en, train_tgt: $work/tiny.fr, valid_src: $work/tiny.en, valid_tgt: $work/tiny.fr,
       test_src: $work/tiny.en, test_tgt: $work/tiny.fr}
model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1, positional: $positional}
train: {threads: 1, batch_tokens: 100, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 2,
        valid_samples: 4, checkpoint_every: 2, log_every: 1}
YAML
done

"$source_dir/tools/compare.sh" "$work/small.yaml" "$work/small-no-positional.yaml" --steps 4 \
  --out "$work/out" --attnlab "$attnlab" --set train.seed=3 > "$work/stdout.txt" 2> "$work/stderr.txt" ||
  { cat "$work/stderr.txt"; fail "compare.sh exited non-zero"; }

table="$work/out/compare.md"
[ -s "$table" ] || fail "no compare.md"
grep -q '^# Comparison: 4 steps each' "$table" || fail "the table's title does not state the budget"
# The table says how it was made: the command as typed (so it can be made again) and the machine.
grep -qF "Made by \`$source_dir/tools/compare.sh $work/small.yaml $work/small-no-positional.yaml --steps 4" "$table" ||
  fail "the table does not give the command that made it: $(grep 'Made by' "$table")"
cores=$(nproc)
grep -q "Made by .* on .*, $cores cores (attnlab " "$table" || fail "the table does not name the machine: $(grep 'Made by' "$table")"
for name in small small-no-positional; do
  row=$(grep "^| $name |" "$table") || fail "no row for $name in compare.md"
  IFS='|' read -r _ run test_em bleu chrf valid_em to90 steps wall tps params enc dec cross _ <<< "$row"
  [ "$(echo $steps)" = 4 ] || fail "$name: steps column is '$steps', expected 4"
  [[ "$(echo $valid_em)" =~ ^[0-9.]+%$ ]] || fail "$name: validation exact match '$valid_em' is not a percentage"
  [[ "$(echo $params)" =~ ^[1-9][0-9]*$ ]] || fail "$name: parameter count '$params' is not a number"
  [[ "$(echo $tps)" =~ ^[0-9]+$ ]] || fail "$name: tokens/s '$tps' is not a number"
  # The test-split columns come from `attnlab eval --json`.
  for column in "$test_em" "$bleu" "$chrf"; do
    [[ "$(echo $column)" =~ ^[0-9.]+%?$ ]] || fail "$name: a test-split column is '$column', not a number: $row"
  done
  for column in "$enc" "$dec" "$cross"; do
    [[ "$(echo $column)" =~ ^[0-9]+\.[0-9]+$ ]] || fail "$name: an attention entropy column is '$column': $row"
  done
  [ "$(jq -s 'map(select(.type == "valid")) | length' "$work/out/runs/$name/metrics.jsonl")" = 2 ] ||
    fail "$name: expected validations at steps 2 and 4"
  # "steps to 90%": the first validation step with exact match ≥ 90%, or – when there is none.
  expected_to90=$(jq -s 'map(select(.type == "valid" and .exact_match >= 0.9)) | first | .step // "–"' -r \
                    "$work/out/runs/$name/metrics.jsonl")
  [ "$(echo $to90)" = "$expected_to90" ] || fail "$name: steps to 90% is '$to90', the metrics say '$expected_to90'"
done
# Positions are parameter-free (sinusoidal), so both models have the same parameter count.
[ "$(grep -c "^| small" "$table")" = 2 ] || fail "expected exactly two rows"

svg="$work/out/curves.svg"
[ "$(grep -c '<polyline' "$svg")" = 4 ] || fail "expected 4 curves (2 runs × 2 panels) in curves.svg"
grep -q '>small-no-positional</text>' "$svg" || fail "curves.svg has no legend entry for small-no-positional"
/usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$svg" 2>/dev/null ||
  [ ! -x /usr/bin/python3 ] || fail "curves.svg is not well-formed XML"

# --tabulate trains nothing and writes the same table again from the runs (a trained run would have new files).
cp "$table" "$work/compare.first.md"
checkpoints_before=$(ls "$work/out/runs/small/checkpoints")
"$source_dir/tools/compare.sh" "$work/small.yaml" "$work/small-no-positional.yaml" --out "$work/out" --tabulate \
  > /dev/null 2> "$work/stderr.txt" || { cat "$work/stderr.txt"; fail "compare.sh --tabulate exited non-zero"; }
cmp -s "$table" "$work/compare.first.md" || fail "--tabulate wrote a different table: $(diff "$work/compare.first.md" "$table")"
[ "$(ls "$work/out/runs/small/checkpoints")" = "$checkpoints_before" ] || fail "--tabulate changed the runs"
if "$source_dir/tools/compare.sh" "$work/small.yaml" --out "$work/nothing-here" --tabulate 2> "$work/err.txt"; then
  fail "--tabulate of a folder compare.sh did not make was accepted"
fi
grep -q "was not made by compare.sh" "$work/err.txt" || fail "--tabulate of an empty folder: $(cat "$work/err.txt")"

# Mistakes end with one message and a non-zero exit.
if "$source_dir/tools/compare.sh" "$work/missing.yaml" --attnlab "$attnlab" --out "$work/x" 2> "$work/err.txt"; then
  fail "a missing config was accepted"
fi
grep -q "no config file '$work/missing.yaml'" "$work/err.txt" || fail "missing config: $(cat "$work/err.txt")"
if "$source_dir/tools/compare.sh" "$work/small.yaml" --steps many --attnlab "$attnlab" 2> "$work/err.txt"; then
  fail "--steps many was accepted"
fi
grep -q "expected a whole number" "$work/err.txt" || fail "--steps many: $(cat "$work/err.txt")"
# Cloze readers get a reader's table: test accuracy beside the most-frequent-noun baseline, the best step; the
# curves show accuracy. A reader and a translator in one call are refused.
head -n 40 "$source_dir/data/cloze/train.question" > "$work/cloze.question"
head -n 40 "$source_dir/data/cloze/train.answer" > "$work/cloze.answer"
for reader in aoa as_reader; do
  cat > "$work/cloze_$reader.yaml" <<YAML
data: {train_src: $work/cloze.question, train_tgt: $work/cloze.answer, valid_src: $work/cloze.question,
       valid_tgt: $work/cloze.answer, test_src: $work/cloze.question, test_tgt: $work/cloze.answer, max_len: 60}
tokenizer: {kind: word, shared: true}
model:
  task: cloze
  reader: $reader
  d_model: 16
  heads: 2
  d_ff: 32
  encoder_layers: 1
train: {threads: 1, batch_tokens: 400, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 2, log_every: 1}
YAML
done
"$source_dir/tools/compare.sh" "$work/cloze_aoa.yaml" "$work/cloze_as_reader.yaml" --steps 4 --out "$work/cloze-out" \
  --attnlab "$attnlab" > /dev/null 2> "$work/stderr.txt" || { cat "$work/stderr.txt"; fail "compare.sh of two readers exited non-zero"; }
table="$work/cloze-out/compare.md"
grep -q '^# Comparison of cloze readers: 4 steps each' "$table" || fail "the readers' table has no reader title: $(head -n 1 "$table")"
grep -q '^| run | test accuracy | most frequent noun | valid accuracy | steps to 90% | best step | steps |' "$table" ||
  fail "the readers' table has not the reader's columns: $(grep '^| run' "$table")"
for name in cloze_aoa cloze_as_reader; do
  row=$(grep "^| $name |" "$table") || fail "no row for $name in the readers' table"
  IFS='|' read -r _ run test_acc frequent valid_acc to90 best steps wall params _ <<< "$row"
  eval_json="$work/cloze-out/$name.eval.json"
  expected=$(jq -r '.accuracy * 100 | . * 10 | round / 10' "$eval_json")
  [ "$(echo $test_acc)" = "$(printf '%.1f%%' "$expected")" ] || fail "$name: test accuracy '$test_acc', eval says $expected"
  [[ "$(echo $frequent)" =~ ^[0-9.]+%$ ]] || fail "$name: most frequent noun '$frequent' is not a percentage"
  [[ "$(echo $valid_acc)" =~ ^[0-9.]+%$ ]] || fail "$name: validation accuracy '$valid_acc' is not a percentage"
  [ "$(echo $best)" = "$(jq -r .step "$eval_json")" ] || fail "$name: best step '$best', eval says $(jq -r .step "$eval_json")"
  [ "$(echo $steps)" = 4 ] || fail "$name: steps column is '$steps', expected 4"
  [[ "$(echo $params)" =~ ^[1-9][0-9]*$ ]] || fail "$name: parameter count '$params' is not a number"
done
grep -q '>accuracy (validation)</text>' "$work/cloze-out/curves.svg" || fail "the readers' curves are not labelled accuracy"
[ "$(grep -c '<polyline' "$work/cloze-out/curves.svg")" = 4 ] || fail "expected 4 curves in the readers' curves.svg"
if "$source_dir/tools/compare.sh" "$work/small.yaml" "$work/cloze_aoa.yaml" --attnlab "$attnlab" --out "$work/mixed" \
     2> "$work/err.txt"; then
  fail "a translator and a reader in one call were accepted"
fi
grep -q "in separate calls" "$work/err.txt" || fail "mixed call: $(cat "$work/err.txt")"
echo "compare.sh: OK"
