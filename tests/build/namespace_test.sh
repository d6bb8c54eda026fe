#!/usr/bin/env bash
# namespace_test.sh — the code's namespaces are a form that ctags, clangd's outline and editors can read.
#
#   tests/build/namespace_test.sh ROOT          checks ROOT/src, ROOT/tests and ROOT/web
#   tests/build/namespace_test.sh --self-test   proves the check fails on a file written in the old form
#
# Every chapter but util is compiled twice, in attnlab::f32 and attnlab::f64 (src/tensor/real.h), an inline
# namespace named by the macro ATTNLAB_PRECISION. Written as the nested form `namespace attnlab::inline
# ATTNLAB_PRECISION {`, universal-ctags lists no function of the file at all (only lambdas), so "go to definition"
# and outline views that rely on ctags find nothing in src/. Written as two blocks,
#     namespace attnlab {
#     inline namespace ATTNLAB_PRECISION {
# every function is listed. The check: (1) no file uses the nested form (each is printed as FILE:LINE); (2) ctags
# lists the named functions of two files a learner opens first, src/run/trainer.cpp and src/attention/scaled_dot.cpp
# (skipped, saying so, when ctags is not installed; tools/install-deps.sh installs universal-ctags).
set -euo pipefail

nested_form='^[[:space:]]*namespace[[:space:]]+attnlab::inline'

# functions FILE: the names ctags lists as functions of FILE, lambdas left out.
functions() {
  ctags -x --c++-kinds=f --language-force=C++ "$1" 2>/dev/null | awk '{print $1}' | grep -v '^__anon' || true
}

check() {
  local root=$1 problems=0
  local hits
  hits=$(grep -rnE "$nested_form" "$root/src" "$root/tests" "$root/web" --include='*.h' --include='*.cpp' \
           --include='*.cc' 2>/dev/null | grep -v "^$root/tests/build/namespace_test.sh" || true)
  if [ -n "$hits" ]; then
    while IFS= read -r hit; do
      local where=${hit#"$root"/} rest
      rest=${where#*:}
      where="${where%%:*}:${rest%%:*}"
      echo "$where: the nested form 'namespace attnlab::inline ATTNLAB_PRECISION {' hides every function" \
           "from ctags; write 'namespace attnlab {' and 'inline namespace ATTNLAB_PRECISION {' on two lines"
      problems=$((problems + 1))
    done <<<"$hits"
  fi
  if ! command -v ctags >/dev/null; then
    echo "namespace check: ctags is not installed: the ctags half is skipped (tools/install-deps.sh installs it)"
  else
    local file
    for file in src/run/trainer.cpp src/attention/scaled_dot.cpp; do
      [ -f "$root/$file" ] || continue
      if [ -z "$(functions "$root/$file")" ]; then
        echo "$file: ctags lists none of its functions"
        problems=$((problems + 1))
      fi
    done
  fi
  if [ "$problems" -gt 0 ]; then
    echo "namespace check: $problems problem(s)"
    return 1
  fi
  echo "namespace check: no nested namespace form; ctags lists the functions it was asked about"
}

self_test() {
  local tree
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' RETURN
  mkdir -p "$tree/src/run" "$tree/tests" "$tree/web"
  local body='Tensor twice(const Tensor& x) { return add(x, x); }'
  printf 'namespace attnlab {\ninline namespace ATTNLAB_PRECISION {\n%s\n}  // namespace ATTNLAB_PRECISION\n}  // namespace attnlab\n' \
    "$body" >"$tree/src/run/trainer.cpp"
  if ! check "$tree" >/dev/null; then
    echo "self-test: the two-block form was refused"
    return 1
  fi
  printf 'namespace attnlab::inline ATTNLAB_PRECISION {\n%s\n}  // namespace attnlab::inline ATTNLAB_PRECISION\n' \
    "$body" >"$tree/src/run/trainer.cpp"
  local report
  if report=$(check "$tree"); then
    echo "self-test: expected a failure for the nested form, got none"
    return 1
  fi
  grep -q "src/run/trainer.cpp:1: the nested form" <<<"$report" || {
    echo "self-test: the report does not name the file and line: $report"
    return 1
  }
  if command -v ctags >/dev/null && ! grep -q "ctags lists none of its functions" <<<"$report"; then
    echo "self-test: ctags listed functions of the nested form, so its half of the check proves nothing: $report"
    return 1
  fi
  echo "self-test: the nested form is caught (file and line named; ctags finds no function in it)"
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
else
  check "${1:?usage: namespace_test.sh ROOT | --self-test}"
fi
