// The Eigen passes over all rows of the finish phase (all_rows.hpp) against Eigen's serial
// X * beta, above the parallel threshold (2 row chunks from 65536 rows). The selections over all
// rows are tested with the selection module (tests/selection/).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <random>

#include "regression/src/all_rows.hpp"

namespace {

using robustfit::regression::detail::fit_of;
using robustfit::regression::detail::residuals_of;
using robustfit::regression::detail::squared_residuals_of;
using robustfit::regression::detail::squares_of;
using robustfit::regression::detail::sum_over_row_chunks;

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

TEST(AllRows, SquaredResidualsAreTheSquaresOfTheResiduals) {
  const Eigen::Index n = 150001, p = 5;
  std::mt19937_64 rng(4);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(n, p);
  Eigen::VectorXd y(n), beta(p);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < n; ++i) y(i) = normal(rng);
  for (Eigen::Index j = 0; j < p; ++j) beta(j) = normal(rng);
  EXPECT_EQ(squared_residuals_of(X, y, beta), Eigen::VectorXd((y - X * beta).array().square()));
  EXPECT_EQ(squared_residuals_of(X, y, beta), squares_of(residuals_of(X, y, beta)));
}

// Below two chunks the serial Eigen sum bit for bit; above, the exact sum to rounding.
TEST(AllRows, SumOverRowChunks) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(1, 3);
  for (const Eigen::Index n : {Eigen::Index{1}, Eigen::Index{1000}, Eigen::Index{65535}, Eigen::Index{65536}, Eigen::Index{1000003}}) {
    Eigen::VectorXd v(n);
    for (Eigen::Index i = 0; i < n; ++i) v(i) = normal(rng);
    const double chunked = sum_over_row_chunks(static_cast<std::size_t>(n), [&](Eigen::Index b, Eigen::Index m) { return v.segment(b, m).sum(); });
    if (n < 65536) {
      EXPECT_EQ(chunked, v.sum()) << "n = " << n;
    }
    long double exact = 0;
    for (Eigen::Index i = 0; i < n; ++i) exact += v(i);
    EXPECT_NEAR(chunked, static_cast<double>(exact), 1e-12 * v.cwiseAbs().sum()) << "n = " << n;
  }
}

}  // namespace
