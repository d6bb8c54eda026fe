#!/usr/bin/env bash
# demo.sh — the main job: build attnlab, train the default English→French model, and show it translating.
#
#   tools/demo.sh                 train configs/toy-en-fr.yaml (at most 10 minutes on 2 cores)
#   tools/demo.sh --set K=V …     the same with config overrides, e.g. a quick run that still leaves the warm-up:
#                                 --set train.max_minutes=2 --set train.warmup_steps=300
#
# Steps: install what is missing (Debian packages), build, check every op's gradient, train into a new folder
# runs/toy-en-fr-DATE, translate a few test sentences (source, reference, output side by side), then translate
# the whole test split and report the share of sentences translated exactly right, and finally write the
# attention pictures of one sentence and the run report (HTML pages in the run folder).
# Just before training it looks at how busy the CPU is (one second of /proc/stat): the training's threads meet at
# the end of every parallel loop, so a thread that has to wait for a core held by another program stalls the
# others — many times slower than fewer threads. It trains on the cores that are free, at least one, and says so;
# --set train.threads=N chooses for it.
set -euo pipefail
cd "$(dirname "$0")/.."

overrides=()
threads_chosen=""
while [ $# -gt 0 ]; do
  case "$1" in
    --set) [ $# -ge 2 ] || { echo "demo.sh: --set needs KEY=VALUE" >&2; exit 2; }; overrides+=(--set "$2")
           case "$2" in train.threads=*) threads_chosen=1 ;; esac; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

tools/install-deps.sh
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target attnlab_cli   # the command alone: no tests, no float64 twin
attnlab=build/release/attnlab

echo
echo "== 1. The engine: every op's backward against finite differences (attnlab gradcheck) =="
$attnlab gradcheck | tail -n 1

# CPU time in use by anything, over one second, in hundredths of a core: /proc/stat's first line counts the
# jiffies every core spent in each state since boot (user nice system idle iowait irq softirq steal …).
busy_hundredths() {
  local _ user nice system idle iowait irq softirq steal total1 idle1
  read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
  total1=$((user + nice + system + idle + iowait + irq + softirq + steal)); idle1=$((idle + iowait))
  sleep 1
  read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
  local total=$((user + nice + system + idle + iowait + irq + softirq + steal - total1))
  local idle_delta=$((idle + iowait - idle1))
  [ "$total" -gt 0 ] || { echo 0; return; }
  echo $(( 100 * (total - idle_delta) * $(nproc) / total ))
}
if [ -z "$threads_chosen" ] && [ -r /proc/stat ]; then
  cores=$(nproc)
  busy=$(busy_hundredths)
  threads=$(( cores - (busy + 50) / 100 ))        # a core counts as taken from half a core's use on
  [ "$threads" -ge 1 ] || threads=1
  if [ "$threads" -lt "$cores" ]; then
    echo
    echo "== The CPU is busy: other programs use about $((busy / 100)).$(printf '%02d' $((busy % 100))) of its $cores cores,"
    echo "   so training runs on $threads thread(s) — a thread waiting for a busy core would stall the others."
    echo "   (--set train.threads=N to choose yourself; README.md "Quick start" has the measurement.)"
    overrides+=(--set "train.threads=$threads")
  fi
fi

run="runs/toy-en-fr-$(date +%Y%m%d-%H%M%S)"
echo
echo "== 2. Training configs/toy-en-fr.yaml into $run =="
echo "   (Ctrl-C stops and saves; continue with: $attnlab train --resume $run)"
$attnlab train --config configs/toy-en-fr.yaml --run "$run" "${overrides[@]}"

echo
echo "== 3. A few test sentences: source / reference / attnlab =="
head -n 8 data/toy-en-fr/test.en > "$run/demo.en"
head -n 8 data/toy-en-fr/test.fr > "$run/demo.fr"
$attnlab translate --run "$run" < "$run/demo.en" > "$run/demo.out"
paste -d '\n' "$run/demo.en" "$run/demo.fr" "$run/demo.out" /dev/null | \
  awk 'NR % 4 == 1 {print "  en   " $0} NR % 4 == 2 {print "  ref  " $0} NR % 4 == 3 {print "  out  " $0} NR % 4 == 0 {print ""}'

echo "== 4. The whole test split =="
$attnlab translate --run "$run" < data/toy-en-fr/test.en > "$run/test.out"
paste -d '\t' data/toy-en-fr/test.fr "$run/test.out" | \
  awk -F '\t' '{n++; if ($1 == $2) ok++} END {printf "  exact match: %d of %d test sentences (%.1f%%)\n", ok, n, 100 * ok / n}'
echo "  translations: $run/test.out"

echo
echo "== 5. Looking inside: attention maps and the run report =="
# A test sentence with an adjective French moves after its noun (happy girl → fille heureuse), one it keeps before
# (old offices → vieux bureaux), and a negation (does not go → ne va pas).
sentence="a happy girl does not go to the old offices ."
$attnlab attention --run "$run" --text "$sentence" --out "$run/attention" > /dev/null
$attnlab report --run "$run" --text "$sentence" --out "$run/report.html" --log-level warn > /dev/null
echo "  attention of \"$sentence\": $run/attention/index.html, the explorer (and one SVG per layer and head)"
echo "  run report (curves, samples, attention): $run/report.html"
echo "  in the terminal: $attnlab attention --run $run --text \"$sentence\" --terminal"
echo
echo "== 6. The explorer, live: type your own sentences =="
echo "  $attnlab serve --run $run     (then open http://127.0.0.1:8080/ ; Ctrl-C stops it)"
