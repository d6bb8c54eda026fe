// write_example_safetensors.cpp — writes a small, known safetensors file for the Python check.
//
//   write_example_safetensors <file>
//
// tools/check_safetensors_numpy.sh runs this program, then has tools/read_safetensors.py open the file with
// nothing but numpy and compare every value. This shows that a file attnlab writes is a file Python reads.
// The tensors and metadata below are repeated in EXAMPLE in tools/read_safetensors.py, so change both together.
// Every value is a multiple of 1/4, which float32 stores exactly, so the comparison can be exact.
#include <cstdio>
#include <vector>

#include "tensor/safetensors.h"
#include "util/error.h"

using namespace attnlab;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_example_safetensors <file>\n");
    return 2;
  }

  std::vector<real> embedding(12);  // [3, 4]: (k - 6) / 4 for k = 0 … 11, i.e. -1.5, -1.25, …, 1.25
  for (int k = 0; k < 12; ++k) embedding[k] = static_cast<real>(k - 6) / 4;
  std::vector<real> pattern(12);  // [2, 1, 2, 3]: 1, 2, …, 12
  for (int k = 0; k < 12; ++k) pattern[k] = static_cast<real>(k + 1);

  std::vector<NamedTensor> tensors = {
      {"encoder.norm.bias", Tensor::from_values({4}, {0.5, -0.25, 2, 8})},
      {"embedding.weight", Tensor::from_values({3, 4}, embedding)},
      {"attention.pattern", Tensor::from_values({2, 1, 2, 3}, pattern)},
  };
  std::map<std::string, std::string> metadata = {{"format", "attnlab example"}, {"step", "42"}};

  try {
    save_safetensors(argv[1], tensors, metadata);
  } catch (const Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
