// GPU out of memory is a clear error (OutOfMemory, a std::bad_alloc), never a crash; a batch
// of candidates that does not fit is halved and retried first, down to one candidate.
// Its own executable (own process): when cublasCreate runs with the device full it meets an
// allocation failure that cuBLAS later reports from an unrelated call (getrfBatched returned
// status 13 once on the H200), which would disturb the other GPU tests of the same process.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/design_matrix.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/cuda/errors.hpp"

namespace robustfit::testing {
namespace {

// Holds all but `leave` bytes of free device memory while alive.
class MemoryHog {
 public:
  explicit MemoryHog(std::size_t leave) {
    std::size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    std::size_t chunk = std::size_t{1} << 30;
    while (chunk >= (std::size_t{1} << 20)) {
      cudaMemGetInfo(&free_bytes, &total);
      if (free_bytes < leave + chunk) {
        chunk /= 2;
        continue;
      }
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) != cudaSuccess) {
        cudaGetLastError();
        chunk /= 2;
        continue;
      }
      blocks_.push_back(p);
    }
  }
  ~MemoryHog() {
    for (void* p : blocks_) cudaFree(p);
  }

 private:
  std::vector<void*> blocks_;
};

TEST(CudaEngineMemory, OutOfDeviceMemoryIsAClearError) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  data::ScenarioSpec spec;
  spec.n = 2000000;  // X alone needs 2e6 x 6 doubles = 96 MB on the device
  spec.q = 5;
  spec.epsilon = 0.1;
  const auto scenario = data::make_scenario(spec);
  regression::LtsOptions options;
  options.backend = regression::Backend::cuda;
  {
    const MemoryHog hog(std::size_t{32} << 20);  // leave 32 MB
    try {
      regression::fit_lts(scenario.X, scenario.y, options);
      ADD_FAILURE() << "the fit succeeded with 32 MB of device memory";
    } catch (const selection::cuda::OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
    }
  }
  // With the memory back, the same fit works (the engine left nothing of its own behind).
  const auto fit = regression::fit_lts(scenario.X, scenario.y, options);
  EXPECT_EQ(fit.backend, "cuda");
  EXPECT_GT(fit.objective, 0);
}

// Engine level: 2e6 rows, so that one candidate's residuals take 16 MB and a batch of all 64
// candidates 1 GB (the budget, a third of free memory up to 16 GiB, allows all 64 at once).
constexpr std::size_t kRows = 2000000;
constexpr std::size_t kCandidates = 64;
constexpr std::size_t kColumnBytes = kRows * sizeof(double);

struct EngineCase {
  regression::detail::ModelData data;
  Eigen::MatrixXd betas;
  std::size_t h = 0;
};

EngineCase engine_case() {
  data::ScenarioSpec spec;
  spec.n = kRows;
  spec.q = 5;
  spec.epsilon = 0.1;
  const auto scenario = data::make_scenario(spec);
  EngineCase c;
  c.data = regression::detail::make_model_data(scenario.X, scenario.y, true);
  c.betas.resize(static_cast<Eigen::Index>(c.data.p()), static_cast<Eigen::Index>(kCandidates));
  for (Eigen::Index j = 0; j < c.betas.cols(); ++j)
    for (Eigen::Index i = 0; i < c.betas.rows(); ++i) c.betas(i, j) = 1 + 0.3 * std::sin(static_cast<double>(5 * j + 2 * i + 1));
  c.h = (c.data.n() + c.data.p() + 1) / 2;
  return c;
}

using Engine = regression::cuda::CudaEngine<double>;

// Allocates what one candidate needs (and whatever cuBLAS and the selection set up on first
// use) while memory is plentiful, so that what fails later is the batch, nothing else (the
// engine frees these buffers when a batch fails, which only adds room).
void warm_up(Engine& engine, const EngineCase& c) {
  std::vector<double> objective(1);
  engine.lts_objectives(c.betas.leftCols(1), c.h, objective);
}

struct Results {
  std::vector<double> objectives = std::vector<double>(kCandidates);
  std::vector<double> before = std::vector<double>(kCandidates);
  Eigen::MatrixXd betas;
};

Results run(Engine& engine, const EngineCase& c) {
  Results r;
  engine.lts_objectives(c.betas, c.h, r.objectives);
  r.betas = c.betas;
  engine.c_step(r.betas, c.h, r.before);
  return r;
}

// Batch sizes change nothing but the GEMM shape; the numbers agree to rounding.
void expect_same(const Results& got, const Results& expected) {
  for (std::size_t j = 0; j < kCandidates; ++j) {
    EXPECT_NEAR(got.objectives[j], expected.objectives[j], 1e-12 * expected.objectives[j]) << j;
    EXPECT_NEAR(got.before[j], expected.before[j], 1e-12 * expected.before[j]) << j;
  }
  EXPECT_TRUE(got.betas.isApprox(expected.betas, 1e-9)) << (got.betas - expected.betas).cwiseAbs().maxCoeff();
}

TEST(CudaEngineMemory, BatchesThatDoNotFitAreHalvedAndRetried) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const EngineCase c = engine_case();
  Results expected;
  {
    Engine engine(c.data, selection::Algorithm::automatic);
    expected = run(engine, c);
  }
  Engine engine(c.data, selection::Algorithm::automatic);
  warm_up(engine, c);
  const std::size_t budget = engine.budget_bytes();
  ASSERT_GE(budget, kCandidates * kColumnBytes) << "the device is too small for this test";
  Results got;
  {
    const MemoryHog hog(std::size_t{256} << 20);  // room for a few 16 MB columns, not for 64
    got = run(engine, c);
  }
  EXPECT_LT(engine.budget_bytes(), kCandidates * kColumnBytes);  // halved at least once
  EXPECT_GE(engine.budget_bytes(), kColumnBytes);
  expect_same(got, expected);
}

TEST(CudaEngineMemory, ABatchOfOneThatDoesNotFitIsAClearError) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const EngineCase c = engine_case();
  Engine engine(c.data, selection::Algorithm::automatic);
  // No warm-up: what the engine frees on the way down must not make room for one column.
  {
    const MemoryHog hog(std::size_t{4} << 20);  // less than one 16 MB column
    try {
      run(engine, c);
      ADD_FAILURE() << "the engine ran with 4 MB of device memory";
    } catch (const selection::cuda::OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(engine.budget_bytes(), kColumnBytes);  // down to one candidate per batch
  // With the memory back, the same engine works (one candidate per batch now).
  Results expected;
  {
    Engine fresh(c.data, selection::Algorithm::automatic);
    expected = run(fresh, c);
  }
  expect_same(run(engine, c), expected);
}

}  // namespace
}  // namespace robustfit::testing
