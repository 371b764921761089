// The Eigen passes over all rows of the finish phase (all_rows.hpp) against Eigen's serial
// X * beta, above the parallel threshold (2 row chunks from 65536 rows). The selections over all
// rows are tested with the selection module (tests/selection/).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <random>

#include "regression/src/all_rows.hpp"

namespace {

using robustfit::regression::detail::fit_of;

TEST(AllRows, FitOfIsEigensProductRowForRow) {
  const Eigen::Index n = 150001, p = 7;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n), beta(p);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < n; ++i) y(i) = normal(rng);
  for (Eigen::Index j = 0; j < p; ++j) beta(j) = normal(rng);
  const auto fit = fit_of(X, y, beta);
  const Eigen::VectorXd fitted = X * beta;
  EXPECT_EQ(fit.fitted, fitted);
  EXPECT_EQ(fit.residuals, Eigen::VectorXd(y - fitted));
}

}  // namespace
