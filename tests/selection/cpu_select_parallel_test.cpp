// kth_smallest_parallel against std::nth_element on inputs a sampled bracket can miss, at sizes
// around the parallel thresholds, in float and double; its errors are kth_smallest's.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_of.hpp"
#include "patterns.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::testing {
namespace {

template <class T>
class KthSmallestParallel : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KthSmallestParallel, Types);

template <class T>
T nth_element_of(std::vector<T> values, std::size_t k) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

TYPED_TEST(KthSmallestParallel, EqualsNthElement) {
  using T = TypeParam;
  for (const std::size_t n : kParallelSizes) {
    for (const char* name : kPatterns) {
      const std::vector<T> v = pattern<T>(name, n);
      for (const std::size_t k : {std::size_t{0}, std::size_t{1}, n / 100, n / 2, n / 2 + 1, n - 1 - n / 100, n - 1}) {
        EXPECT_EQ(selection::kth_smallest_parallel<T>(v, k), nth_element_of(v, k)) << name << " n=" << n << " k=" << k;
      }
    }
  }
}

TYPED_TEST(KthSmallestParallel, EqualsNthElementWithInfinitiesAndSignedZeros) {
  using T = TypeParam;
  const std::size_t n = 200000;
  std::vector<T> v = pattern<T>("ties", n);
  const T inf = std::numeric_limits<T>::infinity();
  for (std::size_t i = 0; i < n; i += 7) v[i] = i % 2 ? -T(0) : T(0);
  for (std::size_t i = 3; i < n; i += 1000) v[i] = i % 3 ? inf : -inf;
  for (const std::size_t k : {std::size_t{0}, std::size_t{50}, n / 7, n / 2, n - 100, n - 1})
    EXPECT_EQ(selection::kth_smallest_parallel<T>(v, k), nth_element_of(v, k)) << "k=" << k;
}

TYPED_TEST(KthSmallestParallel, EveryRankOfASmallInput) {
  using T = TypeParam;
  const std::vector<T> v = pattern<T>("ties", 300);
  std::vector<T> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 0; k < v.size(); ++k) EXPECT_EQ(selection::kth_smallest_parallel<T>(v, k), sorted[k]) << k;
}


TYPED_TEST(KthSmallestParallel, RejectsWhatKthSmallestRejectsWithItsMessage) {
  using T = TypeParam;
  for (const std::size_t nan_at : {std::size_t{0}, std::size_t{54321}, std::size_t{99999}}) {
    std::vector<T> v = pattern<T>("normal", 100000);
    v[nan_at] = std::numeric_limits<T>::quiet_NaN();
    const std::string serial = error_of([&] { selection::kth_smallest<T>(v, 50000); });
    EXPECT_NE(serial.find("NaN (at 0-based position " + std::to_string(nan_at) + ")"), std::string::npos) << serial;
    EXPECT_EQ(error_of([&] { selection::kth_smallest_parallel<T>(v, 50000); }), serial);
  }
  const std::vector<T> v = pattern<T>("normal", 100000);
  const std::string out_of_range = error_of([&] { selection::kth_smallest_parallel<T>(v, 100000); });
  EXPECT_EQ(out_of_range, error_of([&] { selection::kth_smallest<T>(v, 100000); }));
  EXPECT_NE(out_of_range.find("rank k = 100000"), std::string::npos) << out_of_range;
  EXPECT_EQ(error_of([] { selection::kth_smallest_parallel<T>({}, 0); }), "cannot select from an empty input");
}

}  // namespace
}  // namespace robustfit::testing
