#!/usr/bin/env bash
# exercise.sh — check one exercise: build its check program and run it (exercises/README.md).
#
#   tools/exercise.sh NAME              check your work: exercises/NAME/exercise.cpp
#   tools/exercise.sh --answers NAME    the same check on the project's answer, exercises/NAME/answer.cpp
#   tools/exercise.sh --list            the exercises, one line each, in the course's order
#   tools/exercise.sh -j N NAME         build with N parallel jobs (default: ninja's, the cores + 2; the
#                                       environment variable CMAKE_BUILD_PARALLEL_LEVEL sets it too)
#
# The check prints "PASS NAME", or what differs (the input, expected and yours) and a hint of what to read.
# It builds in build/release (configured with the release preset first if need be) the check program and the
# library chapters it needs, no more: a few minutes the first time on 2 cores, seconds after an edit.
# Exit status: 0 PASS, 1 FAIL, 2 an unknown name or option, or a build error (shown).
set -euo pipefail
cd "$(dirname "$0")/.."

table=exercises/exercises.txt
usage() { sed -n '4,8p' "$0" | sed 's/^# \{0,1\}//'; }
names() { grep -v '^#' "$table" | awk 'NF { print $1 }'; }

# The closest of the exercise names to $1 (Levenshtein distance: the fewest one-letter edits).
closest() {
  names | awk -v word="$1" '
    function distance(a, b,    i, j, n, m, row, previous, cost, best) {
      n = length(a); m = length(b)
      for (j = 0; j <= m; j++) previous[j] = j
      for (i = 1; i <= n; i++) {
        row[0] = i
        for (j = 1; j <= m; j++) {
          cost = substr(a, i, 1) == substr(b, j, 1) ? 0 : 1
          best = previous[j - 1] + cost
          if (previous[j] + 1 < best) best = previous[j] + 1
          if (row[j - 1] + 1 < best) best = row[j - 1] + 1
          row[j] = best
        }
        for (j = 0; j <= m; j++) previous[j] = row[j]
      }
      return previous[m]
    }
    { d = distance(word, $1); if (best == "" || d < best) { best = d; name = $1 } }
    END { print name }'
}

program_suffix=""
jobs=()
case "${1:-}" in
  -j)
    [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "exercise.sh: -j needs a number of jobs ≥ 1, got '${2:-}'" >&2; exit 2; }
    jobs=(-j "$2"); shift 2 ;;
  -j*)
    [[ "${1#-j}" =~ ^[1-9][0-9]*$ ]] || { echo "exercise.sh: -j needs a number of jobs ≥ 1, got '${1#-j}'" >&2; exit 2; }
    jobs=(-j "${1#-j}"); shift ;;
esac
case "${1:-}" in
  --list)
    [ $# -eq 1 ] || { echo "exercise.sh: --list takes nothing after it" >&2; exit 2; }
    echo "exercise                chapter     what you write"
    grep -v '^#' "$table" | awk 'NF'
    echo
    echo "Start one: read and edit exercises/NAME/exercise.cpp, then run tools/exercise.sh NAME."
    exit 0 ;;
  --answers)
    [ $# -eq 2 ] || { echo "exercise.sh: --answers needs an exercise name (tools/exercise.sh --list)" >&2; exit 2; }
    program_suffix=_answer; name=$2 ;;
  -h|--help) usage; exit 0 ;;
  -*|"") usage >&2; exit 2 ;;
  *)
    [ $# -eq 1 ] || { echo "exercise.sh: one exercise at a time (tools/exercise.sh --help)" >&2; exit 2; }
    name=$1 ;;
esac

if ! names | grep -qx -- "$name"; then
  echo "exercise.sh: there is no exercise '$name'; did you mean $(closest "$name")? (tools/exercise.sh --list)" >&2
  exit 2
fi

build=build/release
target=exercise_$name$program_suffix
if [ ! -f "$build/build.ninja" ]; then
  echo "configuring $build (cmake --preset release) …"
  cmake --preset release >/dev/null
fi
echo "building $target …"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cmake --build "$build" ${jobs[@]+"${jobs[@]}"} --target "$target" >"$log" 2>&1; then
  # The compiler's messages, without ninja's progress lines and the long command line that failed.
  awk '/^\[[0-9]+\/[0-9]+\] / { next } /^FAILED: / { skip = 1; next } skip { skip = 0; next }
       /^ninja: build stopped/ { next } { print }' "$log" >&2
  file=exercises/$name/exercise.cpp
  [ -z "$program_suffix" ] || file=exercises/$name/answer.cpp
  echo "exercise.sh: $target did not build: the compiler's message above names the line (in $file, most likely)" >&2
  exit 2
fi
exec "$build/exercises/$target"
