#!/usr/bin/env bash
# include_sorting_test.sh — every file's #include lines are in clang-format's order (.clang-format: Google style,
# SortIncludes): a .cpp's own header first, then <system> headers, then "project" headers, each block sorted.
#
#   tests/build/include_sorting_test.sh ROOT          checks every .h and .cpp under ROOT/src, ROOT/tests, ROOT/web
#   tests/build/include_sorting_test.sh --self-test   proves the check fails on a file whose includes are unsorted
#   tests/build/include_sorting_test.sh --fix FILE…   sorts those files' include blocks in place
#
# Only a file's include block is given to clang-format (--lines), so the check says
# nothing about the rest of the layout (the house keeps its aligned shape comments: .clang-format says why).
# A file that is not in that order is printed with the order clang-format wants (--fix writes it). Skips (exit 77)
# without clang-format; tools/install-deps.sh installs it.
set -euo pipefail

# include_range FILE: "first:last", the file's include block — from its first #include to the last one before
# any other code (an #include under an #if further down, as in tests/tensor/test_storage.cpp, is left alone).
include_range() {
  awk '/^#include/ { if (!first) first = NR; last = NR; next }
       first && !/^[[:space:]]*$/ && !/^[[:space:]]*\/\// { exit }
       END { if (first) print first ":" last }' "$1"
}

check() {
  local root=$1 problems=0 files=0 file range
  while IFS= read -r file; do
    range=$(include_range "$file")
    [ -n "$range" ] || continue
    files=$((files + 1))
    if ! clang-format --style=file:"$root/.clang-format" --dry-run -Werror --lines="$range" "$file" >/dev/null 2>&1; then
      echo "${file#"$root"/}: includes not in clang-format's order; it wants:"
      clang-format --style=file:"$root/.clang-format" --lines="$range" "$file" | grep '^#include' | sed 's/^/    /'
      problems=$((problems + 1))
    fi
  done < <(find "$root/src" "$root/tests" "$root/web" -type f \( -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort)
  if [ "$files" -eq 0 ]; then
    echo "include sorting: no files with includes under $root" >&2
    return 2
  fi
  if [ "$problems" -gt 0 ]; then
    echo "include sorting: $problems of $files files out of order (fix: $0 --fix FILE…)"
    return 1
  fi
  echo "include sorting: $files files, every include block in clang-format's order"
}

self_test() {
  local tree
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' RETURN
  mkdir -p "$tree/src/nn"
  cp "$(dirname "$0")/../../.clang-format" "$tree/.clang-format"
  printf '#include "nn/linear.h"\n\n#include <vector>\n\n#include "autograd/ops.h"\n#include "nn/module.h"\n' \
    >"$tree/src/nn/linear.cpp"
  if ! check "$tree" >/dev/null; then
    echo "self-test: a sorted file was refused"
    return 1
  fi
  printf '#include "nn/linear.h"\n\n#include <vector>\n\n#include "nn/module.h"\n#include "autograd/ops.h"\n' \
    >"$tree/src/nn/linear.cpp"
  local report
  if report=$(check "$tree"); then
    echo "self-test: expected a failure for unsorted includes, got none"
    return 1
  fi
  grep -q "src/nn/linear.cpp: includes not in clang-format's order" <<<"$report" || {
    echo "self-test: the report does not name the file: $report"
    return 1
  }
  echo "self-test: unsorted includes are caught, naming the file"
}

if ! command -v clang-format >/dev/null; then
  echo "include sorting: clang-format is not installed (tools/install-deps.sh installs it): skipped"
  exit 77
fi
if [ "${1:-}" = "--self-test" ]; then
  self_test
elif [ "${1:-}" = "--fix" ]; then
  shift
  for file in "$@"; do
    range=$(include_range "$file")
    [ -z "$range" ] || clang-format --style=file:"$(dirname "$0")/../../.clang-format" -i --lines="$range" "$file"
  done
else
  check "${1:?usage: include_sorting_test.sh ROOT | --self-test}"
fi
