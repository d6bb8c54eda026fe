#!/usr/bin/env bash
# speedrun_record_test.sh — the speedrun board (tools/speedrun.sh --record, tools/speedrun_record.py): the Student-t
# tail and Welch's test give known values; a tiny config trained with 3 seeds makes the board's first row (its
# numbers, signature, machine, commit and the copy of its table are the run's), the same runs scored again make a
# second row compared with the first (equal means: t 0, p 0.5, not a record); made-up summaries walk the rules
# (a record by p < 0.01, not one by p, by minutes, by seeds, by the target; a beam named beside the checkpoint);
# bad input gets one clear message.
# Skips (77) without jq or python3.
#   tests/tools/speedrun_record_test.sh ATTNLAB SOURCE_DIR WORK_DIR
set -euo pipefail
attnlab="$1"; source_dir="$2"; work="$3"
command -v python3 >/dev/null || { echo "python3 is not installed: skipping"; exit 77; }
source "$source_dir/tests/cli/tiny_corpus.sh" "$work"   # jq or skip, an empty $work, fail(), $work/tiny.en|fr
tool="$source_dir/tools/speedrun_record.py"

# 1. The t distribution against printed tables and closed forms, and Welch's t and ν worked by hand.
python3 "$tool" --self-test > /dev/null || fail "speedrun_record.py --self-test failed"
[ "$(python3 "$tool" ttest 2 1.224744871 3 0 1.224744871 3)" = "t 2.0000  df 4.0000  p 0.058058  (one-sided: new mean > old)" ] ||
  fail "t = 2 with 4 degrees of freedom is not p 0.0581: $(python3 "$tool" ttest 2 1.224744871 3 0 1.224744871 3)"
# new 10 ± 2 (n 5), old 8 ± 1 (n 4): t = 2 / √(4/5 + 1/4) = 1.9518, ν = 1.05² / (0.8²/4 + 0.25²/3) = 6.0968
python3 "$tool" ttest 10 2 5 8 1 4 | grep -q '^t 1.9518  df 6.0968  p 0.04' ||
  fail "Welch's t and ν are not the hand-worked 1.9518 and 6.0968: $(python3 "$tool" ttest 10 2 5 8 1 4)"
[ "$(python3 "$tool" ttest 8 1 4 10 2 5 | sed 's/.*p \([0-9.]*\).*/\1/')" \
  = "$(python3 -c "print(f'{1 - $(python3 "$tool" ttest 10 2 5 8 1 4 | sed 's/.*p \([0-9.]*\).*/\1/'):.6f}')")" ] ||
  fail "the test is not one-sided: swapping the rows does not give 1 − p"

# 2. A real board: 3 seeds of a tiny model (40 steps), then the same runs scored again.
echo "{data: {train_src: $work/tiny.en, train_tgt: $work/tiny.fr, valid_src: $work/tiny.en, valid_tgt: $work/tiny.fr,
  test_src: $work/tiny.en, test_tgt: $work/tiny.fr, lowercase: true}, model: {d_model: 16, heads: 2, d_ff: 32,
  encoder_layers: 1, decoder_layers: 1}}" > "$work/tiny.yaml"
train=(threads=1 batch_tokens=100 max_steps=40 schedule=cosine lr=0.01 warmup_steps=10 valid_every=10 valid_samples=4
       checkpoint_every=10 keep_last=3 average_last=2)
sets=(); for key_value in "${train[@]}"; do sets+=(--set "train.$key_value"); done
board="$work/board/speedrun.md"
mkdir -p "$work/board"
speedrun() { "$source_dir/tools/speedrun.sh" --attnlab "$attnlab" --out "$work/out" "$@"; }
speedrun --checkpoint average "${sets[@]}" --record "$board" --target 1 "$work/tiny.yaml" 0.1 1 2 3 \
  > "$work/first.txt" 2>&1 ||
  { cat "$work/first.txt"; fail "speedrun.sh --record exited non-zero"; }
grep -q '^# The speedrun board' "$board" && grep -q '^- \*\*Record\*\*: ' "$board" && grep -q "Welch's t-test, one-sided" "$board" ||
  fail "the new board has no head with the rules: $(head -n 5 "$board")"
cell() { # row-number column-number: a cell of the board's rows (1-based), '\|' kept as '|'
  grep '^| [0-9]' "$board" | sed -n "$1p" | sed 's/\\|/¦/g' | awk -F'|' -v c="$(($2 + 1))" '{ gsub(/^ +| +$/, "", $c); print $c }' |
    sed 's/¦/|/g'; }
summary="$work/out/speedrun.md"
[ "$(cell 1 2)" = "$work/tiny.yaml" ] && [ "$(cell 1 3)" = 0.1 ] && [ "$(cell 1 4)" = "average, beam 1" ] && [ "$(cell 1 5)" = "≥ 1.00" ] ||
  fail "row 1 does not give the config, minutes, checkpoint with decoding, and target: $(grep '^| [0-9]' "$board")"
mean_sd=$(sed -n 's/^test: BLEU \([0-9.]* ± [0-9.]*\) .*/\1/p' "$summary")
[ "$(cell 1 6)" = "$mean_sd (3)" ] || fail "row 1's BLEU '$(cell 1 6)' is not the summary's '$mean_sd' over 3 seeds"
seeds=$(grep '^| [123] |' "$summary" | awk -F'|' '{ gsub(/ /, ""); printf "%s%s: %s", (NR > 1 ? ", " : ""), $2, $4 }')
[ "$(cell 1 7)" = "$seeds" ] || fail "row 1's seeds '$(cell 1 7)' are not the table's '$seeds'"
[ "$(cell 1 8)" = "$(sed -n 's/^BLEU signature: //p' "$summary")" ] || fail "row 1's signature is '$(cell 1 8)'"
[[ "$(cell 1 9)" == *"$("$attnlab" --version)"*"train.threads 1" ]] || fail "row 1's machine '$(cell 1 9)' lacks the version or threads"
[[ "$(cell 1 10)" == "$(git -C "$source_dir" rev-parse --short HEAD)"* ]] || fail "row 1's commit is '$(cell 1 10)'"
[ "$(cell 1 13)" = record ] || fail "the first row to reach the target with 3 seeds is not a record: '$(cell 1 13)'"
link=$(cell 1 14 | sed 's/.*](\(.*\))$/\1/')
cmp -s "$work/board/$link" "$summary" || fail "row 1's link '$link' is not a copy of the run's speedrun.md"

speedrun --score-only --checkpoint average --record "$board" --target 1 "$work/tiny.yaml" 0.1 1 2 3 > "$work/second.txt" 2>&1 ||
  { cat "$work/second.txt"; fail "speedrun.sh --score-only --record exited non-zero"; }
[ "$(cell 2 11)" = "$(basename "$link" .md)" ] || fail "row 2 is not compared with row 1: '$(cell 2 11)'"
[ "$(cell 2 12)" = "t 0.00, ν 4.0, p 0.5" ] || fail "the same runs again are not t 0, p 0.5: '$(cell 2 12)'"
[ "$(cell 2 13)" = "not a record: p 0.5 ≥ 0.01 against the record" ] || fail "row 2's verdict is '$(cell 2 13)'"
[ "$(cell 2 14 | sed 's/.*](\(.*\))$/\1/')" = "${link%.md}-2.md" ] || fail "row 2's table did not get its own name"

# 3. The rules, on made-up summaries of another config (what speedrun.sh writes, with chosen scores).
fake() { # name minutes mean sd seed-scores...
  local name="$1" minutes="$2" mean="$3" sd="$4"; shift 4
  { echo "# speedrun: fake.yaml, $minutes minutes a seed, checkpoint best"; echo
    echo "made by: tools/speedrun.sh fake.yaml on 2026-11-29 10:00, AMD EPYC, 2 cores"; echo
    echo "| seed | steps | test BLEU | test chrF |"; echo "|---|---|---|---|"
    local s=1; for score in "$@"; do echo "| $s | 100 | $score | 50.00 |"; s=$((s + 1)); done; echo
    echo "test: BLEU $mean ± $sd ($1 … $1), chrF 50.00 ± 0.00 (50.00 … 50.00)  (mean ± sd over $# seeds, range)"; echo
    echo "BLEU signature: nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:attnlab-0.1.0"
    echo "machine: a made-up machine"; echo "commit: 0000000"; } > "$work/$name.md"
  "$source_dir/tools/speedrun.sh" --from-summary "$work/$name.md" --record "$board" --target 30 > "$work/$name.out" 2>&1 ||
    { cat "$work/$name.out"; fail "--from-summary $name exited non-zero"; }
}
fake below 30 29.00 0.10 28.9 29.0 29.1          # row 3: its table is linked as speedrun/2026-11-29-fake.md
fake first 30 30.00 0.10 29.9 30.0 30.1          # row 4: 2026-11-29-fake-2, and so on
fake better 30 31.00 0.10 30.9 31.0 31.1         # row 5
fake barely 30 31.05 0.10 30.95 31.05 31.15      # row 6
fake slower 40 35.00 0.10 34.9 35.0 35.1         # row 7
fake two 20 40.00 0.10 39.9 40.1                 # row 8
[ "$(cell 3 13)" = "not a record: mean 29.00 < target 30.00" ] || fail "row 3 (below the target): '$(cell 3 13)'"
[ "$(cell 4 11)" = 2026-11-29-fake ] && [ "$(cell 4 13)" = record ] || fail "row 4 (first to reach the target): '$(cell 4 13)'"
[ "$(cell 5 11)" = 2026-11-29-fake-2 ] && [ "$(cell 5 12)" = "t 12.25, ν 4.0, p 0.00013" ] && [ "$(cell 5 13)" = record ] ||
  fail "row 5 (+1.0 BLEU, p 0.00013) is not a record against row 4: $(cell 5 11) / $(cell 5 12) / $(cell 5 13)"
[ "$(cell 6 11)" = 2026-11-29-fake-3 ] && [ "$(cell 6 13)" = "not a record: p 0.29 ≥ 0.01 against the record" ] ||
  fail "row 6 (+0.05 BLEU) is a record, or not compared with row 5: $(cell 6 11) / $(cell 6 13)"
[ "$(cell 7 13)" = "not a record: 40 minutes > the record's 30" ] || fail "row 7 (more minutes): '$(cell 7 13)'"
[ "$(cell 8 13)" = "not a record: 2 seeds (a record needs 3)" ] || fail "row 8 (2 seeds): '$(cell 8 13)'"
[ "$(grep -c '^| [0-9]' "$board")" = 8 ] || fail "the board does not have 8 rows"
# A speedrun scored with another beam (speedrun.sh --beam 1) names it beside its checkpoint.
sed 's/checkpoint best$/checkpoint average, beam 1/' "$work/below.md" > "$work/greedy.md"
"$source_dir/tools/speedrun.sh" --from-summary "$work/greedy.md" --record "$board" --target 30 \
  > "$work/greedy.out" 2>&1 ||
  { cat "$work/greedy.out"; fail "--from-summary greedy exited non-zero"; }
[ "$(cell 9 4)" = "average, beam 1" ] || fail "row 9 (scored with beam 1) does not say so: '$(cell 9 4)'"
# The decoding as speedrun.sh names it since 2026-12-01: beam, α, and repeated n-grams when they are banned.
sed 's/checkpoint best$/checkpoint average, beam 4, α 2, no repeated 3-grams/' "$work/below.md" > "$work/beam4.md"
"$source_dir/tools/speedrun.sh" --from-summary "$work/beam4.md" --record "$board" --target 30 \
  > "$work/beam4.out" 2>&1 ||
  { cat "$work/beam4.out"; fail "--from-summary beam4 exited non-zero"; }
[ "$(cell 10 4)" = "average, beam 4, α 2, no repeated 3-grams" ] || fail "row 10's decoding: '$(cell 10 4)'"

# 4. Bad input: one line naming what is wrong, exit 2, and the board untouched.
before=$(md5sum < "$board")
refuse() { # expected-message command...
  local expected="$1"; shift
  local status=0; "$@" > "$work/bad.txt" 2>&1 || status=$?
  [ "$status" = 2 ] || fail "$* exited $status, expected 2: $(cat "$work/bad.txt")"
  grep -qF -- "$expected" "$work/bad.txt" || fail "$*: expected '$expected' in: $(cat "$work/bad.txt")"
  [ "$(wc -l < "$work/bad.txt")" = 1 ] || fail "$*: more than one line: $(cat "$work/bad.txt")"
}
refuse "--record: no folder '$work/none' for the board '$work/none/b.md'" speedrun --record "$work/none/b.md" "$work/tiny.yaml" 0.1 1
refuse "a t-test needs at least 2 seeds on each side, got 1 (new) and 3 (old)" python3 "$tool" ttest 30 0.1 1 29 0.1 3
refuse "--from-summary: no file '$work/none.md'" speedrun --from-summary "$work/none.md"
grep -v '^test: BLEU' "$work/first.md" > "$work/broken.md"
refuse "$work/broken.md: no 'test: BLEU mean ± sd' line" speedrun --from-summary "$work/broken.md" --record "$board"
grep -v '^machine:' "$work/first.md" > "$work/old.md"
refuse "$work/old.md has no 'machine:' line" speedrun --from-summary "$work/old.md" --record "$board"
echo "no header" > "$work/board/other.md"
refuse "'$work/board/other.md' is not a speedrun board" speedrun --from-summary "$work/first.md" --record "$work/board/other.md"
refuse "--machine and --commit are for --from-summary" speedrun --machine x "$work/tiny.yaml" 0.1 1
[ "$before" = "$(md5sum < "$board")" ] || fail "bad input changed the board"
echo "speedrun board: t tail and Welch checked, 2 real rows and 8 made-up rows by the rules, 7 bad inputs refused"
