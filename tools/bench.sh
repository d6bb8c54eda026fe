#!/usr/bin/env bash
# bench.sh — attnlab against PyTorch on the benchmark's two models, with their targets (tools/bench_report.py).
#
#   tools/bench.sh [--steps N] [--rounds N] [--threads "1 2"] [--decode-sentences N] [--configs "base small"]
#
# Builds attnlab (release) if needed, then for each model (configs/bench/base.yaml, configs/bench/small.yaml) runs
# `attnlab bench --json` and tools/bench_torch.py --json alternately, --rounds times each (default 3), so that a
# burst of load on a shared machine hits both sides alike. attnlab runs once per --threads count and the run with
# the fastest step counts for the round; bench_torch.py does the same inside (1 and 2 threads). Prints a table of
# the medians over the rounds and each target with PASS/FAIL (tools/bench_report.py):
#   base step ≤ 0.46 × PyTorch's, small step ≤ 0.44 ×, greedy decoding ≥ 5 × PyTorch's sentences/s,
#   peak RSS ≤ 0.5 × PyTorch's, base model at ≥ 50 % of the measured GEMM peak, batched greedy decoding ≥ 4 ×
#   one sentence at a time (base).
# Every run's JSON line is kept in build/bench/results.jsonl.
#
# PyTorch is optional: without it (Debian: apt-get install python3-torch libopenblas0-pthread) only attnlab's
# figures are printed, with the line to install it. bench.sh is a measurement, not a test: it exits 0 whatever
# the verdicts (non-zero only when something fails to build or run).
set -euo pipefail
cd "$(dirname "$0")/.."

steps=10 rounds=3 threads="1 2" decode=100 configs="base small"
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --decode-sentences) decode=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (see tools/bench.sh --help)" >&2; exit 2 ;;
  esac
done

python=/usr/bin/python3
attnlab=build/release/attnlab
if [ ! -x "$attnlab" ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target attnlab_cli
fi
have_torch=1
if ! "$python" -c "import torch, yaml" 2>/dev/null; then
  have_torch=0
  echo "bench.sh: PyTorch is not installed, so only attnlab's figures are shown. To compare, install it:" >&2
  echo "    apt-get install python3-torch libopenblas0-pthread" >&2
fi

mkdir -p build/bench
results=build/bench/results.jsonl
: > "$results"
for config in $configs; do
  file=configs/bench/$config.yaml
  for round in $(seq 1 "$rounds"); do
    echo "bench.sh: $config, round $round of $rounds" >&2
    best=""
    for t in $threads; do
      line=$("$attnlab" --log-level warn bench --config "$file" --steps "$steps" --threads "$t" \
             --decode-sentences "$decode" --json)
      best=$(printf '%s\n%s\n' "$best" "$line" | "$python" -c '
import json, sys
runs = [json.loads(l) for l in sys.stdin if l.strip()]
print(json.dumps(min(runs, key=lambda r: r["step_ms"])))')
    done
    echo "{\"model\": \"$config\", \"round\": $round, \"result\": $best}" >> "$results"
    if [ "$have_torch" = 1 ]; then
      # Some machines set OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) to make old OpenBLAS builds safe on new CPUs; it
      # forces an older kernel (on an AVX-512 EPYC: Haswell's AVX2 instead of Cooperlake's, half PyTorch's GEMM
      # speed). Debian 12's OpenBLAS picks the right one by itself and gives correct products without it, so the
      # yardstick runs without both; bench_torch.py reports the kernel it ran ("blas_core").
      line=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$python" tools/bench_torch.py --config "$file" \
             --steps "$steps" --threads "${threads// /,}" --decode-sentences "$decode" --json)
      echo "{\"model\": \"$config\", \"round\": $round, \"result\": $line}" >> "$results"
    fi
  done
done
"$python" tools/bench_report.py "$results"
