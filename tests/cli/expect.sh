# expect.sh — sourced by the command-line tests (cli_test.sh, align_test.sh, intervene_test.sh): a command's
# outcome, counted into the caller's `passes` and `failures`.
# expect_error "what" "message fragment" command…: exit code 1 (a handled error, not a crash) and, as the last
# line on stderr (progress logs may come before it), one "attnlab: …" message containing the fragment.
expect_error() {
  local what=$1 fragment=$2; shift 2
  "$@" > out.txt 2> err.txt; local code=$?
  local last; last=$(tail -n 1 err.txt)
  if [ "$code" -eq 1 ] && [[ "$last" == "attnlab: "* ]] && [[ "$last" == *"$fragment"* ]]; then
    passes=$((passes + 1))
  else
    failures=$((failures + 1))
    echo "FAIL: $what: exit $code, stderr:"; sed 's/^/    /' err.txt
  fi
}
expect_ok() {
  local what=$1; shift
  if "$@" > out.txt 2> err.txt; then passes=$((passes + 1)); else
    failures=$((failures + 1)); echo "FAIL: $what (exit $?):"; sed 's/^/    /' err.txt; fi
}
# check "what" condition…: the condition (a command) must succeed (its output is dropped).
check() {
  local what=$1; shift
  if "$@" > /dev/null; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $what"; fi
}
