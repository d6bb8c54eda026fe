// gdb_tensor_example.cpp — a tiny program for tests/tools/gdb_test.sh: built with -g -O0, stopped at the marked line,
// and its tensors printed through tools/gdb/attnlab_printers.py.
#include <cstdio>

#include "autograd/ops.h"
#include "tensor/tensor.h"

using namespace attnlab;

int main() {
  Tensor x = Tensor::from_values({2, 3}, {1, 2, 3, 4, 5, 6});         // [2, 3]
  Tensor W = Tensor::from_values({3, 2}, {1, 0, 0, 1, 1, 1}, true);  // [3, 2]
  Tensor y = matmul(x, W);                                            // [2, 2]: {4, 5, 10, 11}
  Tensor big = Tensor::zeros({4, 5, 6});                              // [4, 5, 6]: 120 numbers
  Shape shape = y.shape();
  Tensor empty;
  std::printf("%g %zu %d %d\n", static_cast<double>(y.data()[0]), big.values().size(), shape.rank(),  // gdb stops here
              empty.defined());
  return 0;
}
