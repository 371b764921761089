// sort_parallel against std::sort: the same values, in float and double, at sizes around the
// parallel threshold, with infinities, subnormals, extremes and signed zeros (the radix order
// puts -0 before +0: compared bit for bit against a sort that does the same).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "patterns.hpp"
#include "robustfit/selection/cpu_sort.hpp"

namespace robustfit::testing {
namespace {

template <class T>
class SortParallel : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SortParallel, Types);

// std::sort with -0 ordered before +0: a total order on non-NaN bits.
template <class T>
std::vector<T> sorted_by_std(std::vector<T> values) {
  std::sort(values.begin(), values.end(), [](T a, T b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); });
  return values;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TYPED_TEST(SortParallel, EqualsStdSort) {
  using T = TypeParam;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{65535}, std::size_t{65536},
                              std::size_t{65537}, std::size_t{300007}}) {
    for (const char* name : kPatterns) {
      const std::vector<T> v = pattern<T>(name, n);
      std::vector<T> out(n);
      selection::sort_parallel<T>(v, out);
      std::vector<T> expected = v;
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(out, expected) << name << " n=" << n;
    }
  }
}

TYPED_TEST(SortParallel, SpecialValuesBitForBit) {
  using T = TypeParam;
  using limits = std::numeric_limits<T>;
  const std::vector<T> specials = {limits::infinity(), -limits::infinity(), T(0), -T(0), limits::denorm_min(),
                                   -limits::denorm_min(), limits::min(), limits::max(), limits::lowest(), T(1), T(-1)};
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  const std::size_t n = 131072 + 17;
  std::vector<T> v(n);
  for (auto& x : v) x = gen() % 4 == 0 ? specials[gen() % specials.size()] : static_cast<T>(normal(gen));
  std::vector<T> out(n);
  selection::sort_parallel<T>(v, out);
  EXPECT_TRUE(same_bits(out, sorted_by_std(v)));
}

TYPED_TEST(SortParallel, RejectsAnOutputOfAnotherSize) {
  using T = TypeParam;
  const std::vector<T> v(10, T(1));
  std::vector<T> out(9);
  EXPECT_THROW(selection::sort_parallel<T>(v, out), std::invalid_argument);
}

}  // namespace
}  // namespace robustfit::testing
