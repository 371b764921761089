// FAST-MCD beyond the R fixtures: bad input, exact fits found during the search, the C-step
// engine call against a brute force, determinism, a large contaminated sample, and LTS's robust
// distances (ltsReg(mcd = TRUE)).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "reference_data.hpp"
#include "regression/src/cpu_engine.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"

namespace robustfit::testing {
namespace {

using regression::fit_mcd;

// n rows of p standard normal variables; the first `shifted` rows moved by `shift` in every variable.
Eigen::MatrixXd normal_rows(std::size_t n, std::size_t p, std::size_t shifted, double shift, unsigned seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j) X(i, j) = normal(random) + (static_cast<std::size_t>(i) < shifted ? shift : 0);
  return X;
}

std::string message_of(const Eigen::MatrixXd& X, regression::McdOptions options = {}) {
  try {
    fit_mcd(X, options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(McdErrors, RefusesWhatCovMcdRefuses) {
  EXPECT_EQ(message_of(Eigen::MatrixXd(5, 0)), "MCD needs at least one variable");
  EXPECT_EQ(message_of(normal_rows(4, 3, 0, 0, 1)), "MCD needs more than p + 1 observations: n = 4, p = 3 variables");
  EXPECT_EQ(message_of(normal_rows(3, 3, 0, 0, 1)), "MCD needs more than p + 1 observations: n = 3, p = 3 variables");
  Eigen::MatrixXd bad = normal_rows(20, 2, 0, 0, 1);
  bad(6, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(message_of(bad), "value in row 7, variable 2 is not finite");
  regression::McdOptions options;
  options.alpha = 0.4;
  EXPECT_EQ(message_of(normal_rows(20, 2, 0, 0, 1), options), "alpha = 0.400000 is out of range: it must lie in [0.5, 1]");
  options.alpha = 0.5;
  options.subsets = 0;
  EXPECT_EQ(message_of(normal_rows(20, 2, 0, 0, 1), options), "the number of subsets must be at least 1");
}

// 20 of 30 rows on a line: more than h = 16, which the search finds (robustbase's exactCode 2).
TEST(McdExactFit, PointsOnALineFoundDuringTheSearch) {
  Eigen::MatrixXd X = normal_rows(30, 2, 0, 0, 7);
  for (Eigen::Index i = 0; i < 20; ++i) X(i, 1) = 2 * X(i, 0) + 1;
  const auto fit = fit_mcd(X);
  ASSERT_TRUE(fit.exact_fit);
  EXPECT_EQ(fit.exact_fit_message.rfind("The covariance matrix has become singular during the iterations of the MCD "
                                        "algorithm. There are 20 observations (in the entire dataset of 30 obs.) lying "
                                        "on the line with equation ", 0), 0u)
      << fit.exact_fit_message;
  std::vector<std::size_t> off(10);
  std::iota(off.begin(), off.end(), std::size_t{21});
  EXPECT_EQ(fit.flagged, off);
  // The line's normal is (2, -1) / sqrt(5), up to sign.
  EXPECT_NEAR(std::abs(fit.hyperplane[0]), 2 / std::sqrt(5.0), 1e-9);
  EXPECT_NEAR(std::abs(fit.hyperplane[1]), 1 / std::sqrt(5.0), 1e-9);
  EXPECT_EQ(fit.log_det, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(fit.distances.size(), 0);
}

TEST(McdExactFit, UnivariateWithMoreThanHIdenticalValues) {
  Eigen::MatrixXd X = normal_rows(25, 1, 0, 0, 3);
  for (Eigen::Index i = 0; i < 15; ++i) X(i, 0) = 4.5;
  const auto fit = fit_mcd(X);
  ASSERT_TRUE(fit.exact_fit);
  EXPECT_EQ(fit.exact_fit_message, "Initial scale 0 because more than 'h' (=13) observations are identical.");
  EXPECT_NEAR(fit.center(0), 4.5, 1e-12);
  EXPECT_EQ(fit.flagged.size(), 10u);
}

// The engine's C-step against a brute force: the h rows of smallest Mahalanobis distance under
// (center, covariance), by sorting, and their Gram matrix [X 1]^T [X 1].
TEST(McdEngine, CStepKeepsTheHRowsOfSmallestDistance) {
  const Eigen::MatrixXd X = normal_rows(500, 3, 100, 4, 11);
  regression::detail::CpuEngine engine(X, Eigen::VectorXd::Ones(500));
  Eigen::MatrixXd centers(3, 2), covariances(3, 6), whiteners(3, 6);
  centers << 0.1, 4, -0.2, 4, 0.3, 4;
  covariances << 1.0, 0.2, 0.1, 2, 0, 0, 0.2, 1.5, 0.0, 0, 1, 0, 0.1, 0.0, 0.8, 0, 0, 0.5;
  for (Eigen::Index j = 0; j < 2; ++j) {
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(covariances.middleCols(3 * j, 3)).matrixL();
    whiteners.middleCols(3 * j, 3) = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(3, 3));
  }
  Eigen::MatrixXd grams;
  engine.mcd_c_step(centers, whiteners, 260, grams);
  for (Eigen::Index j = 0; j < 2; ++j) {
    const Eigen::MatrixXd inverse = covariances.middleCols(3 * j, 3).inverse();
    std::vector<std::pair<double, Eigen::Index>> d;
    for (Eigen::Index i = 0; i < 500; ++i) {
      const Eigen::VectorXd v = X.row(i).transpose() - centers.col(j);
      d.emplace_back(v.dot(inverse * v), i);
    }
    std::sort(d.begin(), d.end());
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(4, 4);
    for (std::size_t k = 0; k < 260; ++k) {
      Eigen::VectorXd row(4);
      row << X.row(d[k].second).transpose(), 1.0;
      expected += row * row.transpose();
    }
    const Eigen::Map<const Eigen::MatrixXd> G(grams.col(j).data(), 4, 4);
    EXPECT_LT((G.triangularView<Eigen::Lower>().toDenseMatrix() - expected.triangularView<Eigen::Lower>().toDenseMatrix())
                  .cwiseAbs()
                  .maxCoeff(),
              1e-9);
  }
}

TEST(McdSearch, SameSeedSameEstimate) {
  const Eigen::MatrixXd X = normal_rows(1500, 4, 300, 5, 5);
  regression::McdOptions options;
  options.seed = 9;
  const auto a = fit_mcd(X, options), b = fit_mcd(X, options);
  EXPECT_EQ(a.best_subset, b.best_subset);
  EXPECT_EQ(a.covariance, b.covariance);
  EXPECT_EQ(a.distances, b.distances);
}

// fit_mcd reads the caller's rows where they lie (no copy): a matrix that starts off Eigen's
// alignment, and columns spaced wider than n (a block of a larger matrix), give every bit of
// the estimate of the same values in a plain matrix (odd n, over several row chunks).
TEST(McdSearch, SameEstimateWhereverTheRowsLie) {
  const std::size_t n = 70001, p = 3;
  const Eigen::MatrixXd X = normal_rows(n, p, 7000, 5, 6);
  std::vector<double> shifted(n * p + 1);
  std::copy(X.data(), X.data() + X.size(), shifted.begin() + 1);
  const Eigen::Map<const Eigen::MatrixXd> unaligned(shifted.data() + 1, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  Eigen::MatrixXd wider = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n + 5), static_cast<Eigen::Index>(p + 1));
  wider.block(3, 1, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p)) = X;
  const auto expected = fit_mcd(X);
  for (const auto& fit : {fit_mcd(unaligned), fit_mcd(wider.block(3, 1, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p)))}) {
    EXPECT_EQ(fit.log_det, expected.log_det);
    EXPECT_EQ(fit.raw_center, expected.raw_center);
    EXPECT_EQ(fit.raw_covariance, expected.raw_covariance);
    EXPECT_EQ(fit.center, expected.center);
    EXPECT_EQ(fit.covariance, expected.covariance);
    EXPECT_EQ(fit.distances, expected.distances);
    EXPECT_EQ(fit.flagged, expected.flagged);
    EXPECT_EQ(fit.best_subset, expected.best_subset);
  }
}

// 20 % of 20000 rows shifted far away: the nested search ends on a fixed point of the C-step
// (the best subset is the h rows of smallest distance under its own mean and covariance) and
// flags every shifted row and few clean ones (fewer than 2.5 %: robustbase's consistency factor
// for the reweighted covariance takes the 20 % outliers' absence for trimming and inflates it).
TEST(McdSearch, LargeContaminatedSampleFlagsTheShiftedRows) {
  const std::size_t n = 20000, shifted = 4000;
  const Eigen::MatrixXd X = normal_rows(n, 5, shifted, 6, 21);
  const auto fit = fit_mcd(X);
  ASSERT_FALSE(fit.exact_fit);
  std::size_t flagged_shifted = 0;
  for (std::size_t r : fit.flagged) flagged_shifted += r <= shifted;
  EXPECT_EQ(flagged_shifted, shifted);
  const double clean_rate = static_cast<double>(fit.flagged.size() - shifted) / static_cast<double>(n - shifted);
  EXPECT_LT(clean_rate, 0.025);
  // Fixed point: the h smallest raw distances are the best subset's rows.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return fit.raw_distances(static_cast<Eigen::Index>(a)) < fit.raw_distances(static_cast<Eigen::Index>(b));
  });
  std::vector<std::size_t> smallest(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(fit.h));
  for (auto& r : smallest) ++r;
  std::sort(smallest.begin(), smallest.end());
  EXPECT_EQ(smallest, fit.best_subset);
}

// ltsReg(mcd = TRUE): the robust distances are covMcd's of the predictors (no intercept column).
TEST(LtsRobustDistances, AreTheMcdDistancesOfThePredictors) {
  const auto design = load_design("hbk", "Y");
  const auto lts = regression::fit_lts(design.X, design.y);
  const auto mcd = fit_mcd(design.X);
  ASSERT_EQ(lts.robust_distances.size(), static_cast<std::size_t>(design.X.rows()));
  for (std::size_t i = 0; i < lts.robust_distances.size(); ++i)
    EXPECT_EQ(lts.robust_distances[i], mcd.distances(static_cast<Eigen::Index>(i)));
  EXPECT_NEAR(lts.rd_cutoff, std::sqrt(9.348403604496145), 1e-12);  // qchisq(0.975, 3)
  regression::LtsOptions options;
  options.mcd = false;
  const auto without = regression::fit_lts(design.X, design.y, options);
  EXPECT_TRUE(without.robust_distances.empty());
  EXPECT_EQ(without.rd_cutoff, 0);
  EXPECT_EQ(without.coefficients, lts.coefficients);
}

}  // namespace
}  // namespace robustfit::testing
