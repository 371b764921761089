// Every CUDA kernel family once, on inputs small enough for compute-sanitizer's racecheck (which
// slows shared-memory kernels by orders of magnitude): each selection algorithm on one
// multi-pass size, many ranks, batched columns, the LTS/LMS/MCD engines and the kNN search, each
// checked against the CPU. docs/RELIABILITY.md runs racecheck on `GpuSanitizerSmoke.*`; the
// other GPU suites cover the sizes and distributions.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/neighbors/knn.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace {

using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
using robustfit::testing::DeviceVector;
namespace gpu = robustfit::selection::cuda;
namespace regression = robustfit::regression;

constexpr Algorithm kSingleRank[] = {Algorithm::sort,  Algorithm::cutting_plane, Algorithm::bucket,
                                     Algorithm::radix, Algorithm::sample,        Algorithm::floyd_rivest,
                                     Algorithm::sampled_multi, Algorithm::multi,         Algorithm::bracket};
constexpr Algorithm kManyRanks[] = {Algorithm::multi, Algorithm::sampled_multi, Algorithm::automatic};

// 40000 values: above the sizes where the bucket and radix algorithms recurse only once.
template <class T>
void check_selection(Distribution distribution) {
  const std::size_t n = 40000;
  const std::vector<T> values = robustfit::data::make_distribution<T>(distribution, n, 7, 16);
  const std::vector<std::size_t> ks = {0, 1, n / 3, n / 2, n - 2, n - 1, 12345};
  const std::vector<T> expected = robustfit::selection::kth_smallest_many<T>(values, ks);
  DeviceVector<T> device(values);
  gpu::Workspace workspace;
  for (const Algorithm algorithm : kSingleRank)
    EXPECT_EQ(gpu::kth_smallest(device.get(), n, n / 2, algorithm, workspace), expected[3])
        << robustfit::selection::to_string(algorithm);
  for (const Algorithm algorithm : kManyRanks) {
    std::vector<T> got(ks.size());
    gpu::kth_smallest_many(device.get(), n, ks.data(), ks.size(), got.data(), algorithm, workspace);
    EXPECT_EQ(got, expected) << robustfit::selection::to_string(algorithm);
  }
}

TEST(GpuSanitizerSmoke, SelectionEveryAlgorithm) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_selection<float>(Distribution::normal);
  check_selection<double>(Distribution::few_huge);
  check_selection<float>(Distribution::distinct_d);
}

TEST(GpuSanitizerSmoke, BatchedColumns) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t rows = 4100, cols = 6, k = 1499;  // bracket's kernels from 4096 rows
  const std::vector<double> matrix = robustfit::data::make_distribution<double>(Distribution::cauchy, rows * cols, 3, 64);
  DeviceVector<double> device(matrix);
  DeviceVector<double> out(std::vector<double>(cols, 0.0));
  gpu::Workspace workspace;
  for (const Algorithm algorithm : {Algorithm::automatic, Algorithm::radix, Algorithm::sort, Algorithm::bracket}) {
    gpu::kth_smallest_batched(device.get(), rows, cols, rows, k, out.get(), algorithm, workspace);
    const std::vector<double> got = out.download();
    for (std::size_t c = 0; c < cols; ++c) {
      const std::vector<double> column(matrix.begin() + static_cast<std::ptrdiff_t>(c * rows),
                                        matrix.begin() + static_cast<std::ptrdiff_t>((c + 1) * rows));
      const std::vector<std::size_t> rank{k};
      EXPECT_EQ(got[c], robustfit::selection::kth_smallest_many<double>(column, rank)[0])
          << robustfit::selection::to_string(algorithm) << " column " << c;
    }
  }
}

// n = 700 rows, 20 % vertical outliers: nested subsamples, C-steps, the LMS intercept windows.
struct Regression {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
};

Regression contaminated(std::size_t n, std::size_t p) {
  std::mt19937_64 random(11);
  std::normal_distribution<double> normal;
  Regression r{Eigen::MatrixXd(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p)),
               Eigen::VectorXd(static_cast<Eigen::Index>(n))};
  for (Eigen::Index i = 0; i < r.X.rows(); ++i) {
    for (Eigen::Index j = 0; j < r.X.cols(); ++j) r.X(i, j) = normal(random);
    r.y(i) = r.X.row(i).sum() + 0.5 * normal(random) + (i % 5 == 0 ? 20.0 : 0.0);
  }
  return r;
}

TEST(GpuSanitizerSmoke, LtsLmsAndMcdEngines) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const Regression data = contaminated(700, 3);
  regression::LtsOptions lts;
  lts.subsets = 50;
  lts.backend = regression::Backend::cpu;
  const regression::FitResult lts_cpu = regression::fit_lts(data.X, data.y, lts);
  lts.backend = regression::Backend::cuda;
  const regression::FitResult lts_cuda = regression::fit_lts(data.X, data.y, lts);
  EXPECT_NEAR(lts_cuda.objective, lts_cpu.objective, 1e-9 * lts_cpu.objective);
  EXPECT_EQ(lts_cuda.outlier, lts_cpu.outlier);

  regression::LmsOptions lms;
  lms.subsets = 50;
  lms.backend = regression::Backend::cpu;
  const regression::FitResult lms_cpu = regression::fit_lms(data.X, data.y, lms);
  lms.backend = regression::Backend::cuda;
  const regression::FitResult lms_cuda = regression::fit_lms(data.X, data.y, lms);
  EXPECT_NEAR(lms_cuda.objective, lms_cpu.objective, 1e-9 * lms_cpu.objective);

  regression::McdOptions mcd;
  mcd.subsets = 30;
  mcd.backend = regression::Backend::cpu;
  const regression::McdResult mcd_cpu = regression::fit_mcd(data.X, mcd);
  mcd.backend = regression::Backend::cuda;
  const regression::McdResult mcd_cuda = regression::fit_mcd(data.X, mcd);
  EXPECT_NEAR(mcd_cuda.log_det, mcd_cpu.log_det, 1e-9 * std::abs(mcd_cpu.log_det));
}

TEST(GpuSanitizerSmoke, KnnSearch) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const Regression train = contaminated(600, 4), queries = contaminated(37, 4);
  for (const auto metric : {robustfit::neighbors::Metric::euclidean, robustfit::neighbors::Metric::manhattan}) {
    robustfit::neighbors::KnnOptions options;
    options.k = 9;
    options.metric = metric;
    options.backend = robustfit::selection::Backend::cpu;
    const auto cpu = robustfit::neighbors::knn_search(train.X, queries.X, options);
    options.backend = robustfit::selection::Backend::cuda;
    const auto cuda = robustfit::neighbors::knn_search(train.X, queries.X, options);
    EXPECT_EQ(cuda.rows, cpu.rows) << robustfit::neighbors::to_string(metric);
  }
}

}  // namespace
