#!/usr/bin/env bash
# speedrun_test.sh — tools/speedrun.sh trains a config once per seed on a time budget and scores each run: the
# table has a row per seed with its steps and the BLEU and chrF of every scored split (validation first with
# --valid), the mean ± sd line is the mean of those rows, the signature lines are there, a seed that ended before its
# minutes (its max_steps reached, or stopped) is named under the table, --score-only scores the runs again without
# training them, and bad arguments are refused with a message. Skips (77) without jq.
#   tests/cli/speedrun_test.sh ATTNLAB SOURCE_DIR WORK_DIR
set -euo pipefail
attnlab="$1"; source_dir="$2"; work="$3"
source "$(dirname "$0")/tiny_corpus.sh" "$work"   # jq or skip, an empty $work, fail(), $work/tiny.en|fr
# A tiny model that trains a few steps in the budget (6 seconds, or 60 steps if sooner).
cat > "$work/tiny.yaml" <<YAML
data: {train_src: $work/tiny.en, train_tgt: $work/tiny.fr, valid_src: $work/tiny.en, valid_tgt: $work/tiny.fr,
       test_src: $work/tiny.en, test_tgt: $work/tiny.fr, lowercase: true}
model: {d_model: 16, heads: 2, d_ff: 32, encoder_layers: 1, decoder_layers: 1}
train: {threads: 1, batch_tokens: 100, max_steps: 60, schedule: cosine, lr: 0.01, warmup_steps: 10,
        valid_every: 20, valid_samples: 4, checkpoint_every: 20, keep_last: 3, average_last: 2}
YAML

speedrun() { "$source_dir/tools/speedrun.sh" --attnlab "$attnlab" --out "$work/out" "$@"; }
speedrun --valid --checkpoint average --set train.schedule_by=time "$work/tiny.yaml" 0.1 1 2 \
  > "$work/stdout.txt" 2> "$work/stderr.txt" || { cat "$work/stderr.txt"; fail "speedrun.sh exited non-zero"; }

table="$work/out/speedrun.md"
[ -s "$table" ] || fail "no speedrun.md"
cmp -s "$table" "$work/stdout.txt" || fail "speedrun.md is not what was printed"
grep -q "^# speedrun: $work/tiny.yaml, 0.1 minutes a seed, checkpoint average, beam 1$" "$table" ||
  fail "the title does not give the config, the budget, the checkpoint and the decoding: $(head -n 1 "$table")"
grep -qF "made by: $source_dir/tools/speedrun.sh --attnlab $attnlab --out $work/out --valid --checkpoint average --set \
train.schedule_by=time $work/tiny.yaml 0.1 1 2 on " "$table" ||
  fail "the table does not give the command that made it: $(grep 'made by' "$table")"
grep -q '^| seed | steps | valid BLEU | valid chrF | test BLEU | test chrF |$' "$table" ||
  fail "the header is not seed, steps, then validation and test columns: $(grep '^| seed' "$table")"
for seed in 1 2; do
  run="$work/out/seed-$seed"
  [ -f "$run/checkpoints/average.safetensors" ] || fail "seed $seed: training did not write the averaged checkpoint"
  grep -q "^  seed: $seed  #" "$run/config.yaml" || fail "seed $seed: the run was not trained with train.seed $seed"
  row=$(grep "^| $seed |" "$table") || fail "no row for seed $seed"
  IFS='|' read -r _ _ steps valid_bleu valid_chrf test_bleu test_chrf _ <<< "$row"
  last=$(ls "$run"/checkpoints/step-*.safetensors | tail -n 1)
  [ "$(echo $steps)" = "$((10#$(basename "$last" .safetensors | sed 's/^step-//')))" ] ||
    fail "seed $seed: steps column '$steps' is not the last checkpoint's step ($last)"
  # The columns are the averaged checkpoint's scores, as attnlab eval gives them.
  expected=$("$attnlab" --log-level warn eval --run "$run" --split test --checkpoint average --json --out "$work/h.txt")
  [ "$(echo $test_bleu)" = "$(printf '%.2f' "$(jq -r .bleu <<< "$expected")")" ] ||
    fail "seed $seed: test BLEU '$test_bleu' is not eval's $(jq -r .bleu <<< "$expected")"
  for column in "$valid_bleu" "$valid_chrf" "$test_chrf"; do
    [[ "$(echo $column)" =~ ^[0-9]+\.[0-9][0-9]$ ]] || fail "seed $seed: a score column is '$column': $row"
  done
done
# The summary line is the mean, the sample standard deviation and the range of the rows (the rows are rounded
# to two decimals, the summary is of the unrounded scores: they agree to 0.01).
summary=$(grep '^test: BLEU' "$table") || fail "no test summary line"
read -r mean sd lo hi <<< "$(sed -E 's/^test: BLEU ([0-9.]+) ± ([0-9.]+) \(([0-9.]+) … ([0-9.]+)\).*/\1 \2 \3 \4/' <<< "$summary")"
grep '^| [12] |' "$table" | awk -F'|' -v m="$mean" -v sd="$sd" -v lo="$lo" -v hi="$hi" '
  function off(a, b) { return a - b > 0.011 || b - a > 0.011 }
  { x[NR] = $6 } END { d = x[1] - x[2]; l = x[1] < x[2] ? x[1] : x[2]; h = x[1] < x[2] ? x[2] : x[1]
                       exit off(m, (x[1] + x[2]) / 2) || off(sd, sqrt(d * d / 2)) || off(lo, l) || off(hi, h) }' ||
  fail "the test summary '$summary' is not the mean ± sd (range) of the rows"
grep -q '^valid: BLEU .*(mean ± sd over 2 seeds, range)$' "$table" || fail "no validation summary line"
grep -q '^BLEU signature: nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:attnlab-' "$table" ||
  fail "no BLEU signature with case:lc"
grep -q '^chrF signature: nrefs:1|case:lc|eff:yes|nc:6|nw:0|space:no|' "$table" || fail "no chrF signature"

# A seed that train.max_steps ended before its minutes gets a "finished early" line; one the minutes ended, none.
for seed in 1 2; do
  trained=$(jq -rs 'map(select(.type == "train")) | last | .elapsed_s' "$work/out/seed-$seed/metrics.jsonl")
  steps=$(grep "^| $seed |" "$table" | cut -d'|' -f3 | tr -d ' ')
  line="finished early: seed $seed: train.max_steps ended it at step $steps after "
  if awk -v s="$trained" 'BEGIN { exit !(s < 0.95 * 6) }'; then
    grep -qF "$line" "$table" || fail "seed $seed trained ${trained}s of 6 and the table does not say it ended early"
  else
    ! grep -qF "finished early: seed $seed:" "$table" || fail "seed $seed trained ${trained}s of 6, not early"
  fi
done

# --score-only: the runs are scored again, on another checkpoint, without a step of training.
before=$(ls -l --time-style=+%s.%N "$work/out"/seed-*/checkpoints "$work/out"/seed-*/metrics.jsonl | md5sum)
speedrun --score-only --checkpoint latest "$work/tiny.yaml" 0.1 1 2 > "$work/stdout2.txt" 2> "$work/stderr2.txt" ||
  { cat "$work/stderr2.txt"; fail "speedrun.sh --score-only exited non-zero"; }
[ "$before" = "$(ls -l --time-style=+%s.%N "$work/out"/seed-*/checkpoints "$work/out"/seed-*/metrics.jsonl | md5sum)" ] ||
  fail "--score-only changed the runs"
grep -q '^| 1 | .* | .* |$' "$work/stdout2.txt" && grep -q '^| 2 |' "$work/stdout2.txt" ||
  fail "--score-only printed no row per seed: $(cat "$work/stdout2.txt")"
grep -q 'scored with --score-only' "$work/stdout2.txt" || fail "--score-only does not say the runs were trained earlier"
! grep -q '== seed' "$work/stderr2.txt" || fail "--score-only trained: $(cat "$work/stderr2.txt")"
# Scored as 10-minute runs, both seeds (a few seconds of training each) ended early, and the table says by how much.
speedrun --score-only "$work/tiny.yaml" 10 1 2 > "$work/stdout3.txt" 2>&1 || fail "--score-only 10 exited non-zero"
for seed in 1 2; do
  grep -qE "^finished early: seed $seed: train.max_steps ended it at step [0-9]+ after 0\.[0-9] of its 10 minutes; \
raise it \(--set train.max_steps=N\) to train for the whole budget$" "$work/stdout3.txt" ||
    fail "scored as 10 minutes, seed $seed has no 'finished early' line: $(cat "$work/stdout3.txt")"
done
# A run that stopped before both its minutes and its max_steps (as Ctrl-C stops one) is named as stopped.
cp -r "$work/out/seed-1" "$work/out/seed-9"
sed -i 's/^\( *max_steps:\) *60/\1 1000/' "$work/out/seed-9/config.yaml"
speedrun --score-only "$work/tiny.yaml" 10 9 > "$work/stdout4.txt" 2>&1 || fail "--score-only seed 9 exited non-zero"
grep -qE "^finished early: seed 9: it stopped at step 60 after 0\.[0-9] of its 10 minutes, before train.max_steps \
\(1000\): interrupted\?$" "$work/stdout4.txt" || fail "a stopped run is not named as stopped: $(cat "$work/stdout4.txt")"

# --beam 5: scored with beam 5, not the run's decode.beam (1 here, the default), and the title says so.
# attnlab behind a wrapper that writes down its command lines: on a model this small beam 5 may score as greedy does,
# so the scores alone could not show that --beam reached eval.
printf '#!/usr/bin/env bash\necho "$*" >> "%s"\nexec "%s" "$@"\n' "$work/calls.txt" "$attnlab" > "$work/logged-attnlab"
chmod +x "$work/logged-attnlab"
"$source_dir/tools/speedrun.sh" --attnlab "$work/logged-attnlab" --out "$work/out" --score-only --beam 5 \
  "$work/tiny.yaml" 0.1 1 > "$work/stdout5.txt" 2>&1 || fail "--score-only --beam 5 exited non-zero"
grep -q -- "^--log-level warn eval .*--beam 5 --json$" "$work/calls.txt" ||
  fail "speedrun.sh --beam 5 did not pass --beam 5 to eval: $(cat "$work/calls.txt")"
grep -q "^# speedrun: $work/tiny.yaml, 0.1 minutes a seed, checkpoint best, beam 5, α 0.6$" "$work/stdout5.txt" ||
  fail "the title does not name the beam and its length penalty: $(head -n 1 "$work/stdout5.txt")"
beam5=$("$attnlab" --log-level warn eval --run "$work/out/seed-1" --split test --beam 5 --json --out "$work/h.txt")
beam5_column=$(grep '^| 1 |' "$work/stdout5.txt" | cut -d'|' -f4 | tr -d ' ')
[ "$beam5_column" = "$(printf '%.2f' "$(jq -r .bleu <<< "$beam5")")" ] ||
  fail "--beam 5's test BLEU is not eval --beam 5's $(jq -r .bleu <<< "$beam5"): $(grep '^| 1 |' "$work/stdout5.txt")"

# Bad arguments: one line naming what is wrong, exit 2, and nothing trained.
refuse() { # expected-message args...
  local expected="$1"; shift
  local status=0; speedrun "$@" > "$work/bad.txt" 2>&1 || status=$?
  [ "$status" = 2 ] || fail "speedrun.sh $* exited $status, expected 2: $(cat "$work/bad.txt")"
  grep -qF -- "$expected" "$work/bad.txt" || fail "speedrun.sh $*: expected '$expected' in: $(cat "$work/bad.txt")"
}
refuse "MINUTES: expected a number > 0, got 'soon'" "$work/tiny.yaml" soon 1
refuse "SEED: expected a whole number, got 'x'" "$work/tiny.yaml" 0.1 x
refuse "no config file '$work/none.yaml'" "$work/none.yaml" 0.1 1
refuse "--score-only: no trained run in '$work/out/seed-7'" --score-only "$work/tiny.yaml" 0.1 7
refuse "--checkpoint: expected best, latest or average, got 'first'" --checkpoint first "$work/tiny.yaml" 0.1 1
refuse "unknown option '--seeds'" --seeds 3 "$work/tiny.yaml" 0.1 1
refuse "--beam needs a beam size, a whole number ≥ 1" --beam 0 "$work/tiny.yaml" 0.1 1
# Seeds whose runs decode differently (another length penalty in one's config.yaml) cannot share a row.
cp -r "$work/out/seed-1" "$work/out/seed-8"
sed -i 's/^\( *length_penalty:\) *[0-9.]*/\1 2/; s/^\( *no_repeat_ngram:\) *[0-9]*/\1 3/' "$work/out/seed-8/config.yaml"
refuse "the seeds decode differently (seed 1: beam 5, α 0.6; seed 8: beam 5, α 2, no repeated 3-grams)" \
  --score-only --beam 5 "$work/tiny.yaml" 0.1 1 8
echo "speedrun.sh: 2 seeds trained and scored, re-scored with --score-only and --beam 5, 8 bad arguments refused"
