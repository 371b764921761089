// Elemental subset draws and enumeration.
#include <gtest/gtest.h>

#include <set>

#include "regression/src/subsets.hpp"

namespace robustfit::testing {
namespace {

using regression::detail::Random;

TEST(Subsets, EnumerationListsEveryCombinationOnce) {
  const auto all = regression::detail::enumerate_subsets(7, 3);
  ASSERT_EQ(all.cols(), 35);
  std::set<std::vector<std::int64_t>> seen;
  for (Eigen::Index j = 0; j < all.cols(); ++j) {
    std::vector<std::int64_t> s(all.col(j).data(), all.col(j).data() + 3);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()) && s[0] < s[1] && s[1] < s[2]);
    EXPECT_GE(s[0], 0);
    EXPECT_LT(s[2], 7);
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 35u);
  EXPECT_DOUBLE_EQ(regression::detail::binomial(75, 4), 1215450.0);
}

TEST(Subsets, RandomDrawsAreDistinctSortedAndReproducible) {
  Random a(9), b(9);
  const auto first = regression::detail::draw_subsets(a, 10, 4, 2000);
  const auto again = regression::detail::draw_subsets(b, 10, 4, 2000);
  EXPECT_EQ(first, again);
  std::vector<int> hits(10, 0);
  for (Eigen::Index j = 0; j < first.cols(); ++j) {
    for (Eigen::Index r = 0; r < 4; ++r) {
      ASSERT_LT(first(r, j), 10);
      ++hits[static_cast<std::size_t>(first(r, j))];
      if (r > 0) {
        EXPECT_LT(first(r - 1, j), first(r, j));
      }
    }
  }
  // Every row is drawn about 2000 * 4 / 10 = 800 times.
  for (int h : hits) EXPECT_NEAR(h, 800, 120);
}

TEST(Subsets, BoundedDrawsAreUniform) {
  Random random(5);
  std::vector<int> counts(3, 0);
  for (int i = 0; i < 30000; ++i) ++counts[random.below(3)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
}

}  // namespace
}  // namespace robustfit::testing
