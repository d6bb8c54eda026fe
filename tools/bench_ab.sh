#!/usr/bin/env bash
# bench_ab.sh — two builds of attnlab against each other on the training step, same machine, same run: the way to
# see whether a change to a kernel made the step faster, and by how much, on a machine whose speed drifts.
#
#   tools/bench_ab.sh [--rounds N] [--steps N] [--threads N] [--configs "base small"] [--set KEY=VALUE]... A B
#     A, B        two attnlab programs (e.g. a build of main, copied aside, and build/release/attnlab)
#     --rounds N  rounds (default 5); in each, every model runs once with A and once with B, the order swapped
#                 every other round, so a slow phase of the machine falls on both alike
#     --set       passed to every run (e.g. --set model.precision=bfloat16)
#
# Each run is `attnlab bench --config configs/bench/MODEL.yaml --json --steps N --threads N --decode-sentences 0`.
# Prints per model the median step of A and of B, B ÷ A of the medians, the median of the rounds' own ratios (the
# figure a drift between rounds moves least), and in how many rounds B was the faster; then the two programs'
# `--version` and the load average before and after. A measurement, not a test: exits 0 whatever the ratios
# (non-zero when a run fails).
set -euo pipefail

usage() { sed -n '2,/^# (non-zero/p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "bench_ab.sh: $*" >&2; exit 2; }
rounds=5 steps=10 threads=0 configs="base small" sets=() programs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds|--steps|--threads) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || die "$1 needs a whole number"
                                declare "${1#--}=$2"; shift 2 ;;
    --configs) [ $# -ge 2 ] || die "--configs needs model names"; configs=$2; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; sets+=(--set "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see tools/bench_ab.sh --help)" ;;
    *) programs+=("$1"); shift ;;
  esac
done
[ ${#programs[@]} = 2 ] || die "give two attnlab programs, A and B (see --help)"
[ "$rounds" -ge 1 ] || die "--rounds must be at least 1"
for i in 0 1; do                                               # as absolute paths: the runs start in the tree
  [ -f "${programs[$i]}" ] && [ -x "${programs[$i]}" ] || die "'${programs[$i]}' is not a program that runs here"
  programs[$i]=$(readlink -f "${programs[$i]}")
done
cd "$(dirname "$0")/.."                                        # configs/bench/ is in the tree
for config in $configs; do [ -f "configs/bench/$config.yaml" ] || die "no model configs/bench/$config.yaml"; done

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  order=(0 1); [ $((round % 2)) = 0 ] && order=(1 0)             # A first in odd rounds, B first in even ones
  for config in $configs; do
    for which in "${order[@]}"; do
      json=$("${programs[$which]}" bench --config "configs/bench/$config.yaml" --json --steps "$steps" \
               --threads "$threads" --decode-sentences 0 "${sets[@]}") ||
        die "round $round, $config: '${programs[$which]} bench' failed"
      echo "$round $config $which $(python3 -c 'import json, sys; print(json.load(sys.stdin)["step_ms"])' <<< "$json")" \
        >> "$results"
    done
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "${programs[@]}" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]            # round, model, 0 (A) or 1 (B), step in ms
a, b = sys.argv[2:4]
print("\n| model | A step (ms) | B step (ms) | B ÷ A (medians) | B ÷ A (median of the rounds' ratios) | B faster in |")
print("|---|---|---|---|---|---|")
for model in dict.fromkeys(r[1] for r in rows):
    step = {(r[0], r[2]): float(r[3]) for r in rows if r[1] == model}   # (round, program) → step
    rounds = sorted({r for r, _ in step}, key=int)
    a_steps, b_steps = [step[(r, "0")] for r in rounds], [step[(r, "1")] for r in rounds]
    ratios = [y / x for x, y in zip(a_steps, b_steps)]
    faster = sum(y < x for x, y in zip(a_steps, b_steps))
    print(f"| {model} | {statistics.median(a_steps):.1f} | {statistics.median(b_steps):.1f} | "
          f"{statistics.median(b_steps) / statistics.median(a_steps):.3f} | {statistics.median(ratios):.3f} | "
          f"{faster} of {len(rounds)} rounds |")
EOF
for name in A B; do
  program=${programs[$([ $name = A ] && echo 0 || echo 1)]}
  echo "$name: $program ($("$program" --version))"
done
