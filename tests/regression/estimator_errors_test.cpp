// Bad inputs give clear errors, never a crash or a silent wrong answer.
#include <gtest/gtest.h>

#include <limits>

#include "error_of.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {
namespace {


Eigen::MatrixXd random_x(Eigen::Index n, Eigen::Index q) {
  std::srand(1);
  return Eigen::MatrixXd::Random(n, q);
}

TEST(EstimatorErrors, TooFewObservations) {
  const Eigen::MatrixXd X = random_x(3, 3);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(3);
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y); }).find("too few observations: n = 3"), std::string::npos);
  EXPECT_NE(error_of([&] { regression::fit_ls(X, y); }).find("p = 4"), std::string::npos);
}

TEST(EstimatorErrors, ConstantPredictorWithIntercept) {
  Eigen::MatrixXd X = random_x(20, 2);
  X.col(1).setConstant(5);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(20);
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y); }).find("predictor 2 is constant"), std::string::npos);
  const std::vector<std::string> names{"a", "b"};
  EXPECT_NE(error_of([&] { regression::check_design(X, y, true, names); }).find("predictor 'b' is constant"), std::string::npos);
  EXPECT_NO_THROW(regression::fit_ls(X, y, false));  // fine without an intercept
}

TEST(EstimatorErrors, CollinearPredictors) {
  Eigen::MatrixXd X = random_x(20, 3);
  X.col(2) = 2 * X.col(0) - X.col(1);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(20);
  const std::string message = error_of([&] { regression::fit_lms(X, y); });
  EXPECT_NE(message.find("rank deficient"), std::string::npos) << message;
  EXPECT_NE(message.find("collinear"), std::string::npos) << message;
}

TEST(EstimatorErrors, NonFiniteValues) {
  Eigen::MatrixXd X = random_x(20, 2);
  Eigen::VectorXd y = Eigen::VectorXd::Random(20);
  y(4) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y); }).find("row 5"), std::string::npos);
  y(4) = 0;
  X(7, 1) = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y); }).find("predictor 2 has a non-finite value in row 8"), std::string::npos);
}

TEST(EstimatorErrors, CoverageAndOptionsOutOfRange) {
  const Eigen::MatrixXd X = random_x(20, 2);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(20);
  regression::LtsOptions lts;
  lts.h = 3;  // p = 3
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y, lts); }).find("h = 3 is out of range"), std::string::npos);
  lts.h = 21;
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y, lts); }).find("[4, 20]"), std::string::npos);
  lts.h.reset();
  lts.alpha = 0.4;
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y, lts); }).find("alpha = 0.4"), std::string::npos);
  regression::LmsOptions lms;
  lms.subsets = 0;
  EXPECT_NE(error_of([&] { regression::fit_lms(X, y, lms); }).find("at least 1"), std::string::npos);
  EXPECT_NE(error_of([&] { regression::fit_lts(X, Eigen::VectorXd::Random(19)); }).find("20 rows but y has 19"), std::string::npos);
}

TEST(EstimatorErrors, CudaBackendWithoutDeviceIsAClearError) {
  if (regression::cuda_backend_available()) GTEST_SKIP() << "a CUDA device is present";
  const Eigen::MatrixXd X = random_x(20, 2);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(20);
  regression::LtsOptions options;
  options.backend = regression::Backend::cuda;
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y, options); }).find("CUDA backend was requested"), std::string::npos);
  options.backend = regression::Backend::cpu;
  options.selection = selection::Algorithm::radix;
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y, options); }).find("CUDA backend only"), std::string::npos);
}

TEST(EstimatorErrors, SinglePrecisionIsTheCudaEnginesOnly) {
  const Eigen::MatrixXd X = random_x(20, 2);
  const Eigen::VectorXd y = Eigen::VectorXd::Random(20);
  regression::LtsOptions lts;
  lts.precision = regression::Precision::single_precision;
  lts.backend = regression::Backend::cpu;
  const std::string cpu_only = "single precision (float) is offered by the CUDA backend only; the CPU backend computes in double";
  EXPECT_NE(error_of([&] { regression::fit_lts(X, y, lts); }).find(cpu_only), std::string::npos);
  regression::LmsOptions lms;
  lms.precision = regression::Precision::single_precision;
  lms.backend = regression::Backend::cpu;
  EXPECT_NE(error_of([&] { regression::fit_lms(X, y, lms); }).find(cpu_only), std::string::npos);
  if (!regression::cuda_backend_available()) {  // auto does not fall back to double on the CPU
    lts.backend = regression::Backend::automatic;
    EXPECT_NE(error_of([&] { regression::fit_lts(X, y, lts); }).find("single precision (float) needs the CUDA backend"),
              std::string::npos);
  }
  lts.precision = regression::Precision::double_precision;
  lts.backend = regression::Backend::cpu;
  EXPECT_EQ(regression::fit_lts(X, y, lts).precision, regression::Precision::double_precision);
}

TEST(EstimatorErrors, PrecisionNames) {
  EXPECT_EQ(regression::parse_precision("double"), regression::Precision::double_precision);
  EXPECT_EQ(regression::parse_precision("float"), regression::Precision::single_precision);
  EXPECT_EQ(regression::to_string(regression::Precision::double_precision), "double");
  EXPECT_EQ(regression::to_string(regression::Precision::single_precision), "float");
  EXPECT_NE(error_of([] { regression::parse_precision("single"); }).find("expected double or float"), std::string::npos);
}

}  // namespace
}  // namespace robustfit::testing
