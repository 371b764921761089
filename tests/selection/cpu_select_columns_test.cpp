// kth_smallest_many_columns against kth_smallest_many of each column (and of its absolute
// deviations from a centre) on inputs a sampled bracket can miss, below and above the bracketed
// size, over one and many row chunks; the columns kept; its errors are kth_smallest_many's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "error_of.hpp"
#include "patterns.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::testing {
namespace {

template <class T>
class KthSmallestManyColumns : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KthSmallestManyColumns, Types);

template <class T>
std::vector<std::span<const T>> spans_of(const std::vector<std::vector<T>>& columns) {
  return {columns.begin(), columns.end()};
}

template <class T>
std::vector<T> deviations(const std::vector<T>& column, T centre) {
  std::vector<T> d(column.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = std::abs(column[i] - centre);
  return d;
}

TYPED_TEST(KthSmallestManyColumns, EqualsKthSmallestManyOfEachColumnAndOfItsDeviations) {
  using T = TypeParam;
  for (const std::size_t n : {std::size_t{100}, std::size_t{4095}, std::size_t{4096}, std::size_t{65537}, std::size_t{300007}}) {
    std::vector<std::vector<T>> columns;
    for (const char* name : kPatterns) columns.push_back(pattern<T>(name, n));
    if (n == 65537)
      for (std::size_t i = 3; i < n; i += 1000) columns[0][i] = i % 3 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    const auto copy = columns;
    std::vector<T> centres;
    for (const auto& c : columns) centres.push_back(c[n / 3]);
    const std::vector<std::vector<std::size_t>> rank_sets = {{n / 2 - 1, n / 2}, {n / 2}, {0, n - 1}, {n - 1, n / 3, n / 3, 7}};
    for (const auto& ks : rank_sets) {
      const auto values = selection::kth_smallest_many_columns<T>(spans_of(columns), ks);
      const auto deviation = selection::kth_smallest_many_columns<T>(spans_of(columns), ks, centres);
      ASSERT_EQ(values.size(), columns.size());
      ASSERT_EQ(deviation.size(), columns.size());
      for (std::size_t j = 0; j < columns.size(); ++j) {
        EXPECT_EQ(values[j], selection::kth_smallest_many<T>(columns[j], ks)) << kPatterns[j] << " n=" << n;
        EXPECT_EQ(deviation[j], selection::kth_smallest_many<T>(deviations(columns[j], centres[j]), ks)) << kPatterns[j] << " n=" << n;
      }
    }
    EXPECT_EQ(columns, copy);
  }
}

// The first failing column's error, kth_smallest_many's message; bad arguments named.
TYPED_TEST(KthSmallestManyColumns, RejectsWhatKthSmallestManyRejects) {
  using T = TypeParam;
  std::vector<std::vector<T>> columns = {pattern<T>("normal", 100000), pattern<T>("ties", 100000), pattern<T>("sorted", 100000)};
  columns[1][54321] = std::numeric_limits<T>::quiet_NaN();
  columns[2][7] = std::numeric_limits<T>::quiet_NaN();
  const std::vector<std::size_t> ks = {49999, 50000};
  const std::string first = error_of([&] { selection::kth_smallest_many<T>(columns[1], ks); });
  EXPECT_NE(first.find("position 54321"), std::string::npos) << first;
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_columns<T>(spans_of(columns), ks); }), first);
  const std::vector<T> centres = {T(0), T(0), T(0)};
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_columns<T>(spans_of(columns), ks, centres); }), first);
  const std::vector<std::size_t> out_of_range = {5, 100000};
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_columns<T>(spans_of(columns), out_of_range); }),
            error_of([&] { selection::kth_smallest_many<T>(columns[0], out_of_range); }));
  columns[2].pop_back();
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_columns<T>(spans_of(columns), ks); }), "the columns differ in length");
  const std::vector<T> one_centre = {T(0)};
  columns.pop_back();
  EXPECT_EQ(error_of([&] { selection::kth_smallest_many_columns<T>(spans_of(columns), ks, one_centre); }),
            "one centre per column is needed");
  EXPECT_TRUE(selection::kth_smallest_many_columns<T>({}, ks).empty());
}

}  // namespace
}  // namespace robustfit::testing
