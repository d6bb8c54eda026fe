#!/usr/bin/env bash
# bf16_bench.sh — the training step in float32 against bfloat16 (model.precision), same build, same run.
#
#   tools/bf16_bench.sh [--rounds N] [--steps N] [--threads N] [--configs "base small"]
#
# For each round and each model (configs/bench/NAME.yaml), runs `attnlab bench --json` once with model.precision
# float32 and once with bfloat16, alternately (so a burst of load on a shared machine hits both alike), without
# the decoding figures. Prints per model the median step of each over the rounds, their ratio against issue #49's
# bars (base ≤ 0.65 × float32, small ≤ 0.75 ×), the bf16 product's GFLOP/s at the model's shapes beside the
# float32 packed GEMM's, and the load average before and after. A measurement, not a test: exits 0 whatever the
# ratios (non-zero when a run fails, or on a CPU without AVX512_BF16, which bench would refuse).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 steps=10 threads=0 configs="base small"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bf16_bench.sh: unknown option '$1' (see tools/bf16_bench.sh --help)" >&2; exit 2 ;;
  esac
done
attnlab=build/release/attnlab
[ -x "$attnlab" ] || { echo "bf16_bench.sh: build $attnlab first (cmake --build build/release --target attnlab_cli)" >&2; exit 1; }
results=$(mktemp)
trap 'rm -f "$results"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for config in $configs; do
    for precision in float32 bfloat16; do
      "$attnlab" bench --config "configs/bench/$config.yaml" --json --steps "$steps" --threads "$threads" \
        --decode-sentences 0 --set "model.precision=$precision" |
        python3 -c 'import json, sys; r = json.load(sys.stdin); r["model"], r["precision"] = sys.argv[1:]; print(json.dumps(r))' \
          "$config" "$precision" >> "$results"
    done
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
bars = {"base": 0.65, "small": 0.75}
print("\n| model | float32 step (ms) | bfloat16 step (ms) | bf16 / f32 | bar | bf16 product GFLOP/s | f32 packed GFLOP/s | threads |")
print("|---|---|---|---|---|---|---|---|")
for model in dict.fromkeys(r["model"] for r in rows):
    step = {p: statistics.median(r["step_ms"] for r in rows if r["model"] == model and r["precision"] == p)
            for p in ("float32", "bfloat16")}
    mine = [r for r in rows if r["model"] == model]
    bf16 = statistics.median(r["bf16_gflop_per_s"] or 0 for r in mine)
    packed = statistics.median(r["bf16_packed_gflop_per_s"] or 0 for r in mine)
    ratio = step["bfloat16"] / step["float32"]
    bar = bars.get(model)
    verdict = "" if bar is None else f"≤ {bar} {'PASS' if ratio <= bar else 'FAIL'}"
    print(f"| {model} | {step['float32']:.1f} | {step['bfloat16']:.1f} | {ratio:.3f} | {verdict} | {bf16:.0f} | "
          f"{packed:.0f} | {mine[0]['threads']} |")
print(f"\nmedians of {len(rows) // 2 // len(set(r['model'] for r in rows))} alternated runs each; "
      f"bf16 support: {rows[0]['bf16_support']}")
EOF
