#!/usr/bin/env bash
# speedrun.sh — the number a learner can try to beat: a config trained for a time budget with several seeds,
# scored on the test set (and any further test sets), with the mean and the spread over the seeds.
#
#   tools/speedrun.sh [options] CONFIG MINUTES SEED...
#     --test NAME SRC REF    a further test set (line-aligned files), scored beside the config's test split
#     --valid                score the config's validation split too (the split to choose settings on), first
#     --checkpoint WHICH     the checkpoint to score: best (default), latest, or average (set --set
#                            train.average_last=N, or train.average_last in the config, to have training write it)
#     --beam N               score with beam N (1 = greedy) instead of the run's decode.beam
#     --set KEY=VALUE        passed to every training run (e.g. train.threads=2, train.schedule_by=time)
#     --out DIR              where the runs go (default runs/speedrun-DATE); DIR/seed-S is trained afresh
#     --score-only           train nothing: score the runs already in DIR/seed-S (after more seeds were trained
#                            one at a time, or to score another checkpoint or test set); MINUTES is only the title
#     --attnlab PATH         the program (default build/release/attnlab)
#     --record [BOARD]       after scoring, append the speedrun's row to the speedrun board BOARD (a .md file;
#                            default docs/results/speedrun.md; its folder must exist) and copy DIR/speedrun.md next
#                            to it as speedrun/DATE-CONFIG.md: mean ± sd test BLEU and each seed's, the signature,
#                            the machine, the commit, Welch's one-sided t-test against the config's previous record
#                            and the verdict, record or not and why (tools/speedrun_record.py; needs python3)
#     --target BLEU          the test BLEU a record must reach in the mean (default 39.8, Multi30k's test2016)
#     --from-summary FILE    train and score nothing: record FILE, a speedrun.md made earlier, on the board (implies
#                            --record; CONFIG MINUTES SEED are not given). For a summary older than its "machine:"
#                            line, --machine TEXT gives the vector width and threads, --commit HASH the commit
#                            (default: the commit that added FILE)
#
# For each SEED it trains DIR/seed-SEED with `--set train.seed=SEED --set train.max_minutes=MINUTES`, then
# `attnlab eval --json` on the config's test split and on every --test set, with the run's decode: section (or
# --beam). The title names the checkpoint and the decoding eval reports (beam, α, no_repeat_ngram; the seeds must
# agree). It prints one line per seed (steps trained, BLEU and chrF of each test set) — and a "finished early"
# line for a seed that ended before its minutes: its train.max_steps came first (its schedule ended there: raise
# the steps to use the budget), or it was stopped — then the mean, the sample standard deviation and the range
# over the seeds, and the signature lines that say how BLEU and chrF were computed (sacreBLEU 2.x's defaults,
# which attnlab's BLEU and chrF reproduce; case:lc when the config lower-cases the text, since then the references
# are lower-cased before scoring), the machine (CPU, cores, what `attnlab --version` reports — where bfloat16
# multiplies here and the vector width —, the run's product backend, precision and threads) and the commit the
# tree was at (+dirty when it had changes). DIR/speedrun.md keeps the same text. docs/results/speedrun.md says
# when a row is a record.
# Needs jq (Debian: apt-get install jq).
set -euo pipefail

usage() { sed -n '2,/^# Needs jq/p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "speedrun.sh: $*" >&2; exit 2; }

attnlab="$(dirname "$0")/../build/release/attnlab"
out="runs/speedrun-$(date +%Y%m%d-%H%M%S)"
checkpoint=best
beam=""
score_only=false
board="" target=39.8 from_summary="" record_args=()
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
    --beam) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--beam needs a beam size, a whole number ≥ 1"
            beam="$2"; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; sets+=(--set "$2"); shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out="$2"; shift 2 ;;
    --attnlab) [ $# -ge 2 ] || die "--attnlab needs the program's path"; attnlab="$2"; shift 2 ;;
    --record) if [ $# -ge 2 ] && [[ "$2" == *.md ]]; then board="$2"; shift 2
              else board="$(cd "$(dirname "$0")/.." && pwd)/docs/results/speedrun.md"; shift; fi ;;
    --target) [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--target needs a BLEU score, e.g. 39.8"
              target="$2"; shift 2 ;;
    --from-summary) [ $# -ge 2 ] || die "--from-summary needs a speedrun.md"; from_summary="$2"; shift 2 ;;
    --machine|--commit) [ $# -ge 2 ] || die "$1 needs a value"; record_args+=("$1" "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done

# The board: its folder checked now, before any training; the row written by tools/speedrun_record.py.
if [ -n "$from_summary" ] && [ -z "$board" ]; then board="$(cd "$(dirname "$0")/.." && pwd)/docs/results/speedrun.md"; fi
if [ -n "$board" ]; then
  [ -d "$(dirname "$board")" ] || die "--record: no folder '$(dirname "$board")' for the board '$board'"
  command -v python3 >/dev/null || die "--record needs python3 (Debian: apt-get install python3)"
fi
record() { python3 "$(dirname "$0")/speedrun_record.py" record --summary "$1" --board "$board" --target "$target" \
             "${record_args[@]}"; }
if [ -n "$from_summary" ]; then
  [ ${#positional[@]} -eq 0 ] || die "--from-summary records FILE: give no CONFIG MINUTES SEED"
  [ -f "$from_summary" ] || die "--from-summary: no file '$from_summary'"
  record "$from_summary"; exit
fi
[ ${#record_args[@]} -eq 0 ] || die "--machine and --commit are for --from-summary (a new summary has its own)"
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

# The value of KEY in a run's config.yaml (its first line `KEY: value`, comment dropped): config_key RUN KEY
config_key() { sed -n "s/^ *$2: *\([^ #]*\).*/\1/p" "$1/config.yaml" | head -n 1; }

# scores[seed index, test index] = "BLEU chrF"; decodings: how eval decoded each seed ("beam 4, α 2")
declare -A scores=()
decodings=()
steps=() early=()
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
  # A run that ended before its minutes (train.max_steps came first, or it was stopped) did not have the budget it
  # is scored for.
  trained=$(jq -rs 'map(select(.type == "train")) | last | .elapsed_s // empty' "$run/metrics.jsonl" 2>/dev/null)
  if [ -n "$trained" ] && awk -v s="$trained" -v m="$minutes" 'BEGIN { exit !(s < 0.95 * m * 60) }'; then
    when="after $(awk -v s="$trained" 'BEGIN { printf "%.1f", s / 60 }') of its $minutes minutes"
    max_steps=$(config_key "$run" max_steps)
    if [ -n "$max_steps" ] && [ "${steps[-1]}" -ge "$max_steps" ]; then
      early+=("seed $seed: train.max_steps ended it at step ${steps[-1]} $when; raise it (--set train.max_steps=N) to train for the whole budget")
    else
      early+=("seed $seed: it stopped at step ${steps[-1]} $when, before train.max_steps ($max_steps): interrupted?")
    fi
  fi
  for t in "${!test_names[@]}"; do
    if [ "${test_names[$t]}" = valid ] && [ -z "${test_srcs[$t]}" ]; then where=(--split valid)
    elif [ -z "${test_srcs[$t]}" ]; then where=(--split test)
    else where=(--src "${test_srcs[$t]}" --ref "${test_refs[$t]}" --out "$run/eval-${test_names[$t]}.hyp"); fi
    json=$("$attnlab" --log-level warn eval --run "$run" "${where[@]}" --checkpoint "$checkpoint" \
             ${beam:+--beam "$beam"} --json)
    scores[$i,$t]=$(jq -r '"\(.bleu) \(.chrf)"' <<< "$json")
    decoding=$(jq -r '"beam \(.beam)" + (if .beam > 1 then ", α \(.length_penalty)" else "" end)
      + (if .no_repeat_ngram > 0 then ", no repeated \(.no_repeat_ngram)-grams" else "" end)' <<< "$json")
  done
  decodings+=("$decoding")
done
# A row names one decoding: seeds trained with different decode: sections (a --score-only of runs made by
# different commands) would mix two.
for i in "${!seeds[@]}"; do
  [ "${decodings[$i]}" = "${decodings[0]}" ] ||
    die "the seeds decode differently (seed ${seeds[0]}: ${decodings[0]}; seed ${seeds[$i]}: ${decodings[$i]}):" \
        "a row names one decoding, so score runs whose config.yaml has the same decode: section"
done

# Mean, sample standard deviation (n − 1; 0 for one seed) and range of the numbers on standard input.
stats() { awk '{ x[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2;
               sd = NR > 1 ? sqrt(v / (NR - 1)) : 0; lo = hi = x[1]
               for (i = 2; i <= NR; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
               printf "%.2f ± %.2f (%.2f … %.2f)", m, sd, lo, hi }'; }

# The machine the numbers were made on, and the commit of the tree (+dirty when it had uncommitted changes).
machine_line() {
  local run="$out/seed-${seeds[0]}" cpu family model
  cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
  family=$(sed -n 's/^cpu family[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
  model=$(sed -n 's/^model[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
  echo "machine: ${cpu:-unknown CPU} (family ${family:-?}, model ${model:-?}), $(nproc) cores; $("$attnlab" --version); model.gemm $(config_key "$run" gemm), model.precision $(config_key "$run" precision), train.threads $(config_key "$run" threads)"
}
commit_line() {
  local tree hash dirty=""
  tree="$(dirname "$0")/.."
  hash=$(git -C "$tree" rev-parse --short HEAD 2>/dev/null) || { echo "commit: unknown (not a git checkout)"; return; }
  [ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] || dirty="+dirty"
  echo "commit: $hash$dirty (the tree speedrun.sh ran from)"
}

case_word=mixed
grep -Eq '^ *lowercase: *true' "$out/seed-${seeds[0]}/config.yaml" && case_word=lc
version=$("$attnlab" --version | awk '{ print $2 }')
{
  echo "# speedrun: $config, $minutes minutes a seed, checkpoint $checkpoint, ${decodings[0]}"
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
  if [ ${#early[@]} -gt 0 ]; then printf 'finished early: %s\n' "${early[@]}"; echo; fi
  for t in "${!test_names[@]}"; do
    bleus=$(for i in "${!seeds[@]}"; do echo "${scores[$i,$t]}" | cut -d' ' -f1; done | stats)
    chrfs=$(for i in "${!seeds[@]}"; do echo "${scores[$i,$t]}" | cut -d' ' -f2; done | stats)
    echo "${test_names[$t]}: BLEU $bleus, chrF $chrfs  (mean ± sd over ${#seeds[@]} seeds, range)"
  done
  echo
  echo "BLEU signature: nrefs:1|case:$case_word|eff:no|tok:13a|smooth:exp|version:attnlab-$version"
  echo "chrF signature: nrefs:1|case:$case_word|eff:yes|nc:6|nw:0|space:no|version:attnlab-$version"
  echo
  machine_line
  commit_line
} | tee "$out/speedrun.md"
if [ -n "$board" ]; then record "$out/speedrun.md"; fi
