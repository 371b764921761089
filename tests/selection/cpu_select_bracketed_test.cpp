// kth_smallest_bracketed against std::nth_element on inputs a sampled bracket can miss, below and
// above its size threshold, with one scratch vector reused across calls; input kept; its errors
// are kth_smallest's.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "error_of.hpp"
#include "patterns.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::testing {
namespace {

template <class T>
class KthSmallestBracketed : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KthSmallestBracketed, Types);

template <class T>
T nth_element_of(std::vector<T> values, std::size_t k) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

TYPED_TEST(KthSmallestBracketed, EqualsNthElementAndKeepsItsInput) {
  using T = TypeParam;
  std::vector<T> scratch;  // shared by every call, as a worker's
  for (const std::size_t n : {std::size_t{4095}, std::size_t{4096}, std::size_t{10007}, std::size_t{65536}, std::size_t{300007}}) {
    for (const char* name : kPatterns) {
      const std::vector<T> v = pattern<T>(name, n);
      const std::vector<T> copy = v;
      for (const std::size_t k : {std::size_t{0}, std::size_t{1}, n / 100, n / 2, n / 2 + 1, n - 1 - n / 100, n - 1})
        EXPECT_EQ(selection::kth_smallest_bracketed<T>(v, k, scratch), nth_element_of(v, k)) << name << " n=" << n << " k=" << k;
      EXPECT_EQ(v, copy) << name;
    }
  }
}

// Below 4096 values (C-steps on subsamples) the selection is a branch-free quickselect: every
// rank of small inputs, organ-pipe and all-equal inputs (pivots that split badly), two values.
TYPED_TEST(KthSmallestBracketed, SmallInputsEveryRank) {
  using T = TypeParam;
  std::vector<T> scratch;
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                              std::size_t{100}, std::size_t{300}, std::size_t{1501}}) {
    std::vector<std::pair<std::string, std::vector<T>>> inputs;
    for (const char* name : kPatterns) inputs.emplace_back(name, pattern<T>(name, n));
    std::vector<T> organ(n), equal(n, T(3)), two(n);
    for (std::size_t i = 0; i < n; ++i) {
      organ[i] = static_cast<T>(std::min(i, n - 1 - i));
      two[i] = static_cast<T>(i % 2);
    }
    inputs.emplace_back("organ pipe", organ);
    inputs.emplace_back("equal", equal);
    inputs.emplace_back("two values", two);
    for (const auto& [name, v] : inputs) {
      const std::vector<T> copy = v;
      const std::size_t step = n <= 100 ? 1 : n / 37;
      for (std::size_t k = 0; k < n; k += step)
        EXPECT_EQ(selection::kth_smallest_bracketed<T>(v, k, scratch), nth_element_of(v, k)) << name << " n=" << n << " k=" << k;
      EXPECT_EQ(v, copy) << name;
    }
  }
}

TYPED_TEST(KthSmallestBracketed, AnyGuessGivesTheNthElement) {
  using T = TypeParam;
  std::vector<T> scratch;
  const std::size_t n = 100003;
  for (const char* name : kPatterns) {
    const std::vector<T> v = pattern<T>(name, n);
    for (const std::size_t k : {std::size_t{0}, n / 3, n / 2, n - 1}) {
      const T expected = nth_element_of(v, k);
      const T below = nth_element_of(v, k / 2), above = nth_element_of(v, k + (n - 1 - k) / 2);
      // Tight, wide (beyond n / 8 inside), missing low, missing high, empty, inverted.
      const std::vector<std::pair<T, T>> guesses = {{expected, expected}, {below, above}, {below, below},
                                                    {above, above}, {T(1e30), T(2e30)}, {above, below}};
      for (const auto& [low, high] : guesses)
        EXPECT_EQ(selection::kth_smallest_bracketed<T>(v, k, scratch, low, high), expected) << name << " k=" << k << " guess " << low << ".." << high;
    }
  }
  std::vector<T> with_nan = pattern<T>("normal", n);
  with_nan[777] = std::numeric_limits<T>::quiet_NaN();
  EXPECT_EQ(error_of([&] { selection::kth_smallest_bracketed<T>(with_nan, n / 2, scratch, T(-1), T(1)); }),
            error_of([&] { selection::kth_smallest<T>(with_nan, n / 2); }));
}

TYPED_TEST(KthSmallestBracketed, EqualsNthElementWithInfinitiesAndSignedZeros) {
  using T = TypeParam;
  const std::size_t n = 100000;
  std::vector<T> v = pattern<T>("ties", n);
  const T inf = std::numeric_limits<T>::infinity();
  for (std::size_t i = 0; i < n; i += 7) v[i] = i % 2 ? -T(0) : T(0);
  for (std::size_t i = 3; i < n; i += 1000) v[i] = i % 3 ? inf : -inf;
  std::vector<T> scratch;
  for (const std::size_t k : {std::size_t{0}, std::size_t{50}, n / 7, n / 2, n - 100, n - 1})
    EXPECT_EQ(selection::kth_smallest_bracketed<T>(v, k, scratch), nth_element_of(v, k)) << "k=" << k;
}

// Many ranks in one bracket: close together (the LMS working set's h - k and h - 1), far apart,
// repeated and unordered, at the ends; with infinities; the input kept.
TYPED_TEST(KthSmallestBracketed, ManyEqualKthSmallestMany) {
  using T = TypeParam;
  for (const std::size_t n : {std::size_t{4095}, std::size_t{10007}, std::size_t{300007}}) {
    for (const char* name : kPatterns) {
      std::vector<T> v = pattern<T>(name, n);
      if (n == 10007)
        for (std::size_t i = 3; i < n; i += 1000) v[i] = i % 3 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
      const std::vector<T> copy = v;
      const std::vector<std::vector<std::size_t>> rank_sets = {
          {n / 2 - 500, n / 2 - 1}, {n / 2}, {0, n - 1}, {n - 1, n / 3, n / 3, 7}, {n / 100, n / 100 + 1, n / 100 + 2}};
      for (const auto& ks : rank_sets)
        EXPECT_EQ(selection::kth_smallest_many_bracketed<T>(v, ks), selection::kth_smallest_many<T>(v, ks)) << name << " n=" << n;
      EXPECT_EQ(v, copy) << name;
    }
  }
  std::vector<T> with_nan = pattern<T>("normal", 100000);
  with_nan[54321] = std::numeric_limits<T>::quiet_NaN();
  const std::vector<std::size_t> ks = {49000, 49999};
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_bracketed<T>(with_nan, ks); }),
            error_of([&] { selection::kth_smallest_many<T>(with_nan, ks); }));
  const std::vector<std::size_t> out_of_range = {5, 100000};
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_bracketed<T>(with_nan, out_of_range); }),
            error_of([&] { selection::kth_smallest_many<T>(with_nan, out_of_range); }));
}

TYPED_TEST(KthSmallestBracketed, RejectsWhatKthSmallestRejectsWithItsMessage) {
  using T = TypeParam;
  std::vector<T> scratch;
  for (const std::size_t nan_at : {std::size_t{0}, std::size_t{54321}, std::size_t{99999}}) {
    std::vector<T> v = pattern<T>("normal", 100000);
    v[nan_at] = std::numeric_limits<T>::quiet_NaN();
    const std::string serial = error_of([&] { selection::kth_smallest<T>(v, 50000); });
    EXPECT_NE(serial.find("NaN (at 0-based position " + std::to_string(nan_at) + ")"), std::string::npos) << serial;
    EXPECT_EQ(error_of([&] { selection::kth_smallest_bracketed<T>(v, 50000, scratch); }), serial);
  }
  const std::vector<T> v = pattern<T>("normal", 100000);
  EXPECT_EQ(error_of([&] { selection::kth_smallest_bracketed<T>(v, 100000, scratch); }),
            error_of([&] { selection::kth_smallest<T>(v, 100000); }));
  EXPECT_EQ(error_of([&] { selection::kth_smallest_bracketed<T>({}, 0, scratch); }), "cannot select from an empty input");
}

}  // namespace
}  // namespace robustfit::testing
