// check.cpp — sinusoidal_positions against the library's PositionalEncoding::sinusoidal_table (nn/embedding.h).
//
// The first case, 4 positions of d_model = 6, is not square, so a table built [d_model, length] fails on its
// shape. On it the check also works out what each usual mistake gives (sin and cos swapped, the exponent i/d or
// c/d, 10000^(…) multiplied, positions counted from 1) and names the one yours matches.
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

// The table with the formula's pieces chosen: the exponent's numerator for column c (2i is right), the angle from
// t and w = 10000^(numerator/d_model) (t / w is right), and whether the even columns take the sine (right) or
// the cosine.
Tensor table_with(int64_t length, int64_t d_model, double (*numerator)(int64_t c),
                  double (*angle)(double t, double w), bool even_is_sin) {
  Tensor table = Tensor::zeros({length, d_model});                   // [T, d_model]
  for (int64_t t = 0; t < length; ++t) {
    for (int64_t c = 0; c < d_model; ++c) {
      const double w = std::pow(10000.0, numerator(c) / static_cast<double>(d_model));
      const double a = angle(static_cast<double>(t), w);
      table.data()[t * d_model + c] = (c % 2 == 0) == even_is_sin ? std::sin(a) : std::cos(a);
    }
  }
  return table;
}

double two_i(int64_t c) { return static_cast<double>(c / 2 * 2); }
double divided(double t, double w) { return t / w; }

std::vector<Mistake> usual_mistakes(int64_t length, int64_t d_model) {
  return {
      {"sin_cos_swapped", "yours has cos in the even columns and sin in the odd ones",
       table_with(length, d_model, two_i, divided, false),
       "the even column 2i takes the sine, the odd column 2i + 1 the cosine: row 0 reads [0, 1, 0, 1, …] "
       "(sin 0 = 0, cos 0 = 1)."},
      {"exponent_i_over_d", "yours uses 10000^(i/d_model): the exponent is half what it should be",
       table_with(length, d_model, [](int64_t c) { return static_cast<double>(c / 2); }, divided, true),
       "i counts the pairs (i = c / 2), and the exponent is 2i/d_model, so that it runs from 0 to almost 1 and the "
       "wavelengths from 2π to almost 10000 · 2π."},
      {"exponent_column_over_d",
       "yours uses the column c in the exponent, 10000^(c/d_model): the odd column's angle is not its pair's",
       table_with(length, d_model, [](int64_t c) { return static_cast<double>(c); }, divided, true),
       "both columns of pair i share one angle t / 10000^(2i/d_model): with i = c / 2 the exponent is 2i/d_model "
       "for the odd column 2i + 1 too, so sin and cos of the pair are one rotation."},
      {"multiplied_not_divided", "yours multiplies t by 10000^(2i/d_model) instead of dividing by it",
       table_with(length, d_model, two_i, [](double t, double w) { return t * w; }, true),
       "the angle is t / 10000^(2i/d_model) (or t · 10000^(−2i/d_model)): the frequencies fall from 1 to almost "
       "1/10000, so the later pairs turn slowly and tell apart positions far apart."},
      {"positions_from_one", "yours counts the positions from 1: row t holds position t + 1",
       PositionalEncoding::sinusoidal_table(length, d_model, 1),
       "the first position is t = 0, so row 0 is [sin 0, cos 0, …] = [0, 1, 0, 1, …]: the angle is t / …, not "
       "(t + 1) / …."},
  };
}

// A hint that says the first wrong number in words: its formula and the value it should have.
std::string first_difference(const Tensor& expected, const Tensor& yours, int64_t d_model) {
  if (all_zero(yours)) {
    return "Your table is all zeros (the shipped stub): fill in the TODO in "
           "exercises/sinusoidal_positions/exercise.cpp. " + hint;
  }
  if (!yours.defined() || yours.shape() != expected.shape()) return hint;
  for (int64_t k = 0; k < expected.numel(); ++k) {
    if (close(expected.data()[k], yours.data()[k], {1e-9, 1e-9})) continue;
    const int64_t t = k / d_model, column = k % d_model, i = column / 2;
    return "P[" + std::to_string(t) + ", " + std::to_string(column) + "] = " + (column % 2 == 0 ? "sin" : "cos") +
           "(" + std::to_string(t) + " / 10000^(" + std::to_string(2 * i) + "/" + std::to_string(d_model) +
           ")) = " + number(expected.data()[k]) + ". " + hint;
  }
  return hint;
}

void check() {
  struct Case {
    int64_t length, d_model;
  };
  bool first = true;
  for (const Case& c : {Case{4, 6}, Case{50, 16}, Case{3, 2}}) {
    const Tensor expected = PositionalEncoding::sinusoidal_table(c.length, c.d_model);   // [T, d_model]
    const Tensor yours = sinusoidal_positions(c.length, c.d_model);
    const std::string input =
        "sinusoidal_positions(" + std::to_string(c.length) + ", " + std::to_string(c.d_model) + ")";
    if (first && yours.defined() && yours.shape() == expected.shape()) {
      diagnose(expected, yours, usual_mistakes(c.length, c.d_model), {input}, {1e-9, 1e-9});
    }
    first = false;
    expect_same("the positional table", expected, yours, {1e-9, 1e-9}, {input},
                first_difference(expected, yours, c.d_model));
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("sinusoidal_positions", attnlab::exercises::hint, attnlab::exercises::check);
}
