// FAST-MCD on the CUDA engine against the CPU engine: the engine's C-step (distances by one
// GEMM with whitened data, batched selection, h-subset Gram matrices) against the CPU engine's
// on the same candidates, and fit_mcd with the same seed on both backends (same subsets drawn:
// the same best subset, objective and flagged rows; estimates to 1e-9). Skips without a device.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <random>
#include <string>

#include "gpu_skip.hpp"
#include "mcd_compare.hpp"
#include "regression/src/cpu_engine.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/design_matrix.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"
#include "tests/regression/reference_data.hpp"

namespace robustfit::testing {
namespace {

using regression::Backend;

// n rows of p standard normals, the first `shifted` moved by `shift` in every variable.
Eigen::MatrixXd normal_rows(std::size_t n, std::size_t p, std::size_t shifted, double shift, unsigned seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j) X(i, j) = normal(random) + (static_cast<std::size_t>(i) < shifted ? shift : 0);
  return X;
}

using robustfit::testing::expect_same_mcd;

TEST(CudaMcdEngine, CStepMatchesTheCpuEngine) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 50000, p = 4, m = 7, h = 25003;
  regression::detail::ModelData data;
  data.intercept = false;
  data.X = normal_rows(n, p, 10000, 3, 3);
  data.y = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n));
  regression::detail::CpuEngine cpu(data);
  regression::cuda::CudaEngine<double> gpu(data, selection::Algorithm::automatic);
  std::mt19937_64 random(5);
  std::normal_distribution<double> normal;
  const auto pp = static_cast<Eigen::Index>(p);
  Eigen::MatrixXd centers(pp, static_cast<Eigen::Index>(m)), whiteners(pp, pp * static_cast<Eigen::Index>(m));
  for (Eigen::Index j = 0; j < centers.cols(); ++j) {
    for (Eigen::Index k = 0; k < pp; ++k) centers(k, j) = 0.3 * normal(random);
    Eigen::MatrixXd A(pp, pp);
    for (Eigen::Index a = 0; a < pp; ++a)
      for (Eigen::Index b = 0; b < pp; ++b) A(a, b) = normal(random);
    const Eigen::MatrixXd covariance = A * A.transpose() + Eigen::MatrixXd::Identity(pp, pp);
    const Eigen::MatrixXd L = Eigen::LLT<Eigen::MatrixXd>(covariance).matrixL();
    whiteners.middleCols(j * pp, pp) = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(pp, pp));
  }
  Eigen::MatrixXd cpu_grams, gpu_grams;
  cpu.mcd_c_step(centers, whiteners, h, cpu_grams);
  gpu.mcd_c_step(centers, whiteners, h, gpu_grams);
  ASSERT_EQ(gpu_grams.rows(), cpu_grams.rows());
  ASSERT_EQ(gpu_grams.cols(), cpu_grams.cols());
  const Eigen::Index q = pp + 1;
  for (Eigen::Index j = 0; j < cpu_grams.cols(); ++j) {
    const Eigen::Map<const Eigen::MatrixXd> G(cpu_grams.col(j).data(), q, q), H(gpu_grams.col(j).data(), q, q);
    EXPECT_EQ(H(pp, pp), static_cast<double>(h)) << "candidate " << j;  // the same number of rows
    for (Eigen::Index a = 0; a < q; ++a)
      for (Eigen::Index b = 0; b <= a; ++b)
        EXPECT_NEAR(H(a, b), G(a, b), 1e-9 * (1 + std::abs(G(a, b)))) << "candidate " << j << " (" << a << ", " << b << ")";
  }
}

struct McdCase {
  const char* name;
  const char* response;  // the other columns are the MCD's variables
};
void PrintTo(const McdCase& c, std::ostream* os) { *os << c.name; }

class CudaMcdOnDatasets : public ::testing::TestWithParam<McdCase> {};

TEST_P(CudaMcdOnDatasets, SameSeedSameEstimateAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design(GetParam().name, GetParam().response);
  regression::McdOptions options;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_mcd(design.X, options);
  options.backend = Backend::cuda;
  const auto gpu = regression::fit_mcd(design.X, options);
  EXPECT_EQ(gpu.backend, design.X.cols() == 1 ? "cpu" : "cuda");  // p = 1: the exact univariate MCD, no engine
  expect_same_mcd(cpu, gpu);
}

INSTANTIATE_TEST_SUITE_P(Datasets, CudaMcdOnDatasets,
                         ::testing::Values(McdCase{"stackloss", "stack.loss"}, McdCase{"hbk", "Y"},
                                           McdCase{"starsCYG", "log.light"}, McdCase{"nested1000", "y"},
                                           McdCase{"nested3000", "y"}),
                         [](const auto& instance) { return std::string(instance.param.name); });

// Above 20000 rows the CUDA engine keeps the full data on the device (smaller subsamples run on
// the CPU engine); n = 200000 takes the final stage's screening (n > 5000).
TEST(CudaMcd, LargeContaminatedSampleSameAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (const std::size_t n : {30000u, 200000u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Eigen::MatrixXd X = normal_rows(n, 10, n / 5, 4, static_cast<unsigned>(n));
    regression::McdOptions options;
    options.seed = 3;
    options.backend = Backend::cpu;
    const auto cpu = regression::fit_mcd(X, options);
    options.backend = Backend::cuda;
    const auto gpu = regression::fit_mcd(X, options);
    EXPECT_EQ(gpu.backend, "cuda");
    expect_same_mcd(cpu, gpu);
  }
}

// ltsReg(mcd = TRUE) on the CUDA backend: the same robust distances as on the CPU.
TEST(CudaMcd, LtsRobustDistancesSameAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LtsOptions options;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_lts(design.X, design.y, options);
  options.backend = Backend::cuda;
  const auto gpu = regression::fit_lts(design.X, design.y, options);
  ASSERT_EQ(gpu.robust_distances.size(), cpu.robust_distances.size());
  for (std::size_t i = 0; i < cpu.robust_distances.size(); ++i)
    EXPECT_NEAR(gpu.robust_distances[i], cpu.robust_distances[i], 1e-8 * (1 + cpu.robust_distances[i]));
}

// Above 65536 rows the LTS fit's FAST-MCD takes its rows from the LTS engine's columns on the
// device (a copy there, Engine::standardized_columns) instead of uploading X again: the same
// robust distances as the CPU backend's.
TEST(CudaMcd, LargeLtsRobustDistancesFromTheEnginesColumns) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 100000;
  const Eigen::MatrixXd X = normal_rows(n, 4, 15000, 5, 11);
  Eigen::VectorXd y = X.rowwise().sum();
  for (Eigen::Index i = 0; i < y.size(); ++i) y(i) += 0.1 * std::sin(static_cast<double>(i)) + (i % 9 == 0 ? 20.0 : 0.0);
  regression::LtsOptions options;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_lts(X, y, options);
  options.backend = Backend::cuda;
  const auto gpu = regression::fit_lts(X, y, options);
  ASSERT_EQ(gpu.robust_distances.size(), n);
  ASSERT_EQ(cpu.robust_distances.size(), n);
  EXPECT_EQ(gpu.rd_cutoff, cpu.rd_cutoff);
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_NEAR(gpu.robust_distances[i], cpu.robust_distances[i], 1e-8 * (1 + cpu.robust_distances[i])) << "row " << i;
}

}  // namespace
}  // namespace robustfit::testing
