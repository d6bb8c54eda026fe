#!/usr/bin/env bash
# zero_memory.sh — the ZeRO table of docs/guide/data-parallelism.md: Adam's moments per rank and each rank's peak memory,
# for 2 ranks with and without train.shard_optimizer, on the given configs. A few steps are enough: the memory of
# a step is the same every step (the moments' bytes are printed by rank 0 when sharding; 2·Ψ·4 without it).
#   usage: tools/zero_memory.sh [STEPS] CONFIG…      (default: 5 configs/bench/small.yaml configs/bench/base.yaml)
# Needs a build with MPI (build/release/attnlab) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-5}; shift || true
configs=("$@"); [ ${#configs[@]} -gt 0 ] || configs=(configs/bench/small.yaml configs/bench/base.yaml)
attnlab=$PWD/build/release/attnlab
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # as root (containers, CI)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
settings=(--set train.max_steps="$steps" --set train.log_every=1 --set train.valid_every=1000000
          --set train.valid_samples=0 --set train.checkpoint_every=1000000 --set train.max_minutes=0
          --set train.threads=1)

echo "| config | parameters Ψ | shard_optimizer | Adam's moments per rank | peak memory, rank 0 / rank 1 | ms per step |"
echo "|---|---:|---|---:|---:|---:|"
for config in "${configs[@]}"; do
  for shard in false true; do
    run=$work/$(basename "$config" .yaml)-$shard
    mpirun -np 2 --oversubscribe sh -c '/usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$run.rss" \
      "$attnlab" train --config "$config" --run "$run" "${settings[@]}" --set train.shard_optimizer=$shard \
      > /dev/null 2> "$run.log"
    psi=$(grep -o 'model: [0-9]* parameters' "$run.log" | head -n 1 | grep -o '[0-9]*')
    if [ "$shard" = true ]; then
      bytes=$(grep -o 'parameters: [0-9]* bytes on rank 0' "$run.log" | grep -o '[0-9]*' | head -n 1)
    else
      bytes=$((2 * psi * 4))
    fi
    elapsed=$(grep '"type":"train"' "$run/metrics.jsonl" | tail -n 1 | grep -o '"elapsed_s":[^,}]*' | cut -d: -f2)
    printf '| %s | %s | %s | %.1f MiB | %d / %d MiB | %.0f |\n' "$(basename "$config")" "$psi" "$shard" \
      "$(echo "$bytes / 1048576" | bc -l)" $(( $(cat "$run.rss.0") / 1024 )) $(( $(cat "$run.rss.1") / 1024 )) \
      "$(echo "$elapsed * 1000 / $steps" | bc -l)"
  done
done
