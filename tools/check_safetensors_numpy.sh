#!/bin/sh
# check_safetensors_numpy.sh — a file attnlab writes must open in Python with nothing but numpy.
#
#   sh tools/check_safetensors_numpy.sh <write_example_safetensors executable> <work directory>
#
# Writes <work directory>/example.safetensors with the example writer (tests/tensor/write_example_safetensors.cpp),
# then reads it back with tools/read_safetensors.py --expect-example, which compares every value.
# Exit status: 0 if the values match, 1 if they do not, and 77 if numpy is missing (ctest counts 77 as
# "skipped", see SKIP_RETURN_CODE in tests/CMakeLists.txt).
# It uses /usr/bin/python3 on purpose: the python3 first on PATH may be a pyenv or virtualenv without numpy.
set -u

if [ $# -ne 2 ]; then
  echo "usage: sh $0 <write_example_safetensors executable> <work directory>" >&2
  exit 2
fi
writer=$1
workdir=$2
tools_dir=$(dirname "$0")

if ! /usr/bin/python3 -c "import numpy" >/dev/null 2>&1; then
  echo "skipped: numpy is not installed (apt-get install python3-numpy)"
  exit 77
fi

example="$workdir/example.safetensors"
"$writer" "$example" || { echo "the example writer failed" >&2; exit 1; }
/usr/bin/python3 "$tools_dir/read_safetensors.py" --expect-example "$example"
exit $?
