#!/usr/bin/env bash
# speedrun.sh — the number a learner can try to beat: a config trained for a time budget with several seeds,
# scored on the test set (and any further test sets), with the mean and the spread over the seeds.
#
#   tools/speedrun.sh [options] CONFIG MINUTES SEED...
#     --test NAME SRC REF    a further test set (line-aligned files), scored beside the config's test split
#     --valid                score the config's validation split too (the split to choose settings on), first
#     --checkpoint WHICH     the checkpoint to score: best (default), latest, or average (set --set
#                            train.average_last=N, or train.average_last in the config, to have training write it)
#     --set KEY=VALUE        passed to every training run (e.g. train.threads=2, train.schedule_by=time)
#     --out DIR              where the runs go (default runs/speedrun-DATE); DIR/seed-S is trained afresh
#     --score-only           train nothing: score the runs already in DIR/seed-S (after more seeds were trained
#                            one at a time, or to score another checkpoint or test set); MINUTES is only the title
#     --attnlab PATH         the program (default build/release/attnlab)
#
# For each SEED it trains DIR/seed-SEED with `--set train.seed=SEED --set train.max_minutes=MINUTES`, then
# `attnlab eval --json` on the config's test split and on every --test set, with the run's decode: section. It
# prints one line per seed (steps trained, BLEU and chrF of each test set), then the mean, the sample standard
# deviation and the range over the seeds, and the signature lines that say how BLEU and chrF were computed
# (sacreBLEU 2.x's defaults, which attnlab's BLEU and chrF reproduce; case:lc when the config lower-cases the
# text, since then the references are lower-cased before scoring). DIR/speedrun.md keeps the same text.
# Needs jq (Debian: apt-get install jq).
set -euo pipefail

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "speedrun.sh: $*" >&2; exit 2; }

attnlab="$(dirname "$0")/../build/release/attnlab"
out="runs/speedrun-$(date +%Y%m%d-%H%M%S)"
checkpoint=best
score_only=false
command_line=("$@")
sets=()
test_names=(test) test_srcs=("") test_refs=("")   # the config's own test split first
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --test) [ $# -ge 4 ] || die "--test needs NAME SRC REF"
            [ -f "$3" ] || die "--test $2: no source file '$3'"; [ -f "$4" ] || die "--test $2: no reference file '$4'"
            test_names+=("$2"); test_srcs+=("$3"); test_refs+=("$4"); shift 4 ;;
    --valid) test_names=(valid "${test_names[@]}"); test_srcs=("" "${test_srcs[@]}"); test_refs=("" "${test_refs[@]}")
             shift ;;
    --score-only) score_only=true; shift ;;
    --checkpoint) [ $# -ge 2 ] || die "--checkpoint needs best, latest or average"; checkpoint="$2"; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; sets+=(--set "$2"); shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out="$2"; shift 2 ;;
    --attnlab) [ $# -ge 2 ] || die "--attnlab needs the program's path"; attnlab="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -ge 3 ] || { usage >&2; die "give CONFIG MINUTES and at least one SEED"; }
config="${positional[0]}" minutes="${positional[1]}" seeds=("${positional[@]:2}")
[ -f "$config" ] || die "no config file '$config'"
[[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] && [ "$minutes" != 0 ] || die "MINUTES: expected a number > 0, got '$minutes'"
for seed in "${seeds[@]}"; do [[ "$seed" =~ ^[0-9]+$ ]] || die "SEED: expected a whole number, got '$seed'"; done
[[ "$checkpoint" =~ ^(best|latest|average)$ ]] || die "--checkpoint: expected best, latest or average, got '$checkpoint'"
command -v jq >/dev/null || die "needs jq to read the scores (Debian: apt-get install jq)"
[ -x "$attnlab" ] || die "no attnlab program at '$attnlab' (build it, or give --attnlab PATH)"
if $score_only; then
  for seed in "${seeds[@]}"; do
    ls "$out/seed-$seed"/checkpoints/step-*.safetensors >/dev/null 2>&1 ||
      die "--score-only: no trained run in '$out/seed-$seed' (train it first, or give --out the folder it is in)"
  done
fi
mkdir -p "$out"

# scores[seed index, test index] = "BLEU chrF"
declare -A scores=()
steps=()
for i in "${!seeds[@]}"; do
  seed="${seeds[$i]}" run="$out/seed-${seeds[$i]}"
  if ! $score_only; then
    rm -rf "$run"
    echo "== seed $seed: training $config for $minutes minutes into $run" >&2
    "$attnlab" --log-level warn train --config "$config" --run "$run" "${sets[@]}" \
      --set train.seed="$seed" --set train.max_minutes="$minutes" >&2
  fi
  last=$(ls "$run"/checkpoints/step-*.safetensors | tail -n 1)
  steps+=("$((10#$(basename "$last" .safetensors | sed 's/^step-//')))")
  for t in "${!test_names[@]}"; do
    if [ "${test_names[$t]}" = valid ] && [ -z "${test_srcs[$t]}" ]; then where=(--split valid)
    elif [ -z "${test_srcs[$t]}" ]; then where=(--split test)
    else where=(--src "${test_srcs[$t]}" --ref "${test_refs[$t]}" --out "$run/eval-${test_names[$t]}.hyp"); fi
    json=$("$attnlab" --log-level warn eval --run "$run" "${where[@]}" --checkpoint "$checkpoint" --json)
    scores[$i,$t]=$(jq -r '"\(.bleu) \(.chrf)"' <<< "$json")
  done
done

# Mean, sample standard deviation (n − 1; 0 for one seed) and range of the numbers on standard input.
stats() { awk '{ x[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2;
               sd = NR > 1 ? sqrt(v / (NR - 1)) : 0; lo = hi = x[1]
               for (i = 2; i <= NR; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
               printf "%.2f ± %.2f (%.2f … %.2f)", m, sd, lo, hi }'; }

case_word=mixed
grep -Eq '^ *lowercase: *true' "$out/seed-${seeds[0]}/config.yaml" && case_word=lc
version=$("$attnlab" --version | awk '{ print $2 }')
{
  echo "# speedrun: $config, $minutes minutes a seed, checkpoint $checkpoint"
  echo
  if $score_only; then
    echo "(scored with --score-only: the runs were trained earlier, by the same command without it)"; echo
  fi
  echo "made by: $0 ${command_line[*]} on $(date '+%Y-%m-%d %H:%M'), $(lscpu 2>/dev/null |
       sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores"
  echo
  header="| seed | steps |"; rule="|---|---|"
  for name in "${test_names[@]}"; do header+=" $name BLEU | $name chrF |"; rule+="---|---|"; done
  echo "$header"; echo "$rule"
  for i in "${!seeds[@]}"; do
    row="| ${seeds[$i]} | ${steps[$i]} |"
    for t in "${!test_names[@]}"; do read -r bleu chrf <<< "${scores[$i,$t]}"; row+=" $(printf '%.2f' "$bleu") | $(printf '%.2f' "$chrf") |"; done
    echo "$row"
  done
  echo
  for t in "${!test_names[@]}"; do
    bleus=$(for i in "${!seeds[@]}"; do echo "${scores[$i,$t]}" | cut -d' ' -f1; done | stats)
    chrfs=$(for i in "${!seeds[@]}"; do echo "${scores[$i,$t]}" | cut -d' ' -f2; done | stats)
    echo "${test_names[$t]}: BLEU $bleus, chrF $chrfs  (mean ± sd over ${#seeds[@]} seeds, range)"
  done
  echo
  echo "BLEU signature: nrefs:1|case:$case_word|eff:no|tok:13a|smooth:exp|version:attnlab-$version"
  echo "chrF signature: nrefs:1|case:$case_word|eff:yes|nc:6|nw:0|space:no|version:attnlab-$version"
} | tee "$out/speedrun.md"
