// Least squares against stats::lm.
#include <gtest/gtest.h>

#include <algorithm>

#include "reference_data.hpp"
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

}  // namespace
}  // namespace robustfit::testing
