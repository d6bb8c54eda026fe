#!/usr/bin/env bash
# fuzz_script_test.sh — tools/fuzz.sh refuses bad options with one line naming the value, --help prints the usage,
# and `--jobs 2` runs two libFuzzer processes on one corpus folder, sums their executions and reports it clean.
#   tests/fuzz/fuzz_script_test.sh SOURCE_DIR
# The second part needs the fuzz preset built (tools/test.sh builds it); without it the test skips (77) after
# the option checks.
set -uo pipefail
source_dir=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

# Bad options: exit 2 and the value named, before anything is built or run.
refused() {   # refused EXPECTED_TEXT ARGS…
  local expected=$1; shift
  local out status
  out=$(bash "$source_dir/tools/fuzz.sh" "$@" 2>&1); status=$?
  [ $status -eq 2 ] || fail "fuzz.sh $* exited $status, not 2: $out"
  grep -qF -- "$expected" <<<"$out" || fail "fuzz.sh $* said '$out', without '$expected'"
}
refused "--jobs takes a whole number from 1, not '0'" --jobs 0
refused "--jobs takes a whole number from 1, not 'two'" --jobs two
refused "--jobs 65 is more than 64" --jobs 65
refused "--runs takes a whole number, not '1e6'" --runs 1e6
refused "no target 'nosuch'" --target nosuch
refused "unknown option '--job'" --job 2
echo "bad options: refused"

# --help prints the opening comment, every option in it, and none of the code below it.
help=$(bash "$source_dir/tools/fuzz.sh" --help) || fail "fuzz.sh --help failed"
for option in "--runs N" "--target NAME" "--jobs J" "wall-clock"; do
  grep -qF -- "$option" <<<"$help" || fail "fuzz.sh --help does not mention '$option'"
done
! grep -q "set -euo" <<<"$help" || fail "fuzz.sh --help prints code: $help"
echo "--help: the usage and nothing else"

[ -x "$source_dir/build/fuzz/tests/fuzz/fuzz_corpus" ] ||
  { echo "skipped: build/fuzz is not built (cmake --preset fuzz && cmake --build --preset fuzz)"; exit 77; }
out=$(bash "$source_dir/tools/fuzz.sh" --runs 400 --jobs 2 --target corpus 2>&1) || fail "fuzz.sh --jobs 2 failed: $out"
line=$(grep -E '^corpus +[0-9]+ +[0-9]+ +clean$' <<<"$out") || fail "no clean result line for corpus in: $out"
executions=$(awk '{print $2}' <<<"$line")
[ "$executions" -ge 400 ] || fail "2 jobs of 200 runs each report $executions executions, fewer than 400"
work=$source_dir/build/fuzz/fuzz-runs/corpus
for job in 1 2; do
  grep -q '^stat::number_of_executed_units' "$work/log.$job" || fail "$work/log.$job has no final stats"
done
echo "--jobs 2: $executions executions over two processes, clean"
