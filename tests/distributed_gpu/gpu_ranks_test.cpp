// LTS across ranks with each rank's passes on its GPU (DistributedEngine with CUDA LocalPasses;
// fit_lts_distributed with the cuda backend) against one process on the CPU: the engine's
// objectives and C-steps through tied squares, and whole fits - objective, coefficients, scales,
// robust R^2 and inference to 1e-9, this rank's outlier flags, weights and h-subset rows exactly
// - on the bundled datasets and a generated n = 10^5 contaminated set, on even and uneven
// shards (a rank of no rows, a rank of one row). Run under mpirun (ctest: distributed_gpu_ranks_np2;
// also as one process); every case skips without a CUDA device.
#include <gtest/gtest.h>

#include <string>

#include "contaminated.hpp"
#include "engine_passes.hpp"
#include "fit_comparison.hpp"
#include "mpi/distributed_fit.hpp"
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

}  // namespace
