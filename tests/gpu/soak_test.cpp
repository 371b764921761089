// The randomized soak in the GPU suite: 100 random problems (tests/soak/soak.hpp), the CUDA
// engine against the CPU engine, and 100 arrays, every CUDA selection algorithm against sort &
// choose. The long run: robustfit_soak --problems 10000 (docs/RELIABILITY.md). Skips without a device.
#include <gtest/gtest.h>

#include "gpu_skip.hpp"
#include "tests/soak/soak.hpp"

namespace robustfit::testing {
namespace {

constexpr std::uint64_t kFirstSeed = 20240601;
constexpr std::uint64_t kProblems = 100;

TEST(Soak, CudaEngineMatchesCpuEngineOnRandomProblems) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (std::uint64_t i = 0; i < kProblems; ++i) {
    const auto problem = soak::draw_problem(kFirstSeed + i, 20000);
    const auto verdict = soak::check_regression(problem, true);
    EXPECT_TRUE(verdict.passed) << soak::describe(problem) << "\n  " << verdict.message;
  }
}

TEST(Soak, EverySelectionAlgorithmMatchesSortOnRandomAndAdversarialArrays) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (std::uint64_t i = 0; i < kProblems; ++i) {
    const auto verdict = soak::check_selection(kFirstSeed + i, true);
    EXPECT_TRUE(verdict.passed) << verdict.message;
  }
}

}  // namespace
}  // namespace robustfit::testing
