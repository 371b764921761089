// Numerically hostile data: exact fits, alpha = 1, values near the limits of double, nearly
// collinear columns, n = p + 1, identical rows. Each case has a defined result (every number
// finite: JSON has no NaN) or a clear error; docs/RELIABILITY.md lists them.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "reference_data.hpp"
#include "robustfit/regression/estimators.hpp"

namespace rr = robustfit::regression;

namespace {

// Every number a FitResult reports (and the CLI prints) is finite.
void expect_all_finite(const rr::FitResult& fit) {
  EXPECT_TRUE(fit.coefficients.allFinite()) << fit.coefficients.transpose();
  EXPECT_TRUE(fit.raw_coefficients.allFinite()) << fit.raw_coefficients.transpose();
  EXPECT_TRUE(std::isfinite(fit.scale)) << fit.scale;
  EXPECT_TRUE(std::isfinite(fit.raw_scale)) << fit.raw_scale;
  EXPECT_TRUE(std::isfinite(fit.objective)) << fit.objective;
  EXPECT_TRUE(std::isfinite(fit.r_squared)) << fit.r_squared;
  EXPECT_TRUE(fit.fitted.allFinite());
  EXPECT_TRUE(fit.residuals.allFinite());
  EXPECT_TRUE(fit.standardized_residuals.allFinite());
  EXPECT_TRUE(fit.weights.allFinite());
}

// A line y = 2 + 3x through 18 of 20 points; rows 3 and 7 (1-based) are off it.
struct LineWithTwoOutliers {
  Eigen::MatrixXd X{20, 1};
  Eigen::VectorXd y{20};
  LineWithTwoOutliers() {
    for (int i = 0; i < 20; ++i) {
      X(i, 0) = i + 1;
      y(i) = 2 + 3 * (i + 1);
    }
    y(2) = 100;
    y(6) = -50;
  }
};

Eigen::VectorXd normal_vector(Eigen::Index n, unsigned seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v(i) = normal(random);
  return v;
}

// A clean regression y = 1 + x1 - x2 + e on n rows, every value multiplied by `scale`.
struct ScaledProblem {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  ScaledProblem(Eigen::Index n, double scale) : X(n, 2), y(n) {
    X.col(0) = normal_vector(n, 1);
    X.col(1) = normal_vector(n, 2);
    y = (Eigen::VectorXd::Ones(n) + X.col(0) - X.col(1) + 0.1 * normal_vector(n, 3)) * scale;
    X *= scale;
  }
};

}  // namespace

// robustbase 0.99 (R 4.x): ltsReg(y ~ x) on these data gives coefficients (2, 3), scale =
// raw.scale = 0, raw.weights 0 exactly at rows 3 and 7, rsquared 1, and "An exact fit was found!".
TEST(HostileData, ExactFitOfLtsIsReportedAsRobustbaseDoes) {
  const LineWithTwoOutliers data;
  const rr::FitResult fit = rr::fit_lts(data.X, data.y);
  EXPECT_TRUE(fit.exact_fit);
  EXPECT_EQ(fit.scale, 0.0);
  EXPECT_EQ(fit.raw_scale, 0.0);
  EXPECT_NEAR(fit.coefficients(0), 2.0, 1e-9);
  EXPECT_NEAR(fit.coefficients(1), 3.0, 1e-9);
  EXPECT_EQ(robustfit::testing::outlier_rows(fit.outlier), (std::vector<std::size_t>{3, 7}));
  EXPECT_EQ(fit.r_squared, 1.0);
  expect_all_finite(fit);
}

TEST(HostileData, ExactFitOfLmsIsReported) {
  const LineWithTwoOutliers data;
  const rr::FitResult fit = rr::fit_lms(data.X, data.y);
  EXPECT_TRUE(fit.exact_fit);
  EXPECT_EQ(fit.scale, 0.0);
  EXPECT_NEAR(fit.coefficients(1), 3.0, 1e-9);
  EXPECT_EQ(robustfit::testing::outlier_rows(fit.outlier), (std::vector<std::size_t>{3, 7}));
  expect_all_finite(fit);
}

TEST(HostileData, NoisyDataAreNotAnExactFit) {
  const ScaledProblem data(200, 1.0);
  EXPECT_FALSE(rr::fit_lts(data.X, data.y).exact_fit);
  EXPECT_FALSE(rr::fit_lms(data.X, data.y).exact_fit);
}

// robustbase: ltsReg(stack.loss ~ ., data = stackloss, alpha = 1) fits LS with the unbiased raw
// scale sqrt(RSS / (n - p)); printed with digits = 15.
TEST(HostileData, AlphaOneIsLeastSquaresAsInRobustbase) {
  const auto design = robustfit::testing::load_design("stackloss", "stack.loss");
  rr::LtsOptions options;
  options.alpha = 1;
  const rr::FitResult fit = rr::fit_lts(design.X, design.y, options);
  EXPECT_EQ(fit.h, 21U);
  const Eigen::Vector4d raw(-39.919674420124117, 0.715640200485281, 1.295286124388572, -0.152122519148650);
  EXPECT_LT((fit.raw_coefficients - raw).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fit.coefficients - raw).cwiseAbs().maxCoeff(), 1e-9);  // every raw weight is 1
  EXPECT_NEAR(fit.raw_scale, 3.24336391818522, 1e-10);
  EXPECT_NEAR(fit.scale, 2.99023378348882, 1e-10);
  EXPECT_NEAR(fit.objective, 178.829961598358, 1e-9);
  EXPECT_EQ(robustfit::testing::outlier_rows(fit.outlier), (std::vector<std::size_t>{21}));
  expect_all_finite(fit);
}

TEST(HostileData, LmsWithHEqualToNIsAClearError) {
  const ScaledProblem data(30, 1.0);
  rr::LmsOptions options;
  options.h = 30;
  try {
    rr::fit_lms(data.X, data.y, options);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("give h < n"), std::string::npos) << e.what();
  }
}

// Large values whose squares still fit in a double (1e150^2 = 1e300): the fit is the scaled fit.
TEST(HostileData, HugeScaleGivesTheScaledFit) {
  const ScaledProblem unit(300, 1.0), huge(300, 1e150);
  const rr::FitResult a = rr::fit_lts(unit.X, unit.y), b = rr::fit_lts(huge.X, huge.y);
  expect_all_finite(b);
  EXPECT_FALSE(b.exact_fit);
  EXPECT_NEAR(b.coefficients(0) / 1e150, a.coefficients(0), 1e-9);
  EXPECT_NEAR(b.coefficients(1), a.coefficients(1), 1e-9);
  EXPECT_NEAR(b.scale / 1e150, a.scale, 1e-9 * a.scale);
  EXPECT_EQ(a.outlier, b.outlier);
}

// Beyond 1e152 squares overflow, below 1e-152 they underflow: a clear error naming the column.
TEST(HostileData, ValuesWhoseSquaresLeaveDoubleAreAClearError) {
  for (const double scale : {1e300, 1e-300}) {
    const ScaledProblem data(100, scale);
    const std::string expected = scale > 1 ? "overflow double; rescale" : "underflow double; rescale";
    for (const auto method : {rr::Method::lts, rr::Method::lms, rr::Method::ls}) {
      try {
        (void)(method == rr::Method::lts ? rr::fit_lts(data.X, data.y)
               : method == rr::Method::lms ? rr::fit_lms(data.X, data.y) : rr::fit_ls(data.X, data.y));
        ADD_FAILURE() << "expected an error at scale " << scale;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("predictor 1 has"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      }
    }
  }
}

// A subnormal response (5e-318) alone: the same error, naming the response.
TEST(HostileData, SubnormalResponseIsAClearError) {
  ScaledProblem data(100, 1.0);
  data.y *= std::numeric_limits<double>::denorm_min() * 1e6;
  try {
    (void)rr::fit_lts(data.X, data.y);
    ADD_FAILURE() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the response has no value larger than"), std::string::npos) << e.what();
  }
}

// Tiny data (1e-150): the fit is the scaled fit, but robustbase's exact-fit rule is absolute
// (raw scale below 1e-7), so it reads as an exact fit.
TEST(HostileData, TinyScaleIsAnExactFitByRobustbasesAbsoluteRule) {
  const ScaledProblem unit(300, 1.0), tiny(300, 1e-150);
  const rr::FitResult a = rr::fit_lts(unit.X, unit.y), b = rr::fit_lts(tiny.X, tiny.y);
  expect_all_finite(b);
  EXPECT_TRUE(b.exact_fit);
  EXPECT_EQ(b.scale, 0.0);
  EXPECT_NEAR(b.raw_coefficients(1), a.raw_coefficients(1), 1e-6);
  EXPECT_NEAR(b.raw_coefficients(0) / 1e-150, a.raw_coefficients(0), 1e-6);
}

// Two columns that differ by 1e-12: numerically collinear. A fit or a clear error, never NaN.
TEST(HostileData, ColumnsDifferingByOneInATrillionGiveAResultOrAClearError) {
  ScaledProblem data(200, 1.0);
  data.X.col(1) = data.X.col(0) + 1e-12 * normal_vector(200, 7);
  for (const auto method : {rr::Method::lts, rr::Method::lms, rr::Method::ls}) {
    try {
      const rr::FitResult fit = method == rr::Method::lts   ? rr::fit_lts(data.X, data.y)
                                : method == rr::Method::lms ? rr::fit_lms(data.X, data.y)
                                                            : rr::fit_ls(data.X, data.y);
      expect_all_finite(fit);
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()), "") << "empty message";
    }
  }
}

// n = p + 1: LTS's h = floor((n + p + 1) / 2) = n covers every row: the LS fit with its one
// residual degree of freedom (as alpha = 1); LMS's default h = floor((n + 1) / 2) is not above
// p, a clear error.
TEST(HostileData, OneMoreRowThanCoefficients) {
  const ScaledProblem data(4, 1.0);  // p = 3 with the intercept
  const rr::FitResult fit = rr::fit_lts(data.X, data.y);
  EXPECT_EQ(fit.h, 4U);
  EXPECT_FALSE(fit.exact_fit);
  EXPECT_LT((fit.raw_coefficients - rr::fit_ls(data.X, data.y).coefficients).cwiseAbs().maxCoeff(), 1e-9);
  expect_all_finite(fit);
  EXPECT_THROW(rr::fit_lms(data.X, data.y), std::invalid_argument);
}

// Every row the same: no elemental subset is regular, so there is no fit: a clear error.
TEST(HostileData, AllIdenticalRowsAreAClearError) {
  Eigen::MatrixXd X = Eigen::MatrixXd::Constant(50, 2, 3.0);
  Eigen::VectorXd y = Eigen::VectorXd::Constant(50, 7.0);
  for (const auto method : {rr::Method::lts, rr::Method::lms}) {
    try {
      const rr::FitResult fit = method == rr::Method::lts ? rr::fit_lts(X, y) : rr::fit_lms(X, y);
      ADD_FAILURE() << "expected an error; scale " << fit.scale;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()), "");
    }
  }
}
