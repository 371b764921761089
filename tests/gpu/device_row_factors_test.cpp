// DeviceRowFactors (regression/src/cuda/device_row_factors.hpp): the R factor of rows of [X y] on
// the device by CholeskyQR2 where the column-scaled design is well conditioned, by cuSOLVER's
// Householder QR where it is not (or has fewer rows than columns), against Eigen's Householder QR
// of the same rows on the host: the same R up to row signs.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "positive_diagonal.hpp"
#include "regression/src/cuda/device_row_factors.hpp"
#include "robustfit/common/random.hpp"

namespace robustfit::testing {
namespace {

struct Factored {
  Eigen::MatrixXd device, host;
  bool cholesky_qr2 = false;
};

// Rows `rows` of [X y] factored on the device and, as the reference, by the host.
Factored factor_both(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::vector<std::size_t>& rows) {
  const std::size_t n = static_cast<std::size_t>(X.rows()), p = static_cast<std::size_t>(X.cols());
  DeviceVector<double> d_X(std::vector<double>(X.data(), X.data() + X.size()));
  DeviceVector<double> d_y(std::vector<double>(y.data(), y.data() + y.size()));
  cudaStream_t stream = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess) throw std::runtime_error("cudaStreamCreate failed");
  regression::cuda::DeviceRowFactors factors;
  Factored out;
  out.device = positive_diagonal(factors.factor(d_X.get(), d_y.get(), n, p, rows, stream));
  cudaStreamDestroy(stream);
  out.cholesky_qr2 = factors.cholesky_qr2_calls() == 1;
  EXPECT_EQ(factors.cholesky_qr2_calls() + factors.householder_calls(), 1u);
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), X.cols() + 1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(rows[i]);
    A.row(static_cast<Eigen::Index>(i)) << X.row(r), y(r);
  }
  const Eigen::Index k = std::min(A.rows(), A.cols());
  out.host = positive_diagonal(Eigen::HouseholderQR<Eigen::MatrixXd>(A).matrixQR().topRows(k).triangularView<Eigen::Upper>());
  return out;
}

double relative_difference(const Factored& f) {
  return (f.device - f.host).cwiseAbs().maxCoeff() / f.host.cwiseAbs().maxCoeff();
}

// An intercept and p - 1 predictors of different scales; `collinear` > 0 makes the last one the
// first plus that much noise.
void design(std::size_t n, Eigen::Index p, double collinear, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  common::Random random(n + static_cast<std::size_t>(p));
  X.resize(static_cast<Eigen::Index>(n), p);
  y.resize(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    X(i, 0) = 1;
    for (Eigen::Index j = 1; j < p; ++j) X(i, j) = random.normal() * std::pow(10.0, static_cast<double>(j % 4) - 1);
    if (collinear > 0) X(i, p - 1) = X(i, 1) + collinear * random.normal();
    y(i) = X.row(i).sum() + random.normal();
  }
}

TEST(DeviceRowFactors, WellConditionedRowsByCholeskyQr2AsHouseholder) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  design(200003, 9, 0, X, y);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < 200003; ++i)
    if (i % 3 != 1) rows.push_back(i);
  const Factored f = factor_both(X, y, rows);
  EXPECT_TRUE(f.cholesky_qr2);
  ASSERT_EQ(f.device.rows(), f.host.rows());
  EXPECT_LT(relative_difference(f), 1e-11);
}

TEST(DeviceRowFactors, NearlyCollinearColumnsGoToHouseholder) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  design(100000, 5, 1e-7, X, y);  // condition about 1e7 once the columns are scaled
  std::vector<std::size_t> rows(100000);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = rows.size() - 1 - i;  // any order
  const Factored f = factor_both(X, y, rows);
  EXPECT_FALSE(f.cholesky_qr2);
  ASSERT_EQ(f.device.rows(), f.host.rows());
  EXPECT_LT(relative_difference(f), 1e-8);
}

TEST(DeviceRowFactors, FewerRowsThanColumnsGoToHouseholder) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  design(50, 6, 0, X, y);
  const Factored f = factor_both(X, y, {4, 17, 30});
  EXPECT_FALSE(f.cholesky_qr2);
  ASSERT_EQ(f.device.rows(), 3);
  EXPECT_LT(relative_difference(f), 1e-12);
}

}  // namespace
}  // namespace robustfit::testing
