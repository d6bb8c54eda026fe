#!/usr/bin/env bash
# compare.sh — train several configs on the same budget and put their results side by side.
#
#   tools/compare.sh CONFIG... [--budget-minutes M] [--steps N] [--out DIR] [--attnlab PATH] [--set KEY=VALUE]...
#   tools/compare.sh CONFIG... --out DIR --tabulate
#
# For each CONFIG (e.g. configs/experiments/*.yaml) it trains a run DIR/runs/NAME (NAME = the file's name without
# .yaml) for M minutes (default 3; or exactly N optimizer steps with --steps, the fair budget on a busy machine),
# evaluates its best checkpoint (lowest validation loss) on the test split with
# `attnlab eval --run RUN --split test --json`, and writes
#   DIR/compare.md    a Markdown table: test exact match, BLEU, chrF, validation exact match (the last, and the
#                     first step at which it reached 90%), wall time, tokens/s, parameter count, mean attention
#                     entropy of encoder / decoder / cross-attention; above it the command that made it and the
#                     machine (CPU model and cores, from lscpu)
#   DIR/curves.svg    the validation curves (exact match, and loss on a log scale, against the step) of every
#                     run, overlaid
# Cloze readers (model.task: cloze, e.g. configs/experiments/cloze_{aoa,as_reader}.yaml) get a reader's table
# instead: test accuracy, the most-frequent-noun baseline on the same questions, validation accuracy (the last, and
# the first step at 90%), the best checkpoint's step, steps, wall time, parameters; the curves show accuracy.
# Readers and translators cannot share one table: give them in separate calls.
# Every --set is passed to every training run. An existing DIR/runs/NAME is trained again from scratch.
# --tabulate trains nothing: it writes compare.md and curves.svg again from the runs and evaluations already in
# DIR (made by an earlier call with the same configs), with that call's "made by" line.
# Needs jq (Debian: apt-get install jq). Default DIR: runs/compare-DATE. Default attnlab: build/release/attnlab.
set -euo pipefail

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "compare.sh: $*" >&2; exit 2; }

command_line="$0 $*"   # as typed, for the table's "made by" line
configs=()
sets=()
minutes=3
steps=""
out=""
tabulate=""
attnlab="$(dirname "$0")/../build/release/attnlab"
while [ $# -gt 0 ]; do
  case "$1" in
    --budget-minutes) [ $# -ge 2 ] || die "--budget-minutes needs a number"; minutes="$2"; shift 2 ;;
    --steps) [ $# -ge 2 ] || die "--steps needs a number"; steps="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out="$2"; shift 2 ;;
    --attnlab) [ $# -ge 2 ] || die "--attnlab needs the program's path"; attnlab="$2"; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; sets+=(--set "$2"); shift 2 ;;
    --tabulate) tabulate=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) configs+=("$1"); shift ;;
  esac
done
[ ${#configs[@]} -gt 0 ] || { usage >&2; die "give at least one config file"; }
[[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--budget-minutes: expected a number of minutes, got '$minutes'"
[ -z "$steps" ] || [[ "$steps" =~ ^[1-9][0-9]*$ ]] || die "--steps: expected a whole number > 0, got '$steps'"
command -v jq >/dev/null || die "needs jq to read the metrics (Debian: apt-get install jq)"
[ -n "$tabulate" ] || [ -x "$attnlab" ] || die "no attnlab program at '$attnlab' (build it, or give --attnlab PATH)"
declare -A seen=()
task=""   # translation or cloze: the config's model.task (a line "  task: cloze" under model:), one for all
for config in "${configs[@]}"; do
  [ -f "$config" ] || die "no config file '$config'"
  name=$(basename "$config" .yaml)
  [ -z "${seen[$name]:-}" ] || die "two configs are called '$name': their runs would share DIR/runs/$name"
  seen[$name]=1
  this_task=translation
  if grep -Eq '^[[:space:]]+task:[[:space:]]*cloze([[:space:]]|#|$)' "$config"; then this_task=cloze; fi
  [ -z "$task" ] || [ "$task" = "$this_task" ] ||
    die "'$config' is a $this_task config but an earlier one is not: compare readers (model.task: cloze) and translators in separate calls"
  task=$this_task
done
if [ -n "$tabulate" ]; then
  [ -n "$out" ] || die "--tabulate needs --out DIR: the folder of the runs to tabulate"
  [ -s "$out/made-by.txt" ] || die "no '$out/made-by.txt': '$out' was not made by compare.sh"
  for config in "${configs[@]}"; do
    name=$(basename "$config" .yaml)
    [ -s "$out/runs/$name/metrics.jsonl" ] || die "--tabulate: '$out' has no run '$name' (no $out/runs/$name/metrics.jsonl)"
  done
fi
out="${out:-runs/compare-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out/runs"

if [ -n "$steps" ]; then
  budget=(--set train.max_minutes=0 --set "train.max_steps=$steps")
  budget_text="$steps steps each"
else
  budget=(--set "train.max_minutes=$minutes")
  budget_text="$minutes minutes each"
fi

# ---- The evaluation, on its own: `attnlab eval` writes one JSON object (bleu, chrf, exact_match, loss,
# perplexity, token_accuracy, sentences, beam, length_penalty, hypotheses_file, attention_entropy {encoder,
# decoder, cross}).
# When this attnlab has no eval command the columns that need it stay empty ("–").
have_eval() { "$attnlab" eval --help 2>/dev/null | grep -q -- '--split'; }   # (an unknown subcommand's --help prints the main help)
evaluate_run() {  # RUN JSON_OUT
  "$attnlab" eval --run "$1" --split test --json > "$2"
}

machine() {  # "AMD EPYC, 2 cores": the CPU model and the number of cores the trainings could use
  local model
  model=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
  echo "${model:-unknown CPU}, $(nproc) cores"
}

# ---- Train (and evaluate) every config; made-by.txt keeps the budget and how the runs were made, for the table
if [ -z "$tabulate" ]; then
  if ! have_eval; then
    echo "compare.sh: this attnlab has no 'eval' command: test exact match, BLEU, chrF and attention entropy stay empty" >&2
  fi
  printf '%s\n%s\n' "$budget_text" \
    "Made by \`$command_line\` on $(machine) ($("$attnlab" --version), $(date +%Y-%m-%d))." > "$out/made-by.txt"
  for config in "${configs[@]}"; do
    name=$(basename "$config" .yaml)
    run="$out/runs/$name"
    rm -rf "$run"
    echo "compare.sh: training $name ($budget_text) → $run" >&2
    "$attnlab" train --config "$config" --run "$run" "${budget[@]}" ${sets[@]+"${sets[@]}"} \
      > "$out/$name.train.log" 2>&1 || die "training $name failed; see $out/$name.train.log"
    rm -f "$out/$name.eval.json"
    if have_eval; then
      evaluate_run "$run" "$out/$name.eval.json" 2> "$out/$name.eval.log" ||
        die "evaluating $name failed; see $out/$name.eval.log"
    fi
  done
fi
budget_text=$(sed -n 1p "$out/made-by.txt")

# ---- The table
number() {  # JQ_FILTER FILE FORMAT: a number from a JSON file, formatted, or "–"
  local value
  value=$( [ -s "$2" ] && jq -r "$1 // empty" "$2" 2>/dev/null || true)
  if [ -z "$value" ] || [ "$value" = "null" ]; then echo "–"; else printf "$3" "$value"; fi
}
summarize() {  # NAME: the run's last validation and training lines, last step, wall time, first step at 90%
  jq -s '{valid: (map(select(.type == "valid")) | last), train: (map(select(.type == "train")) | last),
          elapsed: (map(.elapsed_s) | max), step: (map(.step) | max),
          to90: (map(select(.type == "valid" and ((.exact_match // .accuracy // 0) >= 0.9))) | first | .step)}' \
    "$out/runs/$1/metrics.jsonl" > "$out/$1.summary.json"
}
parameters_of() {  # NAME: the parameter count the training log states ("model: N parameters" or "(aoa): N parameters")
  sed -n 's/.*: \([0-9]*\) parameters.*/\1/p' "$out/$1.train.log" | head -n 1
}
if [ "$task" = cloze ]; then
{
  echo "# Comparison of cloze readers: $budget_text"
  echo
  sed -n 2p "$out/made-by.txt"
  echo "Trained with \`attnlab train\`, evaluated on the test questions with the run's best checkpoint (lowest"
  echo "validation loss; \"best step\" is its step) by \`attnlab eval --split test --json\`. \"most frequent noun\" is the"
  echo "accuracy on the same questions of answering the document's most frequent noun (no reading of the query)."
  echo "Validation accuracy is the last validation of the run; \"steps to 90%\" the first validation step at which it"
  echo "reached 90% (– if it never did). Wall time depends on the machine and on whatever else ran on it."
  echo
  echo "| run | test accuracy | most frequent noun | valid accuracy | steps to 90% | best step | steps | wall time (s) | parameters |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for config in "${configs[@]}"; do
    name=$(basename "$config" .yaml)
    eval_json="$out/$name.eval.json"
    summarize "$name"
    parameters=$(parameters_of "$name")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
      "$(number '.accuracy * 100' "$eval_json" '%.1f%%')" \
      "$(number '.frequency_baseline * 100' "$eval_json" '%.1f%%')" \
      "$(number '.valid.accuracy * 100' "$out/$name.summary.json" '%.1f%%')" \
      "$(number '.to90' "$out/$name.summary.json" '%d')" \
      "$(number '.step' "$eval_json" '%d')" \
      "$(number '.step' "$out/$name.summary.json" '%d')" \
      "$(number '.elapsed' "$out/$name.summary.json" '%.0f')" \
      "${parameters:-–}"
  done
  echo
  echo "Validation curves: [curves.svg](curves.svg)."
} > "$out/compare.md"
else
{
  echo "# Comparison: $budget_text"
  echo
  sed -n 2p "$out/made-by.txt"
  echo "Trained with \`attnlab train\`, evaluated on the test split with the run's best checkpoint (lowest validation"
  echo "loss; greedy unless the config's decode.beam says otherwise). \"steps\" is the last step trained. Validation"
  echo "exact match is the last validation of the run (on train.valid_samples sentences);"
  echo "\"steps to 90%\" is the first validation step at which it reached 90% (– if it never did)."
  echo "Entropy: mean entropy of the attention rows in nats, lower = sharper. Wall time and tokens/s depend on the"
  echo "machine and on whatever else ran on it; the other columns do not (with train.threads=1 they repeat exactly)."
  echo
  echo "| run | test exact match | BLEU | chrF | valid exact match | steps to 90% | steps | wall time (s) | tokens/s | parameters | entropy encoder | entropy decoder | entropy cross |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for config in "${configs[@]}"; do
    name=$(basename "$config" .yaml)
    eval_json="$out/$name.eval.json"
    summarize "$name"
    parameters=$(parameters_of "$name")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
      "$(number '.exact_match * 100' "$eval_json" '%.1f%%')" \
      "$(number '.bleu' "$eval_json" '%.1f')" \
      "$(number '.chrf' "$eval_json" '%.1f')" \
      "$(number '.valid.exact_match * 100' "$out/$name.summary.json" '%.1f%%')" \
      "$(number '.to90' "$out/$name.summary.json" '%d')" \
      "$(number '.step' "$out/$name.summary.json" '%d')" \
      "$(number '.elapsed' "$out/$name.summary.json" '%.0f')" \
      "$(number '.train.tokens_per_s' "$out/$name.summary.json" '%.0f')" \
      "${parameters:-–}" \
      "$(number '.attention_entropy.encoder' "$eval_json" '%.2f')" \
      "$(number '.attention_entropy.decoder' "$eval_json" '%.2f')" \
      "$(number '.attention_entropy.cross' "$eval_json" '%.2f')"
  done
  echo
  echo "Validation curves: [curves.svg](curves.svg)."
} > "$out/compare.md"
fi

# ---- The curves: one polyline per run, validation exact match (left) and validation loss (right, log scale: the
# losses run from ~4 down to ~0.05, and the differences that remain are in the last factor of ten) by step
for config in "${configs[@]}"; do
  name=$(basename "$config" .yaml)
  jq -r --arg name "$name" 'select(.type == "valid") | "\($name) \(.step) \(.exact_match // .accuracy // 0) \(.loss)"' \
    "$out/runs/$name/metrics.jsonl"
done | awk -v title="Validation curves, $budget_text" -v measure="$([ "$task" = cloze ] && echo accuracy || echo "exact match")" '
  { run[NR] = $1; step[NR] = $2; em[NR] = $3; loss[NR] = $4
    if (!($1 in order)) { order[$1] = ++runs; names[runs] = $1 }
    if ($2 > max_step) max_step = $2
    if ($4 > max_loss) max_loss = $4
    if ($4 > 0 && (min_loss == "" || $4 < min_loss)) min_loss = $4 }
  function x(s, left) { return left + 50 + (max_step > 0 ? s / max_step : 0) * 330 }
  function y(v, top)  { return 290 - v * 240 }
  function loss_fraction(l) {  # where loss l sits between min_loss (0) and max_loss (1) on a log scale
    if (l <= min_loss || max_loss <= min_loss) return 0
    return (log(l) - log(min_loss)) / (log(max_loss) - log(min_loss))
  }
  function panel(left, label, top_value, k,   t, v) {
    printf "<rect x=\"%d\" y=\"50\" width=\"330\" height=\"240\" fill=\"none\" stroke=\"#999\"/>\n", left + 50
    printf "<text x=\"%d\" y=\"40\" font-size=\"13\">%s</text>\n", left + 50, label
    for (t = 0; t <= 4; t++) {
      v = t / 4
      printf "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%s</text>\n", left + 45, y(v) + 3, \
             (k == "em" ? sprintf("%d%%", v * 100) : sprintf("%.3g", exp(log(min_loss) + v * (log(max_loss) - log(min_loss)))))
      printf "<text x=\"%.1f\" y=\"305\" font-size=\"10\" text-anchor=\"middle\">%d</text>\n", x(v * max_step, left), v * max_step
    }
    printf "<text x=\"%d\" y=\"322\" font-size=\"11\" text-anchor=\"middle\">step</text>\n", left + 215
  }
  END {
    colors = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #000000 #aec7e8"
    split(colors, color, " ")
    height = 350 + 18 * runs
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"%d\" font-family=\"sans-serif\">\n", height
    printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
    printf "<text x=\"400\" y=\"20\" font-size=\"15\" text-anchor=\"middle\">%s</text>\n", title
    panel(0, measure " (validation)", 1, "em")
    if (min_loss == "") min_loss = max_loss = 1
    panel(400, "loss (validation, log scale)", max_loss, "loss")
    for (r = 1; r <= runs; r++) {
      c = color[(r - 1) % 12 + 1]
      for (side = 0; side <= 1; side++) {
        points = ""
        for (i = 1; i <= NR; i++) if (run[i] == names[r]) {
          v = side == 0 ? em[i] : loss_fraction(loss[i])
          points = points sprintf("%.1f,%.1f ", x(step[i], side * 400), y(v))
        }
        printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n", c, points
      }
      printf "<line x1=\"60\" x2=\"90\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n", 335 + 18 * r, 335 + 18 * r, c
      printf "<text x=\"100\" y=\"%d\" font-size=\"12\">%s</text>\n", 339 + 18 * r, names[r]
    }
    print "</svg>"
  }' > "$out/curves.svg"

echo "compare.sh: wrote $out/compare.md and $out/curves.svg" >&2
cat "$out/compare.md"
