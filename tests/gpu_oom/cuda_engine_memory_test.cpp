// GPU out of memory is a clear error (OutOfMemory, a std::bad_alloc), never a crash.
// Its own executable (own process): when cublasCreate runs with the device full it meets an
// allocation failure that cuBLAS later reports from an unrelated call (getrfBatched returned
// status 13 once on the H200), which would disturb the other GPU tests of the same process.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_skip.hpp"
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

}  // namespace
}  // namespace robustfit::testing
