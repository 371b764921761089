// Least squares against stats::lm, and the trimmed-sum identity against sorting.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "reference_data.hpp"
#include "regression/src/least_squares.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {
namespace {

TEST(LeastSquares, MatchesLmOnStackloss) {
  const auto design = load_design("stackloss", "stack.loss");
  const auto r = load_fixture("stackloss_lm.json");
  const auto fit = regression::fit_ls(design.X, design.y);
  const Eigen::VectorXd expected = coefficients_of(r["coefficients"]);
  for (Eigen::Index j = 0; j < expected.size(); ++j)
    EXPECT_NEAR(fit.coefficients(j), expected(j), 1e-10 * std::abs(expected(j)));
  EXPECT_NEAR(fit.scale, r["sigma"].get<double>(), 1e-10);
  EXPECT_NEAR(fit.r_squared, r["r_squared"].get<double>(), 1e-12);
  EXPECT_EQ(std::count(fit.outlier.begin(), fit.outlier.end(), true), 0);
}

TEST(TrimmedSum, EqualsSumOfTheHSmallestWithTies) {
  std::mt19937_64 gen(3);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + gen() % 60;
    std::vector<double> v(n);
    for (auto& x : v) x = static_cast<double>(gen() % 7);  // many ties
    const std::size_t h = 1 + gen() % n;
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    double expected = 0;
    for (std::size_t i = 0; i < h; ++i) expected += sorted[i];
    EXPECT_EQ(regression::detail::trimmed_sum_inplace(v, h), expected) << "n " << n << " h " << h;
  }
}

TEST(SmallestH, PicksTheHSmallestSquaresTiesByRowOrder) {
  Eigen::VectorXd r(6);
  r << 3, -1, 1, 0.5, -3, 2;
  const auto subset = regression::detail::smallest_h(r, 4);
  EXPECT_EQ(subset.rows, (std::vector<std::size_t>{1, 2, 3, 5}));
  EXPECT_DOUBLE_EQ(subset.objective, 1 + 1 + 0.25 + 4);
  const auto tied = regression::detail::smallest_h(r, 5);  // |3| twice: row 0 first
  EXPECT_EQ(tied.rows, (std::vector<std::size_t>{0, 1, 2, 3, 5}));
}

}  // namespace
}  // namespace robustfit::testing
