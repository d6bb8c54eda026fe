#!/usr/bin/env bash
# data_parallel_bench.sh — the table of docs/guide/data-parallelism.md: one process with 1 and with 2 threads against 2
# ranks of 1 thread (mpirun) on the same config and global batch, each run ROUNDS times in turn (A B C A B C …) so
# that a shared machine's changing load falls on all alike. Prints one Markdown row per run: tokens/s, step time, the
# share of the time in the all-reduce (rank 0's view: the all-reduce and the wait there for the other rank) and
# the peak memory of each process.
#   usage: tools/data_parallel_bench.sh [CONFIG] [STEPS] [ROUNDS] [BUCKET_MB…]  (defaults: configs/toy-en-fr.yaml 150 2 0)
# With BUCKET_MB values (train.allreduce_bucket_mb; 0 = one all-reduce after backward) each round runs the 2 × 1 row
# once per value, in the order given; ONE_PROCESS=0 in the environment leaves the one-process rows out.
# Needs a build with MPI (build/release/attnlab) and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-configs/toy-en-fr.yaml} steps=${2:-150} rounds=${3:-2}
buckets=("${@:4}"); [ ${#buckets[@]} -gt 0 ] || buckets=(0)
attnlab=$PWD/build/release/attnlab
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # as root (containers, CI)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
settings=(--set train.max_steps="$steps" --set train.log_every="$steps" --set train.valid_every=1000000
          --set train.valid_samples=0 --set train.checkpoint_every=1000000 --set train.max_minutes=0)

# row LABEL RUN_DIR LOG RSS_FILES…: tokens/s and elapsed time at the last step from metrics.jsonl.
row() {
  local label=$1 run=$2 log=$3; shift 3
  local last tokens elapsed share memory
  last=$(grep '"type":"train"' "$run/metrics.jsonl" | tail -n 1)
  tokens=$(echo "$last" | grep -o '"tokens_per_s":[^,}]*' | cut -d: -f2)
  elapsed=$(echo "$last" | grep -o '"elapsed_s":[^,}]*' | cut -d: -f2)
  share=$(grep -o '([0-9]*% in all-reduce)' "$log" | tail -n 1 | tr -d '()' | cut -d' ' -f1 || true)
  memory=$(for f in "$@"; do echo "$(( $(cat "$f") / 1024 )) MB"; done | paste -sd/ | sed 's#/# / #g')
  printf '| %s | %.0f | %.1f | %s | %s |\n' "$label" "$tokens" "$(echo "$elapsed * 1000 / $steps" | bc -l)" \
    "${share:-0%}" "$memory"
}

echo "$config, $steps steps, global batch from the config; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "| processes × threads | tokens/s | ms per step | time in all-reduce | peak memory per process |"
echo "|---|---:|---:|---:|---:|"
for round in $(seq 1 "$rounds"); do
  for threads in 1 2; do
    [ "${ONE_PROCESS:-1}" = 0 ] && break
    one=$work/one-$threads-$round
    /usr/bin/time -f %M -o "$one.rss" "$attnlab" train --config "$config" --run "$one" "${settings[@]}" \
      --set train.threads=$threads > /dev/null 2> "$one.log"
    row "1 × $threads" "$one" "$one.log" "$one.rss"
  done
  for mb in "${buckets[@]}"; do
    two=$work/two-$round-$mb
    mpirun -np 2 --oversubscribe sh -c '/usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$two.rss" \
      "$attnlab" train --config "$config" --run "$two" "${settings[@]}" --set train.threads=1 \
      --set train.allreduce_bucket_mb="$mb" > /dev/null 2> "$two.log"
    summing=$([ "$mb" = 0 ] && echo "one all-reduce" || echo "buckets of $mb MB")
    row "2 × 1 (mpirun), $summing" "$two" "$two.log" "$two.rss.0" "$two.rss.1"
  done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
