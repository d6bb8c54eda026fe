#!/usr/bin/env bash
# run_target.sh — one fuzz target for a bounded number of executions, as a ctest test.
#
#   run_target.sh BINARY SEED_DIR RUNS WORK_DIR
#
# Runs BINARY (a libFuzzer target of the fuzz preset) on the seeds in SEED_DIR for RUNS executions (or 30 s)
# with a fixed random seed; new inputs and any crash file go to WORK_DIR, never into the seed folder of the repository.
# Exits 77 (ctest's skip) with one line saying why when the target has not been built (no clang, or the fuzz
# preset not built); non-zero when libFuzzer finds a crash, a leak, a timeout or runs out of memory.
set -uo pipefail
binary=$1 seeds=$2 runs=$3 work=$4
. "$(dirname "$0")/options.sh"   # max_len_option: the per-target -max_len, with the reasons
name=$(basename "$binary"); name=${name#fuzz_}

if [ ! -x "$binary" ]; then
  if ! command -v clang++ >/dev/null 2>&1; then
    echo "skipped: clang is not installed (tools/install-deps.sh installs clang and libclang-rt-14-dev)"
  else
    echo "skipped: $binary is not built (cmake --preset fuzz && cmake --build --preset fuzz; tools/test.sh does it)"
  fi
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
scratch=$( [ -d /dev/shm ] && mktemp -d /dev/shm/attnlab-fuzz.XXXXXX || mktemp -d )   # the target's files (fuzz_support.h)
trap 'rm -rf "$scratch"' EXIT
TMPDIR=$scratch "$binary" -runs="$runs" $(max_len_option "$name") -seed=1 -timeout=20 -rss_limit_mb=2048 -max_total_time=30 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$work/log" 2>&1
status=$?
tail -n 3 "$work/log"
if [ $status -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
  echo "fuzz target $(basename "$binary") failed (exit $status); the log: $work/log"
  grep -m 20 -E "ERROR|SUMMARY|internal error|Assertion|terminate|==[0-9]+==" "$work/log"
  exit 1
fi
grep -E "^Done [0-9]+ runs" "$work/log" || { echo "no 'Done N runs' line in $work/log"; exit 1; }
