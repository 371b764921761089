// The univariate LMS location (shortest window of h values): the bracketed search that the
// LMS refinement uses must return exactly what the full sort returns, ties included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "regression/src/univariate.hpp"

namespace robustfit::regression::detail {
namespace {

// The reference: every window of h consecutive sorted values, the first of the shortest.
ShortestWindow brute_force(std::vector<double> values, std::size_t h) {
  std::sort(values.begin(), values.end());
  ShortestWindow best{0, std::numeric_limits<double>::infinity()};
  for (std::size_t j = 0; j + h <= values.size(); ++j) {
    const double half = (values[j + h - 1] - values[j]) / 2;
    if (half < best.half_width) best = {values[j] + half, half};
  }
  return best;
}

std::vector<double> draw(std::mt19937_64& random, std::size_t n, int kind) {
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int> few(0, 4);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == 0) v[i] = normal(random);
    else if (kind == 1) v[i] = few(random);  // heavy ties: several windows equally short
    else v[i] = i % 3 == 0 ? 1e6 + normal(random) : normal(random);  // a far cluster
  }
  return v;
}

TEST(ShortestWindow, InPlaceMatchesBruteForce) {
  std::mt19937_64 random(7);
  for (std::size_t n : {1, 2, 3, 10, 101, 1000})
    for (int kind = 0; kind < 3; ++kind)
      for (std::size_t h : {std::size_t{1}, (n + 1) / 2, n}) {
        std::vector<double> v = draw(random, n, kind);
        const ShortestWindow want = brute_force(v, h);
        const ShortestWindow got = shortest_window_inplace(v, h);
        EXPECT_EQ(got.center, want.center);
        EXPECT_EQ(got.half_width, want.half_width);
      }
}

TEST(ShortestWindow, BelowABoundIsExactlyTheFullSearch) {
  std::mt19937_64 random(11);
  for (std::size_t n : {3, 8, 51, 400, 5000})
    for (int kind = 0; kind < 3; ++kind)
      for (std::size_t h : {(n + 1) / 2, n / 2 + 1, (3 * n) / 4, n - 1, std::size_t{2}})
        for (double factor : {0.5, 0.999, 1.0, 1.001, 2.0, 1e9}) {
          if (h == 0 || h > n) continue;
          std::vector<double> v = draw(random, n, kind);
          const ShortestWindow want = brute_force(v, h);
          const double bound = want.half_width * factor;
          const auto got = shortest_window_below(v, h, bound);
          if (want.half_width < bound) {
            ASSERT_TRUE(got.has_value()) << "n " << n << " h " << h << " factor " << factor;
            EXPECT_EQ(got->center, want.center) << "n " << n << " h " << h << " kind " << kind;
            EXPECT_EQ(got->half_width, want.half_width);
          } else {
            EXPECT_FALSE(got.has_value()) << "n " << n << " h " << h << " factor " << factor;
          }
        }
}

TEST(ShortestWindow, BelowWithoutABoundOrWithATinyOne) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  const auto all = shortest_window_below(v, 3, std::numeric_limits<double>::infinity());
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->center, 2);
  EXPECT_EQ(all->half_width, 1);
  EXPECT_FALSE(shortest_window_below(v, 3, 0.0).has_value());
  std::vector<double> same(7, 2.5);
  const auto flat = shortest_window_below(same, 4, 1e-300);  // half width 0 is below any bound > 0
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->center, 2.5);
  EXPECT_EQ(flat->half_width, 0);
}

// The binned search (no sort of all values) against the full search, from any size on
// (binned_from = 0): normal data, heavy ties, far clusters, a sorted and a reversed order,
// outliers far out on one side, rounded values and integers (ties inside the bins the binned
// path sorts), both sides of 2h > n, bounds below, at and above the optimum.
TEST(ShortestWindow, UnsortedIsExactlyTheFullSearch) {
  std::mt19937_64 random(13);
  for (std::size_t n : {4, 9, 64, 1000, 20001, 70000})
    for (int kind = 0; kind < 8; ++kind)
      for (std::size_t h : {(n + 1) / 2, n / 2, n / 2 + 1, (3 * n) / 4, n - 1, n, std::size_t{2}})
        for (double factor : {0.5, 1.0, 1.001, std::numeric_limits<double>::infinity()}) {
          if (h < 1 || h > n) continue;
          std::vector<double> v = draw(random, n, kind % 3);
          if (kind == 3) std::sort(v.begin(), v.end());
          if (kind == 4) std::sort(v.rbegin(), v.rend());
          if (kind == 5)
            for (std::size_t i = 0; i < n; i += 5) v[i] = 1e12 * (1 + static_cast<double>(i));
          if (kind == 6)  // ties within every bin and at the windows' ends: rounded normals
            for (double& x : v) x = std::round(x * 20) / 20;
          if (kind == 7)  // integers 0 .. 300: windows' ends on long runs of equal values
            for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7919) % 301);
          const ShortestWindow want = brute_force(v, h);
          const double bound = want.half_width * factor;
          const std::vector<double> before = v;
          const auto got = shortest_window_below_unsorted(v, h, bound, 0);
          EXPECT_EQ(v, before);  // not reordered
          const std::string where = "n " + std::to_string(n) + " h " + std::to_string(h) + " kind " + std::to_string(kind) +
                                    " factor " + std::to_string(factor);
          if (want.half_width < bound) {
            ASSERT_TRUE(got.has_value()) << where;
            EXPECT_EQ(got->center, want.center) << where;
            EXPECT_EQ(got->half_width, want.half_width) << where;
          } else {
            EXPECT_FALSE(got.has_value()) << where;
          }
        }
}

TEST(ShortestWindow, UnsortedWithNonFiniteValuesIsTheFullSearch) {
  std::mt19937_64 random(5);
  std::vector<double> v = draw(random, 50000, 0);
  v[77] = std::numeric_limits<double>::infinity();
  v[78] = -std::numeric_limits<double>::infinity();
  std::vector<double> copy = v;
  const auto want = shortest_window_below(copy, 25000, std::numeric_limits<double>::infinity());
  const auto got = shortest_window_below_unsorted(v, 25000, std::numeric_limits<double>::infinity(), 0);
  ASSERT_TRUE(want && got);
  EXPECT_EQ(got->center, want->center);
  EXPECT_EQ(got->half_width, want->half_width);
}

// The scans after the sort (DeviceRowReductions feeds them the device's sorted values) against
// the direct definitions on integer data, where every sum is exact: the first window of least
// variance, its sums, the least variance.
TEST(VarianceWindows, ScansOfSortedValuesMatchTheDefinition) {
  std::mt19937_64 random(17);
  std::uniform_int_distribution<int> few(-20, 20);
  for (const std::size_t n : {1u, 2u, 7u, 300u}) {
    std::vector<double> v(n);
    for (double& x : v) x = few(random);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t h = 1; h <= n; h += std::max<std::size_t>(1, n / 7)) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", h = " + std::to_string(h));
      const double shift = 3;
      double least = std::numeric_limits<double>::infinity(), least_sum = 0;
      std::size_t start = 0;
      for (std::size_t j = 0; j + h <= n; ++j) {
        double sum = 0, squares = 0;
        for (std::size_t i = j; i < j + h; ++i) sum += sorted[i] - shift, squares += (sorted[i] - shift) * (sorted[i] - shift);
        const double ss = squares - sum * sum / static_cast<double>(h);
        if (ss < least) least = ss, least_sum = sum, start = j;
      }
      const VarianceWindowScan scan = scan_variance_windows(sorted, h, shift);
      EXPECT_EQ(scan.best_start, start);
      EXPECT_EQ(scan.best_sum, least_sum);
      EXPECT_NEAR(scan.best_ss, least, 1e-9);
      // min_window_variance sorts, then scans: the scan alone on the sorted values is the same.
      EXPECT_EQ(min_window_variance_sorted(sorted, h), min_window_variance(v, h));
      EXPECT_NEAR(min_window_variance(v, h), least / static_cast<double>(h), 1e-9);
    }
  }
}

}  // namespace
}  // namespace robustfit::regression::detail
