// test_random.cpp — the Generator's engine is MT19937-64, and its state as text reads back on any library.
#include <doctest/doctest.h>

#include <random>
#include <sstream>

#include "tensor/random.h"
#include "util/error.h"

using namespace attnlab;

TEST_CASE("MersenneTwister64 draws the numbers of std::mt19937_64, whose every bit the standard fixes") {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{20261127}}) {
    MersenneTwister64 ours(seed);
    std::mt19937_64 standard(seed);
    for (int i = 0; i < 2000; ++i) REQUIRE(ours() == standard());   // more than 312: through two regenerations
  }
}

TEST_CASE("MersenneTwister64's state is the text GCC's library writes for std::mt19937_64, and reads back") {
  MersenneTwister64 ours(7);
  std::mt19937_64 standard(7);
  for (int i = 0; i < 500; ++i) {
    ours();
    standard();
  }
  std::ostringstream ours_text, standard_text;
  ours.write(ours_text);
  standard_text << standard;
#if defined(__GLIBCXX__)   // the text of std::mt19937_64 itself is each library's own (random.h)
  CHECK(ours_text.str() == standard_text.str());
#endif
  MersenneTwister64 restored(0);
  std::istringstream in(ours_text.str());
  REQUIRE(restored.read(in));
  for (int i = 0; i < 400; ++i) REQUIRE(restored() == ours());
  std::istringstream cut("1 2 3");
  CHECK_FALSE(restored.read(cut));
}

TEST_CASE("a Generator restored from its state draws what the original draws next") {
  Generator original(3);
  original.normal();   // keeps the spare normal of the pair
  Generator restored;
  restored.set_state(original.state());
  for (int i = 0; i < 700; ++i) REQUIRE(restored.normal() == original.normal());
  CHECK_THROWS_AS(restored.set_state("1 2 3"), Error);
}
