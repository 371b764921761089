// LTS across ranks with each rank's passes on its GPU (DistributedEngine with CUDA LocalPasses;
// fit_lts_distributed with the cuda backend) against one process on the CPU: the engine's
// objectives and C-steps through tied squares, and whole fits - objective, coefficients, scales,
// robust R^2 and inference to 1e-9, this rank's outlier flags, weights and h-subset rows exactly
// - on the bundled datasets and a generated n = 10^5 contaminated set, on even and uneven
// shards (a rank of no rows, a rank of one row). Run under mpirun (ctest: distributed_gpu_ranks_np2;
// also as one process); every case skips without a CUDA device.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "contaminated.hpp"
#include "cuda/device_row_reductions.hpp"
#include "engine_factory.hpp"
#include "engine_passes.hpp"
#include "fit_comparison.hpp"
#include "least_squares.hpp"
#include "mpi/distributed_fit.hpp"
#include "mpi/distributed_reductions.hpp"
#include "mpi/local_passes.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/gpu.hpp"
#include "shards.hpp"
#include "test_paths.hpp"

namespace rd = robustfit::distributed;
namespace rr = robustfit::regression;
namespace rt = robustfit::testing;

namespace {

class GpuRanks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rr::cuda_backend_available()) GTEST_SKIP() << "no CUDA device: " << robustfit::selection::cuda_device_description();
  }
};

// The fit with every rank's passes on its GPU against fit_lts on the CPU in one process.
void expect_same_fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::string& split, rr::LtsOptions options,
                     const std::string& name) {
  rd::Communicator comm;
  options.mcd = false;
  options.backend = rr::Backend::cpu;
  const rr::FitResult want = rr::fit_lts(X, y, options);
  const auto [begin, end] = rt::shard_rows(split, static_cast<std::size_t>(X.rows()), comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  options.backend = rr::Backend::cuda;
  const rr::FitResult got = rr::fit_lts_distributed(comm, X.middleRows(b, m), y.segment(b, m), options);
  const std::string where = name + " split " + split;
  EXPECT_EQ(got.backend, "mpi+cuda") << where;
  EXPECT_EQ(got.n, want.n) << where;
  EXPECT_EQ(got.h, want.h) << where;
  EXPECT_EQ(got.subsets_tried, want.subsets_tried) << where;
  rt::expect_close(got.objective, want.objective, "objective " + where);
  rt::expect_same_coefficients(got, want, where);
  rt::expect_close(got.scale, want.scale, "scale " + where);
  rt::expect_close(got.raw_scale, want.raw_scale, "raw scale " + where);
  rt::expect_close(got.r_squared, want.r_squared, "robust R^2 " + where);
  rt::expect_close(got.inference.sigma, want.inference.sigma, "sigma " + where);
  rt::expect_same_rows(got, want, begin, end, where);
}

// A bundled dataset: the predictors and the response (its last column, or `response`).
void dataset(const std::string& name, const std::string& response, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  const auto table = robustfit::data::read_csv(rt::dataset_path(name + ".csv"));
  robustfit::data::DesignOptions options;
  options.response = response;
  const robustfit::data::Design design = robustfit::data::make_design(table, options);
  X = design.X;
  y = design.y;
}

rr::LtsOptions seeded(std::uint64_t seed, std::optional<std::size_t> subsets) {
  rr::LtsOptions options;
  options.seed = seed;
  options.subsets = subsets;
  return options;
}

TEST_F(GpuRanks, EnginePassesEqualCpuEngineThroughTies) {
  for (const char* split : rt::kSplits)
    for (const std::size_t batch : {1, 4, 0}) rt::expect_passes_equal_cpu_engine(true, 300, split, batch);
  rt::expect_passes_equal_cpu_engine(true, 50000, "one_then_empty", 0);  // several row chunks per kernel
}

TEST_F(GpuRanks, BundledDatasetsEqualOneProcess) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  for (const char* split : rt::kSplits) {
    dataset("stackloss", "stack.loss", X, y);
    expect_same_fit(X, y, split, seeded(1, 500), "stackloss");
    dataset("hbk", "Y", X, y);
    expect_same_fit(X, y, split, seeded(3, 500), "hbk");
  }
  rr::LtsOptions no_intercept = seeded(4, 500);
  no_intercept.intercept = false;
  dataset("starsCYG", "log.light", X, y);
  expect_same_fit(X, y, "empty_then_one", no_intercept, "starsCYG without intercept");
}

// n = 10^5: the nested search (its subsamples on the CPU), the finalists on the GPUs.
TEST_F(GpuRanks, GeneratedHundredThousandRowsEqualOneProcess) {
  Eigen::MatrixXd X1;
  Eigen::VectorXd y;
  rt::contaminated(100000, X1, y);
  const Eigen::MatrixXd X = X1.rightCols(2);
  expect_same_fit(X, y, "even", seeded(5, 50), "n 10^5");
  expect_same_fit(X, y, "empty_then_one", seeded(6, 50), "n 10^5");
  expect_same_fit(X, y, "one_then_empty", seeded(7, std::nullopt), "n 10^5, the default search");
}

// The finish's QR factors of each rank's rows on its GPU (DeviceRowFactors) over the passes' copy of [X y]
// (DistributedReductions::factor_locally_with, as the fit sets it up at 10^7 rows a rank) against
// the host's TSQR: one R factor per rank instead of the host's blocks, the same least squares.
TEST_F(GpuRanks, DeviceFactorsGiveTheHostTsqrsLeastSquares) {
  rd::Communicator comm;
  Eigen::MatrixXd X1;
  Eigen::VectorXd y1;
  rt::contaminated(300000, X1, y1);
  for (const char* split : rt::kSplits) {
    const auto [begin, end] = rt::shard_rows(split, static_cast<std::size_t>(X1.rows()), comm.rank(), comm.size());
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    const Eigen::MatrixXd X = X1.middleRows(b, m);
    const Eigen::VectorXd y = y1.segment(b, m);
    const auto passes = rr::detail::make_cuda_local_passes(X, y);
    const std::optional<rr::detail::DeviceDesign> design = passes->device_design();
    ASSERT_TRUE(design.has_value());
    rr::detail::DistributedReductions host(comm), device(comm);
    device.factor_locally_with(rr::detail::device_reductions(*design, 0));
    std::vector<std::size_t> rows;  // every third row, then every row
    for (std::size_t i = 0; i < end - begin; i += 3) rows.push_back(i);
    for (const bool all_rows : {false, true}) {
      if (all_rows) {
        rows.resize(end - begin);
        std::iota(rows.begin(), rows.end(), std::size_t{0});
      }
      const std::string where = std::string("split ") + split + (all_rows ? ", every row" : ", every third row");
      // From 2^16 rows on a rank the device factors them: one triangle (the host: one per 8192 rows).
      if (end - begin >= rr::cuda::kDeviceReductionsMinRows) {
        EXPECT_EQ(device.local_factors(X, y, rows).rows(), X.cols() + 1) << where;
      }
      const std::optional<Eigen::VectorXd> want = rr::detail::ls_on_rows(host, X, y, rows);
      const std::optional<Eigen::VectorXd> got = rr::detail::ls_on_rows(device, X, y, rows);
      ASSERT_TRUE(want.has_value() && got.has_value()) << where;
      for (Eigen::Index j = 0; j < want->size(); ++j) rt::expect_close((*got)(j), (*want)(j), "coefficient " + where);
      // R up to its rows' signs: the same |R| as the host's stacked factors.
      const Eigen::MatrixXd R_host = rr::detail::stacked_factors_of_rows(host, X, y, rows).cwiseAbs();
      const Eigen::MatrixXd R_device = rr::detail::stacked_factors_of_rows(device, X, y, rows).cwiseAbs();
      ASSERT_EQ(R_device.rows(), R_host.rows()) << where;
      EXPECT_LT((R_device - R_host).norm(), 1e-9 * R_host.norm()) << where;
    }
  }
}

}  // namespace
