// More candidates than a CUDA grid has rows (65535 in y): LTS with 70000 subsets failed with
// cudaErrorInvalidValue before the per-candidate kernels were launched in column slices. The
// CUDA fit must equal the CPU fit (same seed, same subsets) for LTS and LMS. Skips without a
// device.
#include <gtest/gtest.h>

#include <cmath>

#include "gpu_skip.hpp"
#include "robustfit/regression/estimators.hpp"
#include "tests/regression/reference_data.hpp"

namespace robustfit::testing {
namespace {

void expect_same(const regression::FitResult& cpu, const regression::FitResult& gpu) {
  EXPECT_EQ(gpu.backend, "cuda");
  EXPECT_EQ(gpu.subsets_tried, cpu.subsets_tried);
  EXPECT_NEAR(gpu.objective, cpu.objective, 1e-9 * cpu.objective);
  EXPECT_EQ(gpu.outlier, cpu.outlier);
}

TEST(CudaManySubsets, LtsBeyondOneGridOfCandidates) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LtsOptions options;
  options.subsets = 70000;
  options.mcd = false;
  options.backend = regression::Backend::cpu;
  const auto cpu = regression::fit_lts(design.X, design.y, options);
  options.backend = regression::Backend::cuda;
  expect_same(cpu, regression::fit_lts(design.X, design.y, options));
}

TEST(CudaManySubsets, LmsBeyondOneGridOfCandidates) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LmsOptions options;
  options.subsets = 200000;
  options.backend = regression::Backend::cpu;
  const auto cpu = regression::fit_lms(design.X, design.y, options);
  options.backend = regression::Backend::cuda;
  expect_same(cpu, regression::fit_lms(design.X, design.y, options));
}

}  // namespace
}  // namespace robustfit::testing
