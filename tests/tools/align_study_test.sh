#!/usr/bin/env bash
# align_study_test.sh — tools/align_study.sh end to end on a tiny model of the reverse task (a few seconds a run):
# by default every kind attnlab lists is trained with each seed and scored, external is refused by the config and
# noted, not trained; the page has a row per kind with its seeds and τ, the command and the machine; --tabulate
# writes the same page without training; a run that cannot be scored is named, the study goes on and exits 1; bad
# arguments end with one message. Skips (77) without python3. About 30 seconds.
#   tests/tools/align_study_test.sh ATTNLAB SOURCE_DIR WORK_DIR
set -u
attnlab=$(realpath "$1") source_dir=$(realpath "$2") work=$3
command -v python3 > /dev/null || { echo "python3 is not installed: skipping"; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
study="$source_dir/tools/align_study.sh"
failures=0
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

"$attnlab" corpus --task reverse --out data --size 300 > /dev/null || { echo "FAIL: corpus"; exit 1; }
cat > tiny.yaml <<YAML
data: {train_src: data/train.src, train_tgt: data/train.tgt, valid_src: data/valid.src, valid_tgt: data/valid.tgt,
       test_src: data/test.src, test_tgt: data/test.tgt}
tokenizer: {kind: word}
model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 2, dropout: 0}
train: {batch_tokens: 400, schedule: constant, lr: 0.003, warmup_steps: 2, valid_every: 2, valid_samples: 0,
        checkpoint_every: 2, log_every: 2}
YAML

# --- bad arguments: one message each, exit 2, nothing trained ---
refused() {  # WHAT FRAGMENT ARGS…
  local what=$1 fragment=$2; shift 2
  if "$study" --attnlab "$attnlab" --config tiny.yaml "$@" > out.txt 2> err.txt; then fail "$what: accepted"; return; fi
  grep -qF -- "$fragment" err.txt || fail "$what: expected '$fragment', got: $(cat err.txt)"
}
refused "an unknown kind" "attnlab has no attention kind 'bogus'; its kinds are scaled_dot, additive" \
  --kinds scaled_dot,bogus --out x
refused "a kind twice" "names a kind twice" --kinds linear,linear --out x
refused "seeds that are not numbers" "--seeds: expected whole numbers separated by commas" --seeds 1,two --out x
refused "a seed twice" "names a seed twice" --seeds 2,2 --out x
refused "zero steps" "--steps: expected a whole number > 0, got '0'" --steps 0 --out x
refused "threads that are not a number" "--threads: expected a whole number > 0" --threads all --out x
refused "an unknown argument" "unknown argument '--kind'" --kind linear
refused "a missing config" "no config file 'missing.yaml'" --config missing.yaml --out x
refused "no attnlab program" "no attnlab program at 'nowhere/attnlab'" --attnlab nowhere/attnlab --out x
refused "--tabulate without --out" "--tabulate needs --out DIR" --tabulate
refused "--tabulate of a folder the study did not make" "was not made by align_study.sh" --tabulate --out data
[ ! -e x/runs ] || [ -z "$(ls x/runs)" ] || fail "a refused call trained something"

# --- every kind attnlab lists, two seeds ---
"$study" --attnlab "$attnlab" --config tiny.yaml --seeds 1,2 --steps 4 --threads 1 --limit 8 --gradient-limit 2 \
  --out study > page.txt 2> progress.txt || { fail "the study exited $?"; sed 's/^/    /' progress.txt; }
kinds=$("$attnlab" train --config tiny.yaml --run none --set model.attention.cross=none_such 2>&1 |
        sed -n 's/.*expected one of \(.*\), got.*/\1/p' | tr -d ,)
[ -n "$kinds" ] || fail "could not read attnlab's kinds for the test itself"
page=study/alignment.md
for kind in $kinds; do
  if [ "$kind" = external ]; then
    [ -s study/align/external.refused ] || fail "external was not recorded as refused"
    [ ! -e study/runs/external-1 ] || fail "external was trained"
    grep -q "^- \*\*external\*\*: not scored: the config refuses it as cross-attention — .*external attention cannot" \
      "$page" || fail "the page does not say why external is not scored"
    grep -q "attnlab refuses external as cross-attention" progress.txt ||
      fail "the progress does not say external is refused"
    continue
  fi
  for seed in 1 2; do
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(r["sentences"] != 8 or r["gradient_sentences"] != 2)' \
      "study/align/$kind-$seed.json" 2> /dev/null || fail "$kind, seed $seed: no scores of 8 pairs (2 with gradients)"
    grep -Eq "^  seed: $seed( |$)" "study/runs/$kind-$seed/config.yaml" ||
      fail "$kind-$seed was not trained with seed $seed"
    grep -A1 "^    cross:" "study/runs/$kind-$seed/config.yaml" | grep -Eq "^      kind: $kind( |$)" ||
      fail "$kind-$seed's cross-attention is not $kind"
  done
  row=$(grep "^## AER" -A 20 "$page" | grep "^| $kind |") || { fail "no AER row for $kind"; continue; }
  IFS='|' read -r -a cells <<< "$row"
  [ "$(echo ${cells[2]})" = 2 ] || fail "$kind: the seeds column is '${cells[2]}': $row"
  [[ "$(echo ${cells[3]})" =~ ^[0-9]\.[0-9]{3}\ ±\ [0-9]\.[0-9]{3}$ ]] || fail "$kind: best head is not mean ± sd: $row"
  [[ "${cells[${#cells[@]} - 1]}" =~ ^\ -?[01]\.[0-9]{2}\ \(1\ pair\)\ $ ]] || fail "$kind: no τ of one pair of seeds: $row"
  grep "^## AOPC" -A 20 "$page" | grep -q "^| $kind | 2 |" || fail "no AOPC row for $kind"
done
methods="best head | head mean, last layer | value norms, last layer | rollout | ALTI+ | gradient × input"
grep -qF "| kind | seeds | $methods | integrated gradients | lowest mean AER | τ across seeds |" "$page" ||
  fail "the AER table has not the methods as columns: $(grep '^| kind' "$page" | head -n 1)"
made_by="Made by \`$study --attnlab $attnlab --config tiny.yaml --seeds 1,2"
grep -qF "4 steps each, tiny.yaml with each kind as cross-attention. $made_by" "$page" ||
  fail "the page does not give the command that made it: $(grep 'Made by' "$page")"
grep -q "Made by .* on .*, $(nproc) cores (attnlab " "$page" || fail "the page does not name the machine"
grep -q "first 8 test pairs" "$page" || fail "the page does not say how many pairs were scored"
grep -q "\[1/[0-9]*\] scaled_dot, seed 1: training (4 steps each)" progress.txt || fail "no progress line for the first run"
grep -q "scored: 8 pairs, best method" progress.txt || fail "no progress line for a scored run"
cmp -s page.txt "$page" || fail "the page printed is not the page written"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' study/alignment.svg ||
  fail "alignment.svg is not well-formed"

# --- --tabulate: the same page, nothing trained ---
cp "$page" first.md
before=$(ls -l --time-style=+%s.%N study/runs/linear-1/checkpoints)
"$study" --out study --tabulate > /dev/null 2> err.txt || fail "--tabulate exited non-zero: $(cat err.txt)"
cmp -s first.md "$page" || fail "--tabulate wrote another page: $(diff first.md "$page")"
[ "$(ls -l --time-style=+%s.%N study/runs/linear-1/checkpoints)" = "$before" ] || fail "--tabulate changed a run"

# --- a run that cannot be scored: named, the study goes on, exit 1 ---
mv data/test.align data/test.align.kept
"$study" --attnlab "$attnlab" --config tiny.yaml --kinds scaled_dot --seeds 1 --steps 2 --limit 4 --gradient-limit 0 \
  --out broken > /dev/null 2> err.txt
status=$?
mv data/test.align.kept data/test.align
[ "$status" = 1 ] || fail "a study with a failed run exited $status, expected 1"
grep -q "FAILED: scoring failed; see broken/logs/scaled_dot-1.align.log" err.txt ||
  fail "the failure is not named: $(cat err.txt)"
grep -q "has no alignments" broken/logs/scaled_dot-1.align.log || fail "align's own message is not in its log"
grep -q "seed 1: no scores — scoring failed; see broken/logs/scaled_dot-1.align.log" broken/alignment.md ||
  fail "the page does not name the failed run: $(cat broken/alignment.md)"

[ "$failures" = 0 ] || exit 1
echo "align_study.sh: OK"
