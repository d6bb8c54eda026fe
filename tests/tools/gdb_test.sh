#!/usr/bin/env bash
# gdb_test.sh — tools/gdb/attnlab_printers.py makes `print` show a tensor's shape and numbers: gdb stops
# tests/tools/gdb_tensor_example.cpp (built -g -O0) at its marked line and prints its tensors. Skips (77) without gdb.
#   tests/tools/gdb_test.sh PROGRAM SOURCE_DIR
set -euo pipefail
program="$1"; source_dir="$2"
command -v gdb >/dev/null || { echo "gdb is not installed: skipping"; exit 77; }
line=$(grep -n 'gdb stops here' "$source_dir/tests/tools/gdb_tensor_example.cpp" | cut -d: -f1)
cd "$source_dir"   # the gdbinit sources tools/gdb/attnlab_printers.py relative to the project's root
output=$(gdb -batch -nx -x tools/gdb/gdbinit -ex "break gdb_tensor_example.cpp:$line" -ex run \
             -ex "print x" -ex "print W" -ex "print y" -ex "print big" -ex "print shape" -ex "print empty" \
             -ex "print *y.node_._M_ptr" "$program" 2>&1)
echo "$output"
expect() {
  grep -qF -- "$1" <<< "$output" || { echo "FAIL: gdb's output lacks: $1" >&2; exit 1; }
}
expect '= Tensor [2, 3], float32 = {1, 2, 3, 4, 5, 6}'
expect '= Tensor [3, 2], float32, requires_grad = {1, 0, 0, 1, 1, 1}'
expect '= Tensor [2, 2], float32, requires_grad, op matmul = {4, 5, 10, 11}'
expect '= Tensor [4, 5, 6], float32 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, … 108 more}'
expect '= Shape [2, 2]'
expect '= Tensor (empty handle)'
expect '= TensorNode [2, 2], float32, requires_grad, op matmul = {4, 5, 10, 11}'
echo "gdb pretty-printers: OK"
