#!/usr/bin/env bash
# align_study.sh — does attention explain, kind by kind? Train the demo with each attention kind as cross-attention
# and a few seeds, score every run against the gold alignments with `attnlab align`, and tabulate.
#
#   tools/align_study.sh [--kinds K1,K2,…] [--seeds 1,2,3] [--budget-minutes M | --steps N] [--threads T]
#                        [--limit N] [--gradient-limit N] [--config FILE] [--set KEY=VALUE]… [--out DIR] [--attnlab PATH]
#   tools/align_study.sh --out DIR --tabulate
#
# For each KIND and SEED it trains FILE (default configs/toy-en-fr.yaml) with
#   --set model.attention.cross=KIND --set train.seed=SEED --set train.keep_last=1
# into DIR/runs/KIND-SEED for M minutes (default 3), or exactly N optimizer steps with --steps (the fair budget on
# a busy machine: every kind gets the same steps), then scores the run's best checkpoint with
#   attnlab align --run DIR/runs/KIND-SEED --split test --json [--limit N] [--gradient-limit N]
# into DIR/align/KIND-SEED.json, and at the end writes, with tools/align_table.py,
#   DIR/alignment.md   kinds × methods (best head, head mean and value norms of the last layer, rollout, ALTI+,
#                      gradient × input, integrated gradients): AER and AOPC as mean ± sd over the seeds; per kind
#                      Kendall's τ between the seeds' rankings of the methods by AER; the models' loss and exact
#                      matches; each kind's best heads and align's notes; above it the command and the machine
#   DIR/alignment.svg  the mean AER and AOPC as two heat maps
# Kinds: default every kind attnlab lists (it is asked) that the config accepts as cross-attention. A kind the
# config refuses (external: its keys are learned memories, not the source) is said so, noted on the page, and
# skipped; a run whose training or scoring fails is said so (its log named), noted, and the study goes on — the
# script then exits 1. --threads T: train.threads=T and OMP_NUM_THREADS=T for align (default: every core).
# --limit / --gradient-limit: align's (default all 1,000 test pairs / 200 for the gradient methods and the deletion
# test). --set is passed to every training after the script's own keys, so it wins; note a budget of a few hundred
# steps ends inside toy-en-fr's 1000-step warm-up (--set train.warmup_steps=300 leaves it, as tools/demo.sh says).
# Every run uses DIR/attnlab, a copy of the program made at the start, so a rebuild meanwhile changes nothing.
# Disk: one step checkpoint and the best per run (about 25 MB each for toy-en-fr). An existing DIR/runs/KIND-SEED
# is trained again from scratch, and a new call into DIR replaces the scores of the one before.
# Time: each run is its budget plus the scoring (toy-en-fr on one thread: about 5 s for the attention methods on
# 1,000 pairs, 30 s for the gradient methods and the deletion test on 200); the default 8 kinds × 3 seeds ×
# 3 minutes is about an hour and a half, --steps 1500 --threads 1 about two hours on a busy machine.
# --tabulate trains and scores nothing: writes alignment.md and alignment.svg again from DIR/align.
# Needs python3 (no packages). Default DIR: runs/align-study-DATE. Default attnlab: build/release/attnlab.
set -euo pipefail
{   # the whole script is one block, read before it runs: a study takes hours, and an edit of this file (or a git
    # checkout) meanwhile must not change what the running script does next

usage() { sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "align_study.sh: $*" >&2; exit 2; }
say() { echo "align_study.sh: [$(date +%H:%M:%S)] $*" >&2; }

command_line="$0 $*"   # as typed, for the page's "made by" line
here="$(dirname "$0")"
kinds_option="" seeds_option="1,2,3" minutes=3 steps="" threads="" limit="" gradient_limit=""
config="$here/../configs/toy-en-fr.yaml" out="" tabulate="" attnlab="$here/../build/release/attnlab"
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --kinds) [ $# -ge 2 ] || die "--kinds needs a comma-separated list"; kinds_option="$2"; shift 2 ;;
    --seeds) [ $# -ge 2 ] || die "--seeds needs a comma-separated list"; seeds_option="$2"; shift 2 ;;
    --budget-minutes) [ $# -ge 2 ] || die "--budget-minutes needs a number"; minutes="$2"; shift 2 ;;
    --steps) [ $# -ge 2 ] || die "--steps needs a number"; steps="$2"; shift 2 ;;
    --threads) [ $# -ge 2 ] || die "--threads needs a number"; threads="$2"; shift 2 ;;
    --limit) [ $# -ge 2 ] || die "--limit needs a number"; limit="$2"; shift 2 ;;
    --gradient-limit) [ $# -ge 2 ] || die "--gradient-limit needs a number"; gradient_limit="$2"; shift 2 ;;
    --config) [ $# -ge 2 ] || die "--config needs a file"; config="$2"; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; sets+=(--set "$2"); shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out="$2"; shift 2 ;;
    --attnlab) [ $# -ge 2 ] || die "--attnlab needs the program's path"; attnlab="$2"; shift 2 ;;
    --tabulate) tabulate=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
command -v python3 >/dev/null || die "needs python3 to write the table"
whole='^[1-9][0-9]*$' count='^[0-9]+$'
[[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--budget-minutes: expected a number of minutes, got '$minutes'"
[ -z "$steps" ] || [[ "$steps" =~ $whole ]] || die "--steps: expected a whole number > 0, got '$steps'"
[ -z "$threads" ] || [[ "$threads" =~ $whole ]] || die "--threads: expected a whole number > 0, got '$threads'"
[ -z "$limit" ] || [[ "$limit" =~ $count ]] || die "--limit: expected a whole number (0: all pairs), got '$limit'"
[ -z "$gradient_limit" ] || [[ "$gradient_limit" =~ $count ]] ||
  die "--gradient-limit: expected a whole number (0: none), got '$gradient_limit'"
[[ "$seeds_option" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--seeds: expected whole numbers separated by commas, like 1,2,3; got '$seeds_option'"
IFS=, read -r -a seeds <<< "$seeds_option"
[ "$(printf '%s\n' "${seeds[@]}" | sort -u | wc -l)" = "${#seeds[@]}" ] || die "--seeds: '$seeds_option' names a seed twice"

if [ -n "$tabulate" ]; then
  [ -n "$out" ] || die "--tabulate needs --out DIR: the folder of the study to tabulate"
  [ -s "$out/made-by.txt" ] || die "no '$out/made-by.txt': '$out' was not made by align_study.sh"
  python3 "$here/align_table.py" "$out" > /dev/null || exit 2
  say "wrote $out/alignment.md and $out/alignment.svg"
  cat "$out/alignment.md"
  exit 0
fi

[ -x "$attnlab" ] || die "no attnlab program at '$attnlab' (build it, or give --attnlab PATH)"
[ -f "$config" ] || die "no config file '$config'"
"$attnlab" align --help > /dev/null 2>&1 || die "'$attnlab' has no align command: build a newer attnlab"

out="${out:-runs/align-study-$(date +%Y%m%d-%H%M%S)}"

# ---- The kinds: attnlab's own list, read from the message it gives for a kind it does not know (the config
# is refused before anything is trained or written)
known_kinds() {
  { "$attnlab" train --config "$config" --run "$out/no-such-run" --set model.attention.cross=no_such_kind 2>&1 || true; } |
    sed -n 's/.*model\.attention\.cross\.kind: expected one of \(.*\), got .*/\1/p' | tr -d ' ' | head -n 1
}
known=$(known_kinds)
[ -n "$known" ] || die "could not read the attention kinds from '$attnlab train' (give --kinds K1,K2,…)"
kinds_option="${kinds_option:-$known}"
[[ "$kinds_option" =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]] || die "--kinds: expected names separated by commas, like scaled_dot,additive; got '$kinds_option'"
IFS=, read -r -a kinds <<< "$kinds_option"
for kind in "${kinds[@]}"; do
  [[ ",$known," == *",$kind,"* ]] || die "--kinds: attnlab has no attention kind '$kind'; its kinds are ${known//,/, }"
done
[ "$(printf '%s\n' "${kinds[@]}" | sort -u | wc -l)" = "${#kinds[@]}" ] || die "--kinds: '$kinds_option' names a kind twice"

mkdir -p "$out/runs" "$out/align" "$out/logs"
cp "$attnlab" "$out/attnlab.part" && mv "$out/attnlab.part" "$out/attnlab"   # one program for every run, even if
attnlab="$out/attnlab"                                                       # the build is redone meanwhile
rm -f "$out"/align/*.json "$out"/align/*.refused "$out"/align/*.failed "$out/alignment.md" "$out/alignment.svg"

if [ -n "$steps" ]; then
  budget=(--set train.max_minutes=0 --set "train.max_steps=$steps")
  budget_text="$steps steps each"
else
  budget=(--set "train.max_minutes=$minutes")
  budget_text="$minutes minutes each"
fi
thread_keys=() align_options=()
[ -z "$threads" ] || thread_keys=(--set "train.threads=$threads")
[ -z "$limit" ] || align_options+=(--limit "$limit")
[ -z "$gradient_limit" ] || align_options+=(--gradient-limit "$gradient_limit")

machine() {  # "AMD EPYC, 2 cores": the CPU model and the number of cores the runs could use
  local model
  model=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
  echo "${model:-unknown CPU}, $(nproc) cores"
}
printf '%s\n%s\n%s\n' "$budget_text, $(basename "$config") with each kind as cross-attention" \
  "Made by \`$command_line\` on $(machine) ($("$attnlab" --version), $(date +%Y-%m-%d))." \
  "kinds: ${kinds[*]}" > "$out/made-by.txt"

# ---- One run: train KIND with SEED, score it. Returns 0 (scored), 3 (the config refuses the kind), 1 (failed).
train_and_score() {  # KIND SEED
  local kind=$1 seed=$2 name="$1-$2" run="$out/runs/$1-$2" started=$SECONDS
  rm -rf "$run"
  if ! "$attnlab" train --config "$config" --run "$run" "${budget[@]}" --set "model.attention.cross=$kind" \
         --set "train.seed=$seed" --set train.keep_last=1 ${thread_keys[@]+"${thread_keys[@]}"} \
         ${sets[@]+"${sets[@]}"} > "$out/logs/$name.train.log" 2>&1; then
    if [ ! -d "$run" ] && grep -q "model\.attention\.cross" "$out/logs/$name.train.log"; then
      tail -n 1 "$out/logs/$name.train.log" | sed 's/^attnlab: //' > "$out/align/$kind.refused"
      return 3
    fi
    echo "training failed; see $out/logs/$name.train.log" > "$out/align/$name.failed"
    return 1
  fi
  say "  trained in $((SECONDS - started)) s; scoring with attnlab align (progress in $out/logs/$name.align.log)"
  if ! env ${threads:+OMP_NUM_THREADS=$threads} "$attnlab" align --run "$run" --split test --json \
         ${align_options[@]+"${align_options[@]}"} > "$out/align/$name.json.part" 2> "$out/logs/$name.align.log"; then
    rm -f "$out/align/$name.json.part"
    echo "scoring failed; see $out/logs/$name.align.log" > "$out/align/$name.failed"
    return 1
  fi
  mv "$out/align/$name.json.part" "$out/align/$name.json"
}

total=$(( ${#kinds[@]} * ${#seeds[@]} )) n=0 failures=0
for kind in "${kinds[@]}"; do
  for s in "${!seeds[@]}"; do
    seed=${seeds[$s]} n=$((n + 1)) status=0
    say "[$n/$total] $kind, seed $seed: training ($budget_text) → $out/runs/$kind-$seed"
    train_and_score "$kind" "$seed" || status=$?
    if [ "$status" = 3 ]; then
      say "  attnlab refuses $kind as cross-attention: $(cat "$out/align/$kind.refused")"
      say "  skipping $kind (and its other seeds)"
      n=$((n + ${#seeds[@]} - s - 1))
      break
    elif [ "$status" != 0 ]; then
      failures=$((failures + 1))
      say "  FAILED: $(cat "$out/align/$kind-$seed.failed"); going on"
    else
      say "  scored: $(python3 "$here/align_table.py" --summary "$out/align/$kind-$seed.json")"
    fi
  done
done

python3 "$here/align_table.py" "$out" > /dev/null || exit 2
say "wrote $out/alignment.md and $out/alignment.svg"
cat "$out/alignment.md"
if [ "$failures" -gt 0 ]; then
  say "$failures run(s) failed: their logs are named above and on the page"
  exit 1
fi
exit 0
}
