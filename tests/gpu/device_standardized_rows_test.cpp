// FAST-MCD's standardized rows made on the device (regression/src/cuda/device_standardized_rows.*)
// against an independent host reference: the mean and covariance of all rows (to rounding),
// column medians (mean of the two middle values for even
// n) and MADs (the h-th smallest |x - median|) by std::nth_element, and the rows (x - median) /
// mad, as the search's engine sees them, equal to an engine built from the host's standardized
// copy: the same starts' Gram matrices, the same subsample, the same C-step, bit for bit.
// Skips without a device.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <random>
#include <vector>

#include "gpu_skip.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/cuda/device_standardized_rows.hpp"
#include "regression/src/design_matrix.hpp"

namespace robustfit::testing {
namespace {

// The k-th smallest (0-based) of v, by nth_element on a copy.
double kth(std::vector<double> v, std::size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void check_standardized_rows(std::size_t n, std::size_t p, std::size_t h) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", h = " + std::to_string(h));
  // Values on a grid of 0.01 (many ties), one column on a coarser one, inside a larger matrix
  // (the rows are a block with outer stride above n: uploaded column by column).
  std::mt19937_64 random(n);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd larger(static_cast<Eigen::Index>(n + 7), static_cast<Eigen::Index>(p));
  for (Eigen::Index j = 0; j < larger.cols(); ++j)
    for (Eigen::Index i = 0; i < larger.rows(); ++i)
      larger(i, j) = std::round((j == 1 ? 10 : 100) * (normal(random) * static_cast<double>(j + 1) + 3.0 * static_cast<double>(j))) / (j == 1 ? 10 : 100);
  const Eigen::Ref<const Eigen::MatrixXd> X = larger.topRows(static_cast<Eigen::Index>(n));
  ASSERT_GT(X.outerStride(), X.rows());

  Eigen::VectorXd median(static_cast<Eigen::Index>(p)), mad(static_cast<Eigen::Index>(p));
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const std::vector<double> column(X.col(j).data(), X.col(j).data() + n);
    median(j) = n % 2 == 0 ? (kth(column, n / 2) + kth(column, n / 2 - 1)) / 2 : kth(column, n / 2);
    std::vector<double> deviations(n);
    for (std::size_t i = 0; i < n; ++i) deviations[i] = std::abs(column[i] - median(j));
    mad(j) = kth(deviations, h - 1);
  }

  regression::cuda::DeviceStandardizedRows on_device(X, selection::Algorithm::automatic);
  // The moments of all rows: two passes on the host; cuBLAS sums in another order.
  const Eigen::VectorXd mean = X.colwise().mean().transpose();
  const Eigen::MatrixXd centered = X.rowwise() - mean.transpose();
  const Eigen::MatrixXd covariance = centered.transpose() * centered / static_cast<double>(n - 1);
  Eigen::VectorXd device_mean;
  Eigen::MatrixXd device_covariance;
  on_device.moments(device_mean, device_covariance);
  ASSERT_EQ(device_mean.size(), mean.size());
  ASSERT_EQ(device_covariance.rows(), covariance.rows());
  for (Eigen::Index j = 0; j < mean.size(); ++j) {
    EXPECT_NEAR(device_mean(j), mean(j), 1e-12 * (1 + std::abs(mean(j)))) << "column " << j;
    for (Eigen::Index k = 0; k < mean.size(); ++k)
      EXPECT_NEAR(device_covariance(j, k), covariance(j, k), 1e-11 * covariance.diagonal().maxCoeff()) << j << ", " << k;
  }
  Eigen::VectorXd device_median, device_mad;
  on_device.medians_and_mads(h, device_median, device_mad);
  EXPECT_EQ(device_median, median);
  EXPECT_EQ(device_mad, mad);

  regression::detail::ModelData host;
  host.intercept = false;
  host.X = (X.rowwise() - median.transpose()).array().rowwise() / mad.transpose().array();
  host.y = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n));
  regression::cuda::CudaEngine<double> from_host(host, selection::Algorithm::automatic);
  const std::unique_ptr<regression::detail::Engine> from_device = on_device.engine(median, mad);
  ASSERT_EQ(from_device->rows(), n);
  ASSERT_EQ(from_device->cols(), p);

  // Starts: (p + 1)-row subsets, the last one's rows at both ends of the data.
  regression::detail::SubsetMatrix starts(static_cast<Eigen::Index>(p + 1), 40);
  std::uniform_int_distribution<std::int64_t> row(0, static_cast<std::int64_t>(n) - 1);
  for (Eigen::Index j = 0; j < starts.cols(); ++j)
    for (Eigen::Index r = 0; r < starts.rows(); ++r) starts(r, j) = row(random);
  starts(0, 39) = 0;
  starts(1, 39) = static_cast<std::int64_t>(n) - 1;
  Eigen::MatrixXd host_grams, device_grams;
  from_host.subset_grams(starts, host_grams);
  from_device->subset_grams(starts, device_grams);
  EXPECT_EQ(device_grams, host_grams);

  // A subsample (the engine the nested stage searches): the same rows.
  std::vector<std::size_t> sub;
  for (std::size_t i = 3; i < n; i += 97) sub.push_back(i);
  sub.push_back(n - 1);
  const auto host_sub = from_host.restrict_to(sub);
  const auto device_sub = from_device->restrict_to(sub);
  Eigen::MatrixXd host_sub_grams, device_sub_grams;
  regression::detail::SubsetMatrix all_of_sub(static_cast<Eigen::Index>(sub.size()), 1);
  for (std::size_t i = 0; i < sub.size(); ++i) all_of_sub(static_cast<Eigen::Index>(i), 0) = static_cast<std::int64_t>(i);
  host_sub->subset_grams(all_of_sub, host_sub_grams);
  device_sub->subset_grams(all_of_sub, device_sub_grams);
  EXPECT_EQ(device_sub_grams, host_sub_grams);

  // One C-step of a few candidates on the whole data: the same Gram matrices.
  const auto pp = static_cast<Eigen::Index>(p);
  Eigen::MatrixXd centers = Eigen::MatrixXd::Zero(pp, 3), whiteners(pp, 3 * pp);
  for (Eigen::Index j = 0; j < 3; ++j) {
    centers(0, j) = 0.1 * static_cast<double>(j);
    whiteners.middleCols(j * pp, pp) = Eigen::MatrixXd::Identity(pp, pp) * (1.0 + 0.5 * static_cast<double>(j));
  }
  Eigen::MatrixXd host_c_step, device_c_step;
  from_host.mcd_c_step(centers, whiteners, h, host_c_step);
  from_device->mcd_c_step(centers, whiteners, h, device_c_step);
  EXPECT_EQ(device_c_step, host_c_step);
}

TEST(DeviceStandardizedRows, MediansMadsAndRowsAsTheHost) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_standardized_rows(100000, 5, 50003);  // even n: two middle values
  check_standardized_rows(70001, 3, 52000);   // odd n, a larger h
}

}  // namespace
}  // namespace robustfit::testing
