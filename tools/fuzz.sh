#!/usr/bin/env bash
# fuzz.sh — build the fuzz preset and run every libFuzzer target of tests/fuzz, one after another.
#
#   tools/fuzz.sh                       every target, 10⁶ executions each
#   tools/fuzz.sh --runs N              N executions each
#   tools/fuzz.sh --target NAME         only that target (names: tests/fuzz/targets.cmake)
#   tools/fuzz.sh --jobs J              J processes per target, each running N/J of the executions on one shared
#                                       corpus folder (libFuzzer's parallel fuzzing: each picks up what the
#                                       others found); the default is 1. Use as many as there are idle cores.
#
# Each target starts from its seeds (tests/fuzz/corpus/<name>/) and from what earlier runs found
# (build/fuzz/fuzz-runs/<name>/corpus/); its log (log, or log.1 … log.J) and any crash, leak, timeout or
# out-of-memory input go to build/fuzz/fuzz-runs/<name>/. Prints per target the executions run (summed over the
# jobs), the seconds taken and clean or FOUND;
# exits non-zero when a target found anything. Replay a found input: build/fuzz/tests/fuzz/fuzz_<name> <file>.
# Per-target options (-max_len, with the reasons): tests/fuzz/options.sh. Run it on idle cores: libFuzzer's limit
# of 20 s an input is wall-clock time, and a process starved of the CPU reports inputs of 0.3 s as timeouts.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1000000
only=""
jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --target) only=${2:?--target needs a name}; shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;   # the comment block above
    *) echo "fuzz.sh: unknown option '$1' (use --runs N, --target NAME, --jobs J)" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*) echo "fuzz.sh: --runs takes a whole number, not '$runs'" >&2; exit 2 ;; esac
case "$jobs" in ''|*[!0-9]*|0) echo "fuzz.sh: --jobs takes a whole number from 1, not '$jobs'" >&2; exit 2 ;; esac
if [ "$jobs" -gt 64 ]; then echo "fuzz.sh: --jobs $jobs is more than 64; use at most one a core" >&2; exit 2; fi

. tests/fuzz/options.sh   # max_len_option: the per-target -max_len, with the reasons
targets=$(sed -n 's/^set(ATTNLAB_FUZZ_TARGETS \(.*\))$/\1/p' tests/fuzz/targets.cmake)
if [ -n "$only" ]; then
  case " $targets " in
    *" $only "*) targets=$only ;;
    *) echo "fuzz.sh: no target '$only' (targets: $targets)" >&2; exit 2 ;;
  esac
fi

tools/install-deps.sh   # clang and libclang-rt-14-dev (libFuzzer) among the rest
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"

found=0
scratch=$( [ -d /dev/shm ] && mktemp -d /dev/shm/attnlab-fuzz.XXXXXX || mktemp -d )   # the targets' files
pids=""
trap 'kill $pids 2>/dev/null || true; rm -rf "$scratch"' EXIT   # an interrupted run stops its jobs too
runs_per_job=$(( (runs + jobs - 1) / jobs ))
printf '%-12s %12s %9s  %s\n' target executions seconds result
for name in $targets; do
  work=build/fuzz/fuzz-runs/$name
  mkdir -p "$work/corpus"
  rm -rf "$work/artifacts" "$work"/log* && mkdir -p "$work/artifacts"
  logs=""
  pids=""
  for job in $(seq "$jobs"); do
    log=$work/log; [ "$jobs" -gt 1 ] && log=$work/log.$job
    logs="$logs $log"
    TMPDIR=$scratch "build/fuzz/tests/fuzz/fuzz_$name" -runs="$runs_per_job" $(max_len_option "$name") -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "tests/fuzz/corpus/$name" \
      >"$log" 2>&1 &
    pids="$pids $!"
  done
  echo "  ($name: $jobs process(es), $runs_per_job executions each; follow with: tail -f$logs)" >&2
  status=0
  for pid in $pids; do wait "$pid" || status=$?; done
  pids=""
  executions=0 seconds=0
  for log in $logs; do
    ran=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    executions=$(( executions + ${ran:-0} ))
    if [ -z "$took" ]; then seconds="?"                                 # a process that stopped on a finding
    elif [ "$seconds" != "?" ] && [ "$took" -gt "$seconds" ]; then seconds=$took; fi
  done
  if [ $status -eq 0 ] && [ -z "$(ls -A "$work/artifacts")" ]; then
    result=clean
  elif [ $status -eq 72 ] && [ -z "$(ls -A "$work/artifacts")" ]; then    # libFuzzer's exit code on SIGINT
    found=1
    result="interrupted: clean so far, short of the runs asked"
  else
    found=1
    result="FOUND (exit $status): $(ls "$work/artifacts" | tr '\n' ' ')— see$logs"
  fi
  printf '%-12s %12s %9s  %s\n' "$name" "$executions" "$seconds" "$result"
done
exit $found
