#!/usr/bin/env bash
# coverage.sh — branch coverage of every reader of outside input and of serve's request path, measured with gcov.
#
#   tools/coverage.sh                  build the coverage preset (build/coverage: GCC, -O1 --coverage), run the tests
#                                      that exercise the readers and the server, and report
#   tools/coverage.sh --tests REGEX    run the ctest tests whose names match REGEX instead (ctest -R)
#   tools/coverage.sh --report-only    no build, no tests: report the counters the last run left in build/coverage
#
# The files measured (docs/guide/reliability.md, "Coverage"): the readers — safetensors, the checkpoint (metadata
# included), the YAML config, the corpus (TSV and parallel text), alignments (.align, .tags), the tokenizers (word,
# char, sentencepiece models) and the language model's text reader — and serve's request path (src/cli/serve/:
# http_server, request_checks, explorer_api, contrast_api, answer_budget).
# Prints one row per file: lines %, branches % as gcov counts them (raw), and branches % without the branches gcovr's
# --exclude-throw-branches and --exclude-unreachable-branches leave out (the guide says which and why); then each
# group's total. Writes build/coverage/coverage.html (every line and branch, with the exclusions) and
# build/coverage/coverage-raw.json, coverage.json (the figures). Installs gcovr (Debian's package) if missing.
# Takes about 10 minutes on 2 cores to build from a fresh clone, and 6–8 minutes to test. Not part of the test suite.
# Exits non-zero if a test failed (the report is still written: it measured what ran).
set -euo pipefail
cd "$(dirname "$0")/.."

# What the default run exercises: the doctest suites of the chapters that hold readers and of the instruments that
# load runs, the command's end-to-end scripts (bad files on the command line), and every serve test with its fixture.
tests='^(tensor/test_safetensors|train/|run/|data/|gpt/test_|cloze/|lab/|inspect/|cli\.(end_to_end|generate|align|intervene)$|explorer\.runs$|serve\.|inspect\.language_model$)'
default_tests=1
report_only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tests) tests=${2:?--tests needs a regular expression (ctest -R)}; default_tests=""; shift 2 ;;
    --report-only) report_only=1; shift ;;
    -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;   # the comment block above
    *) echo "coverage.sh: unknown option '$1' (use --tests REGEX, --report-only or --help)" >&2; exit 2 ;;
  esac
done

# The files measured, by group (paths under the repository; text_blocks is in src/gpt/, the language model's chapter).
readers='src/tensor/safetensors\.cpp|src/train/checkpoint\.cpp|src/run/config_(io|table)\.cpp|src/data/corpus\.cpp'
readers+='|src/data/alignment\.cpp|src/data/tokenizers/(tokenizer|word_tokenizer|char_tokenizer|sentencepiece_tokenizer)\.cpp'
readers+='|src/(gpt|data)/text_blocks\.cpp'
request_path='src/cli/serve/(http_server|request_checks|explorer_api|contrast_api|answer_budget)\.cpp'
out=build/coverage

# gcovr, as tools/install-deps.sh installs packages: only when dpkg says it is missing, through sudo when not root.
if [ "$(dpkg-query -W -f='${Status}' gcovr 2>/dev/null || true)" != "install ok installed" ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
  echo "coverage.sh: installing gcovr"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends gcovr
fi

status=0
if [ -z "$report_only" ]; then
  tools/install-deps.sh
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros}"
  cmake --preset coverage >/dev/null
  cmake --build --preset coverage -j "$(nproc)"     # attnlab_tests and attnlab_cli only (the preset's targets)
  find "$out" -name '*.gcda' -delete                # counters from this run alone
  if [ -n "$default_tests" ]; then
    # serve's tests time their answers (fair work, a crowd, stopping): under the instrumented build beside other
    # tests they time out, and a server killed by ctest writes no counters. So they run after the rest, one at a time
    # (with their fixture, explorer.runs), with the explorer's contrast under serve in headless Chromium
    # (browser.explorer_lab; it skips without Chromium).
    ctest --preset coverage -R "$tests" -E '^(serve\.|explorer\.runs$)' -j "$(nproc)" || status=$?
    ctest --preset coverage -R '^(serve\.|browser\.explorer_lab$)' -j 1 || status=$?
  else
    ctest --preset coverage -R "$tests" -j "$(nproc)" || status=$?
  fi
  [ "$status" -eq 0 ] || echo "coverage.sh: some tests failed (above); the figures below count what did run"
fi
if [ -z "$(find "$out" -name '*.gcda' -print -quit 2>/dev/null)" ]; then
  echo "coverage.sh: no counters in $out (*.gcda): run without --report-only first" >&2
  exit 2
fi

# Two passes of gcovr over the same counters: raw, and without throw and unreachable branches (the HTML's figures).
# The float64 copies of the library (attnlab_<chapter>64, for the gradient checks) run in no test here: their objects,
# never executed, would merge zero counts and unmarked exception edges into the float32 build's figures.
gcovr_common=(--root . --object-directory "$out" --filter "($readers|$request_path)$" -j "$(nproc)"
              --exclude-directories '.*64\.dir')
gcovr "${gcovr_common[@]}" --json-summary "$out/coverage-raw.json"
gcovr "${gcovr_common[@]}" --exclude-throw-branches --exclude-unreachable-branches \
      --json-summary "$out/coverage.json" --html-details "$out/coverage.html"

python3 - "$out/coverage-raw.json" "$out/coverage.json" "$readers" "$request_path" <<'EOF'
import json, re, sys
raw, kept = (json.load(open(p))["files"] for p in sys.argv[1:3])
groups = [("readers", re.compile(f"({sys.argv[3]})$")), ("request path", re.compile(f"({sys.argv[4]})$"))]
kept = {f["filename"]: f for f in kept}
def percent(covered, total):
    return f"{100.0 * covered / total:5.1f}" if total else "    -"
print(f"{'file':50} {'lines %':>8} {'branches % raw':>16} {'branches % kept':>17}")
for name, pattern in groups:
    rows = sorted((f for f in raw if pattern.search(f["filename"])), key=lambda f: f["filename"])
    sums = [0] * 6
    for f in rows:
        k = kept[f["filename"]]
        numbers = [f["line_covered"], f["line_total"], f["branch_covered"], f["branch_total"],
                   k["branch_covered"], k["branch_total"]]
        sums = [a + b for a, b in zip(sums, numbers)]
        below = "  < 90" if k["branch_total"] and k["branch_covered"] < 0.9 * k["branch_total"] else ""
        print(f"{f['filename']:50} {percent(*numbers[0:2]):>8} "
              f"{percent(*numbers[2:4]):>7} {numbers[2]:>4}/{numbers[3]:<4}"
              f"{percent(*numbers[4:6]):>7} {numbers[4]:>4}/{numbers[5]:<4}{below}")
    print(f"{'  all ' + name + f' ({len(rows)} files)':50} {percent(*sums[0:2]):>8} "
          f"{percent(*sums[2:4]):>7} {sums[2]:>4}/{sums[3]:<4}{percent(*sums[4:6]):>7} {sums[4]:>4}/{sums[5]:<4}")
EOF
echo "coverage.sh: every line and branch in $out/coverage.html"
exit "$status"
