#!/usr/bin/env bash
# bench.sh — attnlab against PyTorch on the benchmark's two models, with their targets (tools/bench_report.py).
#
#   tools/bench.sh [--arch native|x86-64-v3|x86-64-v2|x86-64-v4] [--steps N] [--rounds N] [--threads "1 2"]
#                  [--decode-sentences N] [--configs "base small"] [--record]
#
# --arch builds attnlab for that instruction set (CMakeLists.txt, ATTNLAB_ARCH; default native, build/release;
# x86-64-v3 is the release-v3 preset, build/release-v3; others build/release-ARCH), so an AVX-512 machine measures
# the AVX2 code a learner's laptop runs. Builds attnlab if needed, then for each model (configs/bench/base.yaml, configs/bench/small.yaml) runs
# `attnlab bench --json` and tools/bench_torch.py --json alternately, --rounds times each (default 3), so that a
# burst of load on a shared machine hits both sides alike. attnlab runs once per --threads count and the run with
# the fastest step counts for the round; bench_torch.py does the same inside (1 and 2 threads). Prints a table of
# the medians over the rounds and each target with PASS/FAIL (tools/bench_report.py):
#   base step ≤ 0.46 × PyTorch's, small step ≤ 0.44 ×, greedy decoding ≥ 5 × PyTorch's sentences/s,
#   peak RSS ≤ 0.5 × PyTorch's, base model at ≥ 50 % of the measured GEMM peak, batched greedy decoding ≥ 4 ×
#   one sentence at a time (base); for x86-64-v3 the steps ≤ 0.5 × (base) and ≤ 0.45 × (small). Each product backend's
#   GFLOP/s at the model's shapes beside torch.mm's at the same products (PyTorch's OpenBLAS, its kernel named):
#   the model's backend (model.gemm: auto) ≥ 90 %, the packed GEMM ≥ 70 % (base).
# The guard: docs/results/bench_reference.json holds a row per (CPU, width, model) — the step time and the noise
# of the run that recorded it (--record writes this run's rows there). When this CPU and width have rows, a step
# worse than its row by more than the noise measured makes bench.sh print REGRESSION and exit 1.
# When another width's row for this CPU has a faster step than this run, beyond the noise, the report names that
# build as the one to use here ("another build is faster here").
# Every run's JSON line is kept in build/bench/results-ARCH.jsonl.
#
# PyTorch is optional: without it (Debian: apt-get install python3-torch libopenblas0-pthread) only attnlab's
# figures are printed, with the line to install it. bench.sh is a measurement, not a test: it exits 0 whatever
# the targets' verdicts (non-zero when something fails to build or run, or the guard finds a regression).
set -euo pipefail
cd "$(dirname "$0")/.."

steps=10 rounds=3 threads="1 2" decode=100 configs="base small" arch=native record=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=$2; shift 2 ;;
    --record) record=--record; shift ;;
    --steps) steps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --decode-sentences) decode=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown option '$1' (see tools/bench.sh --help)" >&2; exit 2 ;;
  esac
done

python=/usr/bin/python3
# OpenBLAS (PyTorch's, and attnlab's model.gemm: blas) picks its kernel at run time for the CPU it finds, so on an
# AVX-512 machine it would run AVX-512 code beside attnlab's AVX2 build. For a width other than native, both sides
# are told the kernel of that width's CPUs (OPENBLAS_CORETYPE), so the run is the learner's machine on both sides.
case "$arch" in
  native) build=build/release; configure=(--preset release); coretype="" ;;
  x86-64-v3) build=build/release-v3; configure=(--preset release-v3); coretype=Haswell ;;
  x86-64-v2) build=build/release-$arch; configure=(--preset release -B "$build" -DATTNLAB_ARCH="$arch"); coretype=Nehalem ;;
  x86-64-v4) build=build/release-$arch; configure=(--preset release -B "$build" -DATTNLAB_ARCH="$arch"); coretype=SkylakeX ;;
  *) echo "bench.sh: --arch '$arch' is not one of native, x86-64-v4, x86-64-v3, x86-64-v2" >&2; exit 2 ;;
esac
attnlab=$build/attnlab
if [ ! -x "$attnlab" ]; then
  cmake "${configure[@]}" >/dev/null
  cmake --build "$build" --target attnlab_cli
fi
# The CPU, as the reference rows name it: its model name, family and model numbers (lscpu).
cpu=$(lscpu | "$python" -c '
import sys
fields = dict((k.strip(), v.strip()) for k, v in (l.split(":", 1) for l in sys.stdin if ":" in l))
name, family, model, cpus = (fields.get(k, "?") for k in ("Model name", "CPU family", "Model", "CPU(s)"))
print(f"{name} (family {family}, model {model}, {cpus} CPUs)")')
have_torch=1
if ! "$python" -c "import torch, yaml" 2>/dev/null; then
  have_torch=0
  echo "bench.sh: PyTorch is not installed, so only attnlab's figures are shown. To compare, install it:" >&2
  echo "    apt-get install python3-torch libopenblas0-pthread" >&2
fi

mkdir -p build/bench
results=build/bench/results-$arch.jsonl
: > "$results"
for config in $configs; do
  file=configs/bench/$config.yaml
  for round in $(seq 1 "$rounds"); do
    echo "bench.sh: $config, round $round of $rounds ($arch build)" >&2
    best=""
    for t in $threads; do
      line=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ${coretype:+OPENBLAS_CORETYPE=$coretype} \
             "$attnlab" --log-level warn bench --config "$file" --steps "$steps" --threads "$t" \
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
      # yardstick runs without both (but with the width's kernel, above); bench_torch.py reports the kernel it ran
      # ("blas_core").
      line=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ${coretype:+OPENBLAS_CORETYPE=$coretype} \
             "$python" tools/bench_torch.py --config "$file" \
             --steps "$steps" --threads "${threads// /,}" --decode-sentences "$decode" --json)
      echo "{\"model\": \"$config\", \"round\": $round, \"result\": $line}" >> "$results"
    fi
  done
done
"$python" tools/bench_report.py "$results" --arch "$arch" --cpu "$cpu" --reference docs/results/bench_reference.json $record
