#!/usr/bin/env bash
# include_order_test.sh — the chapters of src/ build only on the chapters below them.
#
#   tests/build/include_order_test.sh ROOT             checks ROOT/src against the order in ROOT/CMakeLists.txt
#   tests/build/include_order_test.sh --self-test      proves the check fails on a tree that breaks the order
#
# The order is the one line `set(ATTNLAB_CHAPTERS …)` of CMakeLists.txt, lowest chapter first. A file in chapter
# C may include headers of C and of the chapters listed before C; src/cli/ (the command, on top of everything) may
# include any chapter. Every other include of a project header ("chapter/file.h") that runs against the order is
# printed as FILE:LINE with both chapters, and the script exits 1. A folder of src/ that is not in the list (and
# not cli) is an error too: a new chapter must be placed in the order before it can be built on.
set -euo pipefail

check() {
  local root=$1
  local order
  order=$(sed -n 's/^set(ATTNLAB_CHAPTERS \(.*\))$/\1/p' "$root/CMakeLists.txt")
  if [ -z "$order" ]; then
    echo "include order: no line 'set(ATTNLAB_CHAPTERS …)' in $root/CMakeLists.txt" >&2
    return 2
  fi
  declare -A rank=()
  local i=0 chapter
  for chapter in $order; do rank[$chapter]=$i; i=$((i + 1)); done

  local problems=0 folder
  for folder in "$root"/src/*/; do
    folder=$(basename "$folder")
    if [ "$folder" != cli ] && [ -z "${rank[$folder]+set}" ]; then
      echo "src/$folder/: a folder that is not a chapter in CMakeLists.txt's ATTNLAB_CHAPTERS ($order)"
      problems=$((problems + 1))
    fi
  done

  local files=0 includes=0 file line number included from to
  while IFS= read -r file; do
    files=$((files + 1))
    from=${file#"$root"/src/}
    from=${from%%/*}
    [ -n "${rank[$from]+set}" ] || continue             # cli, or a folder reported above
    while IFS=: read -r number line; do
      included=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<<"$line")
      to=${included%%/*}
      [ "$to" != "$included" ] || continue               # "file.h" beside it: the same chapter
      includes=$((includes + 1))
      if [ -z "${rank[$to]+set}" ]; then
        echo "${file#"$root"/}:$number: includes \"$included\", which is in no chapter ($order)"
        problems=$((problems + 1))
      elif [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
        echo "${file#"$root"/}:$number: chapter '$from' includes \"$included\" of chapter '$to', which comes after it" \
             "($order)"
        problems=$((problems + 1))
      fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
  done < <(find "$root/src" -type f \( -name '*.h' -o -name '*.cpp' \) | sort)

  if [ "$files" -eq 0 ] || [ "$includes" -eq 0 ]; then
    echo "include order: found no files or no includes under $root/src" >&2
    return 2
  fi
  echo "include order: $files files, $includes includes across chapters, $problems against the order ($order)"
  [ "$problems" -eq 0 ]
}

if [ "${1:-}" = "--self-test" ]; then
  # A tree in the right order passes; the same tree with one include turned backwards fails and names it.
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/src/tensor" "$work/src/model" "$work/src/cli"
  echo 'set(ATTNLAB_CHAPTERS util tensor model)' >"$work/CMakeLists.txt"
  printf '#include "tensor/tensor.h"\n' >"$work/src/model/model.cpp"
  printf '#include "model/model.h"\n' >"$work/src/cli/main.cpp"
  printf '#include <vector>\n#include "tensor/shape.h"\n' >"$work/src/tensor/tensor.h"
  check "$work" >/dev/null || { echo "self-test: a tree in order was refused"; exit 1; }
  printf '#include <vector>\n#include "model/model.h"\n' >"$work/src/tensor/tensor.h"
  if output=$(check "$work"); then echo "self-test: tensor including model was not caught"; exit 1; fi
  grep -q "src/tensor/tensor.h:2: chapter 'tensor' includes \"model/model.h\"" <<<"$output" ||
    { echo "self-test: the message does not name the file and line: $output"; exit 1; }
  mkdir -p "$work/src/extra"
  printf '#include "tensor/tensor.h"\n' >"$work/src/extra/x.cpp"
  printf '#include "tensor/shape.h"\n' >"$work/src/tensor/tensor.h"
  if output=$(check "$work"); then echo "self-test: a folder outside the order was not caught"; exit 1; fi
  echo "self-test: a backwards include and an unplaced folder are caught, with file and line"
  exit 0
fi

check "${1:?usage: include_order_test.sh ROOT | --self-test}"
