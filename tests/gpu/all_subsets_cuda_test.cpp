// Every elemental subset (--subsets all) on the CUDA engine: the same fit as the CPU engine
// (objective to 1e-9 relative, same outliers) for LTS and LMS on hbk (C(75, 4) = 1215450
// subsets, 19 chunks), no worse than robustbase's / MASS's exact search (fixtures), and the
// CUDA search the same whatever the chunk size. Skips without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "gpu_skip.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/design_matrix.hpp"
#include "regression/src/lts_search.hpp"
#include "robustfit/regression/estimators.hpp"
#include "tests/regression/reference_data.hpp"

namespace robustfit::testing {
namespace {

void expect_same(const regression::FitResult& cpu, const regression::FitResult& gpu) {
  EXPECT_EQ(gpu.backend, "cuda");
  EXPECT_TRUE(gpu.exhaustive);
  EXPECT_EQ(gpu.subsets_tried, cpu.subsets_tried);
  EXPECT_EQ(gpu.singular_subsets, cpu.singular_subsets);
  EXPECT_NEAR(gpu.objective, cpu.objective, 1e-9 * cpu.objective);
  EXPECT_EQ(gpu.outlier, cpu.outlier);
}

TEST(CudaAllSubsets, LtsEqualsTheCpuAndLtsRegExactOnHbk) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LtsOptions options;
  options.subsets = regression::all_subsets;
  options.mcd = false;
  options.backend = regression::Backend::cpu;
  const auto cpu = regression::fit_lts(design.X, design.y, options);
  options.backend = regression::Backend::cuda;
  const auto gpu = regression::fit_lts(design.X, design.y, options);
  expect_same(cpu, gpu);
  EXPECT_EQ(gpu.subsets_tried, 1215450u);
  EXPECT_LE(gpu.objective, load_fixture("hbk_lts_exact.json")["objective"].get<double>() * (1 + 1e-9));
}

TEST(CudaAllSubsets, LmsEqualsTheCpuAndLqsExactOnHbk) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LmsOptions options;
  options.subsets = regression::all_subsets;
  options.backend = regression::Backend::cpu;
  const auto cpu = regression::fit_lms(design.X, design.y, options);
  options.backend = regression::Backend::cuda;
  const auto gpu = regression::fit_lms(design.X, design.y, options);
  expect_same(cpu, gpu);
  EXPECT_LE(gpu.objective, load_fixture("hbk_lms_exact.json")["objective"].get<double>() * (1 + 1e-9));
}

TEST(CudaAllSubsets, ChunkSizeChangesNothing) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("stackloss", "stack.loss");
  const auto data = regression::detail::make_model_data(design.X, design.y, true);
  regression::cuda::CudaEngine<double> engine(data, selection::Algorithm::automatic);
  regression::PhaseTimings timings;
  const std::size_t h = 13;
  const auto whole = regression::detail::lts_search(engine, h, regression::all_subsets, 0, timings, {}, {}, 5985);
  EXPECT_EQ(whole.tried, 5985u);  // C(21, 4)
  for (std::size_t chunk : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 16}) {
    const auto part = regression::detail::lts_search(engine, h, regression::all_subsets, 0, timings, {}, {}, chunk);
    EXPECT_EQ(part.objective, whole.objective) << chunk;
    EXPECT_EQ(part.best, whole.best) << chunk;
  }
}

}  // namespace
}  // namespace robustfit::testing
