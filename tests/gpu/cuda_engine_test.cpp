// The CUDA engine against the CPU engine: with the same seed both draw the same subsets and
// must reach the same objective (1e-9 relative) and the same outliers. Skips without a device.
#include <gtest/gtest.h>

#include "gpu_skip.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"
#include "tests/regression/reference_data.hpp"

namespace robustfit::testing {
namespace {

using regression::Backend;

void expect_same_fit(const regression::FitResult& cpu, const regression::FitResult& gpu) {
  EXPECT_EQ(gpu.backend, "cuda");
  EXPECT_NEAR(gpu.objective, cpu.objective, 1e-9 * cpu.objective);
  EXPECT_EQ(gpu.outlier, cpu.outlier);
  EXPECT_EQ(gpu.h, cpu.h);
  for (Eigen::Index j = 0; j < cpu.coefficients.size(); ++j)
    EXPECT_NEAR(gpu.coefficients(j), cpu.coefficients(j), 1e-7 * (1 + std::abs(cpu.coefficients(j))));
}

struct Case {
  const char* name;
  const char* response;
};

class CudaEngineOnDatasets : public ::testing::TestWithParam<Case> {};

TEST_P(CudaEngineOnDatasets, LtsAndLmsMatchTheCpuEngine) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design(GetParam().name, GetParam().response);
  regression::LtsOptions lts;
  lts.backend = Backend::cpu;
  const auto cpu = regression::fit_lts(design.X, design.y, lts);
  lts.backend = Backend::cuda;
  expect_same_fit(cpu, regression::fit_lts(design.X, design.y, lts));
  if (std::string(GetParam().name).rfind("nested", 0) == 0) return;  // LMS fixtures: small data
  regression::LmsOptions lms;
  lms.backend = Backend::cpu;
  const auto cpu_lms = regression::fit_lms(design.X, design.y, lms);
  lms.backend = Backend::cuda;
  expect_same_fit(cpu_lms, regression::fit_lms(design.X, design.y, lms));
}

INSTANTIATE_TEST_SUITE_P(Datasets, CudaEngineOnDatasets,
                         ::testing::Values(Case{"stackloss", "stack.loss"}, Case{"hbk", "Y"}, Case{"starsCYG", "log.light"},
                                           Case{"nested1000", "y"}, Case{"nested3000", "y"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CudaEngine, EverySelectionAlgorithmGivesTheSameFit) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LtsOptions options;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_lts(design.X, design.y, options);
  options.backend = Backend::cuda;
  for (auto algorithm : {selection::Algorithm::sort, selection::Algorithm::radix, selection::Algorithm::cutting_plane,
                         selection::Algorithm::bucket, selection::Algorithm::sample}) {
    options.selection = algorithm;
    const auto gpu = regression::fit_lts(design.X, design.y, options);
    SCOPED_TRACE(std::string(selection::to_string(algorithm)));
    expect_same_fit(cpu, gpu);
  }
}

TEST(CudaEngine, GeneratedDataUpToAMillionRows) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (std::size_t n : {std::size_t{20000}, std::size_t{200000}, std::size_t{1000000}}) {
    data::ScenarioSpec spec;
    spec.n = n;
    spec.q = 5;
    spec.epsilon = 0.2;
    spec.seed = 7 + n;
    const auto scenario = data::make_scenario(spec);
    regression::LtsOptions options;
    options.backend = Backend::cpu;
    const auto cpu = regression::fit_lts(scenario.X, scenario.y, options);
    options.backend = Backend::cuda;
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_same_fit(cpu, regression::fit_lts(scenario.X, scenario.y, options));
  }
}

}  // namespace
}  // namespace robustfit::testing
