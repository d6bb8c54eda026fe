#!/usr/bin/env bash
# exercise_test.sh — the facts a learner relies on, for the ctest tests of exercises/CMakeLists.txt:
#
#   exercise_test.sh fails NAME PROGRAM    the shipped stub fails its check: exit status 1 (not a crash), a first
#                                          line "FAIL NAME: …", a hint, and the message that it is the stub
#   exercise_test.sh passes NAME PROGRAM   the answer passes: exit status 0 and exactly the line "PASS NAME"
#   exercise_test.sh mistake NAME M PROGRAM
#                                          answer.cpp with the usual mistake M planted (mistakes.txt) fails its
#                                          check, exit status 1, and the check names it: "  diagnosis: M"
#   exercise_test.sh list SOURCE_DIR       tools/exercise.sh --list shows every exercise; an unknown name is an
#                                          error suggesting the closest; every exercise folder has its four files,
#                                          a line in exercises.txt, a mention in exercises/README.md and on
#                                          its chapter's course page, and at
#                                          least three usual mistakes planted (exercises/NAME/mistakes.txt)
set -uo pipefail

mode=$1
case "$mode" in
  fails|passes)
    name=$2 program=$3
    output=$("$program" 2>&1); status=$?
    printf '%s\n' "$output"
    if [ "$mode" = passes ]; then
      [ "$status" -eq 0 ] || { echo "exercise_test: the answer's check exited with $status, not 0"; exit 1; }
      [ "$output" = "PASS $name" ] || { echo "exercise_test: expected exactly the line 'PASS $name'"; exit 1; }
      exit 0
    fi
    complain() { echo "exercise_test: $*"; exit 1; }
    [ "$status" -eq 1 ] || complain "the stub's check exited with $status, not 1 (a crash, or it passed)"
    head -n 1 <<<"$output" | grep -q "^FAIL $name: " || complain "the first line is not 'FAIL $name: …'"
    grep -q '^  hint: ' <<<"$output" || complain "no hint"
    grep -q 'shipped stub' <<<"$output" || complain "the hint does not say that this is the shipped stub"
    exit 0 ;;
  mistake)
    name=$2 mistake=$3 program=$4
    output=$("$program" 2>&1); status=$?
    printf '%s\n' "$output"
    complain() { echo "exercise_test: with the mistake '$mistake' planted, $*"; exit 1; }
    [ "$status" -eq 1 ] || complain "the check exited with $status, not 1 (a crash, or it passed)"
    head -n 1 <<<"$output" | grep -q "^FAIL $name: " || complain "the first line is not 'FAIL $name: …'"
    sed -n 2p <<<"$output" | grep -qx "  diagnosis: $mistake" ||
      complain "the second line is not '  diagnosis: $mistake' (the check does not name it)"
    grep -q '^  hint: ' <<<"$output" || complain "no hint"
    exit 0 ;;
  list)
    source_dir=$2
    cd "$source_dir" || exit 1
    problems=0
    problem() { echo "exercise_test: $*"; problems=$((problems + 1)); }
    listed=$(grep -v '^#' exercises/exercises.txt | awk 'NF { print $1 }')
    list=$(tools/exercise.sh --list) || problem "tools/exercise.sh --list failed"
    printf '%s\n' "$list"
    for name in $listed; do
      grep -q "^$name " <<<"$list" || problem "--list does not show $name"
      for file in exercise.h exercise.cpp answer.cpp check.cpp; do
        [ -f "exercises/$name/$file" ] || problem "exercises/$name/$file is missing"
      done
      grep -q "tools/exercise.sh $name\b" "exercises/$name/exercise.cpp" ||
        problem "exercises/$name/exercise.cpp does not say how to check it (tools/exercise.sh $name)"
      grep -q "\`$name\`" exercises/README.md || problem "exercises/README.md does not mention \`$name\`"
      chapter=$(grep -v '^#' exercises/exercises.txt | awk -v n="$name" '$1 == n { print $2 }')
      grep -q "tools/exercise.sh $name\`" docs/course/[0-9][0-9]-"$chapter".md 2>/dev/null ||
        problem "the course page of chapter $chapter (docs/course/NN-$chapter.md) does not offer the exercise $name"
      planted=$(grep -c '^mistake: ' "exercises/$name/mistakes.txt" 2>/dev/null)
      [ "${planted:-0}" -ge 3 ] ||
        problem "exercises/$name/mistakes.txt plants ${planted:-no} usual mistakes; each exercise needs three or more"
    done
    for folder in exercises/*/; do
      name=$(basename "$folder")
      [ "$name" = support ] && continue
      grep -qx "$name" <<<"$listed" || problem "exercises/$name/ has no line in exercises/exercises.txt"
    done
    message=$(tools/exercise.sh softmax_backwrd 2>&1); status=$?
    printf '%s\n' "$message"
    [ "$status" -eq 2 ] || problem "an unknown name exited with $status, not 2"
    grep -q "did you mean softmax_backward?" <<<"$message" || problem "an unknown name does not suggest the closest"
    tools/exercise.sh --answers >/dev/null 2>&1 && problem "--answers without a name did not fail"
    message=$(tools/exercise.sh -j none masks 2>&1); status=$?
    [ "$status" -eq 2 ] && grep -q -- "-j needs a number of jobs" <<<"$message" ||
      problem "-j with no number exited with $status and said: $message"
    [ "$problems" -eq 0 ] || exit 1
    echo "tools/exercise.sh --list, its suggestion and every exercise folder: fine"
    exit 0 ;;
  *) echo "exercise_test.sh: unknown mode '$mode'"; exit 2 ;;
esac
