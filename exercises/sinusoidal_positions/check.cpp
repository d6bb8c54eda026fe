// check.cpp — sinusoidal_positions against the library's PositionalEncoding::sinusoidal_table (nn/embedding.h).
#include <cmath>
#include <string>
#include <vector>

#include "check.h"
#include "exercise.h"
#include "nn/embedding.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "P[t, 2i] = sin(t / 10000^(2i/d_model)) and P[t, 2i + 1] = cos(…) with the same angle: column c belongs to "
    "pair i = c / 2. The library's version is sinusoidal_table in src/nn/embedding.cpp.";

void check() {
  struct Case {
    int64_t length, d_model;
  };
  for (const Case& c : {Case{4, 6}, Case{50, 16}, Case{3, 2}}) {
    const Tensor expected = PositionalEncoding::sinusoidal_table(c.length, c.d_model);   // [T, d_model]
    const Tensor yours = sinusoidal_positions(c.length, c.d_model);
    const std::string input =
        "sinusoidal_positions(" + std::to_string(c.length) + ", " + std::to_string(c.d_model) + ")";
    std::string what_hint = hint;
    if (all_zero(yours)) {
      what_hint = "Your table is all zeros (the shipped stub): fill in the TODO in "
                  "exercises/sinusoidal_positions/exercise.cpp. " + hint;
    } else if (yours.defined() && yours.shape() == expected.shape()) {
      // Say which number is wrong in words: the first that differs, its formula and both values.
      for (int64_t k = 0; k < expected.numel(); ++k) {
        if (close(expected.data()[k], yours.data()[k], {1e-9, 1e-9})) continue;
        const int64_t t = k / c.d_model, column = k % c.d_model, i = column / 2;
        what_hint = "P[" + std::to_string(t) + ", " + std::to_string(column) + "] = " +
                    (column % 2 == 0 ? "sin" : "cos") + "(" + std::to_string(t) + " / 10000^(" +
                    std::to_string(2 * i) + "/" + std::to_string(c.d_model) + ")) = " + number(expected.data()[k]) +
                    ". " + hint;
        break;
      }
    }
    expect_same("the positional table", expected, yours, {1e-9, 1e-9}, {input}, what_hint);
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("sinusoidal_positions", attnlab::exercises::hint, attnlab::exercises::check);
}
