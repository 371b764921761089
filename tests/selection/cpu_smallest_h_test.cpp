// smallest_h (serial, into caller's buffers, parallel) against a brute force: a stable sort of
// the rows by value, whose first h are the h smallest with ties by smaller row. Trimmed sums
// against the sum of the sorted values' first h. Float and double; ties, NaN, bad h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_of.hpp"
#include "patterns.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"

namespace robustfit::testing {
namespace {

template <class T>
class SmallestH : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SmallestH, Types);

template <class T>
struct Expected {
  std::vector<std::size_t> rows;
  T threshold;
};

// The rows in the order of their values, ties by smaller row.
template <class T>
std::vector<std::size_t> stable_order(const std::vector<T>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  return order;
}

template <class T>
Expected<T> brute_force(const std::vector<T>& values, std::size_t h, const std::vector<std::size_t>& order) {
  Expected<T> expected{{order.begin(), order.begin() + static_cast<std::ptrdiff_t>(h)}, values[order[h - 1]]};
  std::sort(expected.rows.begin(), expected.rows.end());
  return expected;
}

template <class T>
Expected<T> brute_force(const std::vector<T>& values, std::size_t h) {
  return brute_force(values, h, stable_order(values));
}

template <class T>
double sum_of_smallest(std::vector<T> values, std::size_t h) {
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (std::size_t i = 0; i < h; ++i) sum += static_cast<double>(values[i]);
  return sum;
}

TYPED_TEST(SmallestH, SerialMatchesBruteForceOnSmallTieHeavyInputs) {
  using T = TypeParam;
  std::mt19937_64 gen(3);
  std::vector<T> scratch;
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + gen() % 60, h = 1 + gen() % n;
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(gen() % 7) - T(3);  // many ties, and -0 / +0 below
    if (trial % 5 == 0) v[gen() % n] = -T(0);
    const Expected<T> expected = brute_force(v, h);
    const auto result = selection::smallest_h<T>(v, h);
    EXPECT_EQ(result.rows, expected.rows) << "n " << n << " h " << h;
    EXPECT_EQ(result.threshold, expected.threshold) << "n " << n << " h " << h;
    std::vector<std::size_t> rows(h);
    EXPECT_EQ(selection::smallest_h<T>(v, h, rows, scratch), expected.threshold);
    EXPECT_EQ(rows, expected.rows);
    std::vector<T> work = v;
    EXPECT_EQ(selection::trimmed_sum_inplace<T>(work, h), sum_of_smallest(v, h)) << "n " << n << " h " << h;
  }
}

TYPED_TEST(SmallestH, HSmallestSquaresOfResidualsTiesByRowOrder) {
  using T = TypeParam;
  const std::vector<T> squares = {9, 1, 1, 0.25, 9, 4};  // residuals 3, -1, 1, 0.5, -3, 2
  EXPECT_EQ(selection::smallest_h<T>(squares, 4).rows, (std::vector<std::size_t>{1, 2, 3, 5}));
  const auto tied = selection::smallest_h<T>(squares, 5);  // 9 twice: row 0 first
  EXPECT_EQ(tied.rows, (std::vector<std::size_t>{0, 1, 2, 3, 5}));
  EXPECT_EQ(tied.threshold, T(9));
}

TYPED_TEST(SmallestH, ParallelEqualsSerialAndBruteForce) {
  using T = TypeParam;
  for (const std::size_t n : {std::size_t{65535}, std::size_t{65536}, std::size_t{200003}}) {
    for (const char* name : kPatterns) {
      const std::vector<T> v = pattern<T>(name, n);
      const std::vector<std::size_t> order = stable_order(v);
      for (const std::size_t h : {std::size_t{1}, n / 2, (n + 11) / 2, n - 1, n}) {
        const Expected<T> expected = brute_force(v, h, order);
        const auto serial = selection::smallest_h<T>(v, h);
        const auto parallel = selection::smallest_h_parallel<T>(v, h);
        EXPECT_EQ(serial.rows, expected.rows) << name << " n=" << n << " h=" << h;
        EXPECT_EQ(parallel.rows, expected.rows) << name << " n=" << n << " h=" << h;
        EXPECT_EQ(serial.threshold, expected.threshold) << name << " n=" << n << " h=" << h;
        EXPECT_EQ(parallel.threshold, expected.threshold) << name << " n=" << n << " h=" << h;
        std::vector<T> work = v;
        const double inplace = selection::trimmed_sum_inplace<T>(work, h), sorted = sum_of_smallest(v, h);
        double magnitude = 0;  // rounding scales with the sum of |v|, not |sum| (normal: cancellation)
        for (const std::size_t i : expected.rows) magnitude += std::abs(static_cast<double>(v[i]));
        const double tolerance = 1e-12 * magnitude + 1e-300;
        EXPECT_NEAR(inplace, sorted, tolerance) << name << " n=" << n << " h=" << h;
        EXPECT_NEAR(selection::trimmed_sum_parallel<T>(v, h), sorted, tolerance) << name << " n=" << n << " h=" << h;
      }
    }
  }
}

TYPED_TEST(SmallestH, TiesSpanningRowChunksGoToTheSmallestRows) {
  using T = TypeParam;
  const std::size_t n = 4 * 32768 + 5;
  std::vector<T> v(n, T(1));
  for (std::size_t i = 0; i < n; i += 3) v[i] = T(0);
  for (const std::size_t h : {n / 3, n / 3 + 2, n / 2, n / 3 + 70000}) {
    const auto parallel = selection::smallest_h_parallel<T>(v, h);
    EXPECT_EQ(parallel.rows, brute_force(v, h).rows) << "h=" << h;
    EXPECT_EQ(parallel.rows, selection::smallest_h<T>(v, h).rows) << "h=" << h;
  }
}


TYPED_TEST(SmallestH, RejectsBadHAndNaNNamingThem) {
  using T = TypeParam;
  const std::vector<T> v = pattern<T>("normal", 70000);
  std::vector<T> scratch;
  for (const std::size_t h : {std::size_t{0}, std::size_t{70001}}) {
    const std::string expected = "h = " + std::to_string(h) + " is out of range for n = 70000 values (expected 1..70000)";
    EXPECT_EQ(error_of([&] { selection::smallest_h<T>(v, h); }), expected);
    EXPECT_EQ(error_of([&] { selection::smallest_h_parallel<T>(v, h); }), expected);
    EXPECT_EQ(error_of([&] { selection::trimmed_sum_parallel<T>(v, h); }), expected);
    std::vector<T> work = v;
    EXPECT_EQ(error_of([&] { selection::trimmed_sum_inplace<T>(work, h); }), expected);
  }
  std::vector<std::size_t> short_rows(3);
  EXPECT_EQ(error_of([&] { selection::smallest_h<T>(v, 4, short_rows, scratch); }),
            "smallest_h: the output holds 3 rows, expected h = 4");
  std::vector<T> with_nan = v;
  with_nan[65537] = std::numeric_limits<T>::quiet_NaN();
  const std::string nan = "input holds NaN (at 0-based position 65537)";
  EXPECT_EQ(error_of([&] { selection::smallest_h<T>(with_nan, 10); }), nan);
  EXPECT_EQ(error_of([&] { selection::smallest_h_parallel<T>(with_nan, 10); }), nan);
  EXPECT_EQ(error_of([&] { selection::trimmed_sum_parallel<T>(with_nan, 10); }), nan);
  EXPECT_EQ(error_of([] { selection::smallest_h_parallel<T>({}, 1); }), "cannot select from an empty input");
}

}  // namespace
}  // namespace robustfit::testing
