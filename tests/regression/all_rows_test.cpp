// The Eigen passes over all rows of the finish phase (all_rows.hpp) against Eigen's serial
// X * beta, above the parallel threshold (2 row chunks from 65536 rows). The selections over all
// rows are tested with the selection module (tests/selection/).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <random>

#include "regression/src/all_rows.hpp"

namespace {

using robustfit::regression::detail::Fit;
using robustfit::regression::detail::fit_into;
using robustfit::regression::detail::fit_of;
using robustfit::regression::detail::residuals_of;
using robustfit::regression::detail::squared_residuals_of;
using robustfit::regression::detail::squares_of;
using robustfit::regression::detail::sum_over_row_chunks;

// Standard normal X (n x p), y and beta from `seed`.
struct Problem {
  Eigen::MatrixXd X;
  Eigen::VectorXd y, beta;
};

Problem random_problem(Eigen::Index n, Eigen::Index p, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Problem q{Eigen::MatrixXd(n, p), Eigen::VectorXd(n), Eigen::VectorXd(p)};
  for (Eigen::Index i = 0; i < q.X.size(); ++i) q.X.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < n; ++i) q.y(i) = normal(rng);
  for (Eigen::Index j = 0; j < p; ++j) q.beta(j) = normal(rng);
  return q;
}

TEST(AllRows, FitOfIsEigensProductRowForRow) {
  const auto [X, y, beta] = random_problem(150001, 7, 3);
  const auto fit = fit_of(X, y, beta);
  const Eigen::VectorXd fitted = X * beta;
  EXPECT_EQ(fit.fitted, fitted);
  EXPECT_EQ(fit.residuals, Eigen::VectorXd(y - fitted));
}

TEST(AllRows, SquaredResidualsAreTheSquaresOfTheResiduals) {
  const auto [X, y, beta] = random_problem(150001, 5, 4);
  EXPECT_EQ(squared_residuals_of(X, y, beta), Eigen::VectorXd((y - X * beta).array().square()));
  EXPECT_EQ(squared_residuals_of(X, y, beta), squares_of(residuals_of(X, y, beta)));
}

TEST(AllRows, FitOfWithSquaresWritesSquaresOfItsResiduals) {
  const auto [X, y, beta] = random_problem(150001, 6, 6);
  Eigen::VectorXd squares;
  const auto fit = fit_of(X, y, beta, &squares);
  EXPECT_EQ(fit.residuals, fit_of(X, y, beta).residuals);
  EXPECT_EQ(squares, squares_of(fit.residuals));
}

// Below two chunks the serial Eigen sum bit for bit; above, the exact sum to rounding.
// The finish's scales sum w r^2 from fit_into's stored products instead of Eigen's expression:
// the same sum bit for bit at any n (vectorized body, scalar tail), with the earlier fit's
// vectors reused. A row-order sum of the same products differs: the check can fail.
TEST(AllRows, SumOfFitIntoWeightedSquaresIsEigensExpressionSum) {
  int order_matters = 0;
  for (const Eigen::Index n : {1, 2, 3, 7, 4099, 65537, 150001}) {
    const auto [X, y, beta] = random_problem(n, 5, static_cast<unsigned>(n));
    Eigen::VectorXd weights(n);
    for (Eigen::Index i = 0; i < n; ++i) weights(i) = i % 7 == 3 ? 0.0 : 1.0;
    Fit fit = fit_of(X, y, -beta);  // another fit's vectors, overwritten
    const double* reused = fit.residuals.data();
    Eigen::VectorXd products;
    fit_into(X, y, beta, fit, &products, &weights);
    EXPECT_EQ(fit.residuals.data(), reused);
    EXPECT_EQ(fit.residuals, residuals_of(X, y, beta)) << n;
    const double want = (weights.array() * fit.residuals.array().square()).sum();
    EXPECT_EQ(products.sum(), want) << n;
    double row_order = 0;
    for (Eigen::Index i = 0; i < n; ++i) row_order += products(i);
    order_matters += row_order != want;
  }
  EXPECT_GT(order_matters, 0);
}

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
