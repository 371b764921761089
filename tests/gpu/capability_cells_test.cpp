// Every CUDA cell of the capability table on the device: each algorithm the table offers for one
// rank, many ranks and batched columns runs and matches the CPU reference (std::nth_element),
// and each one it does not offer is refused with the table's message, by the selection entry
// points and by the CUDA regression engine. --backend auto picks the backend the table says.
// Skips without a device (the CLI side of the same cells: tests/app/capability_cli_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "regression/src/backend_cost.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/capabilities.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace robustfit::testing {
namespace {

using selection::Algorithm;
using selection::Backend;
using selection::Use;
namespace gpu = selection::cuda;

std::vector<Algorithm> every_algorithm() {
  std::vector<Algorithm> all;
  for (std::string_view name : selection::algorithm_names()) all.push_back(selection::parse_algorithm(name));
  return all;
}

// Runs `call`, expecting std::invalid_argument whose text ends with the table's message.
template <class Call>
void expect_refused(Call call, Use use, Algorithm algorithm) {
  const std::string expected = selection::unavailable_message(Backend::cuda, use, algorithm);
  try {
    call();
    ADD_FAILURE() << selection::to_string(algorithm) << " was accepted for " << selection::to_string(use);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.substr(what.size() - std::min(what.size(), expected.size())), expected) << what;
  }
}

template <class T>
void one_vector_cells() {
  const std::vector<T> values = data::make_distribution<T>(data::Distribution::two_values_95, 5000, 11);
  const std::vector<T> noisy = data::make_distribution<T>(data::Distribution::normal, 5000, 12);
  const std::vector<std::size_t> ks = {0, 17, 2500, 4998, 4999};
  gpu::Workspace workspace;
  for (const auto* input : {&values, &noisy}) {
    const std::vector<T> expected = selection::kth_smallest_many<T>(*input, ks);
    DeviceVector<T> device(*input);
    for (const Algorithm algorithm : every_algorithm()) {
      const std::string label = std::string(selection::to_string(algorithm)) + (sizeof(T) == 4 ? " float" : " double");
      if (selection::offers(Backend::cuda, Use::single, algorithm)) {
        for (std::size_t i = 0; i < ks.size(); ++i) {
          EXPECT_EQ(gpu::kth_smallest(device.get(), input->size(), ks[i], algorithm, workspace), expected[i])
              << label << " k " << ks[i];
          DeviceVector<T> scratch(*input);
          EXPECT_EQ(gpu::kth_smallest_inplace(scratch.get(), input->size(), ks[i], algorithm, workspace), expected[i])
              << label << " in place, k " << ks[i];
        }
      } else {
        expect_refused([&] { gpu::kth_smallest(device.get(), input->size(), 0, algorithm, workspace); }, Use::single, algorithm);
        expect_refused([&] { gpu::kth_smallest_inplace(device.get(), input->size(), 0, algorithm, workspace); },
                       Use::single, algorithm);
      }
      std::vector<T> out(ks.size());
      if (selection::offers(Backend::cuda, Use::many, algorithm)) {
        gpu::kth_smallest_many(device.get(), input->size(), ks.data(), ks.size(), out.data(), algorithm, workspace);
        EXPECT_EQ(out, expected) << label << " many ranks";
      } else {
        expect_refused([&] { gpu::kth_smallest_many(device.get(), input->size(), ks.data(), ks.size(), out.data(),
                                                    algorithm, workspace); },
                       Use::many, algorithm);
      }
    }
  }
}

TEST(GpuCapabilityCells, OneRankAndManyRanks) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  one_vector_cells<float>();
  one_vector_cells<double>();
}

// Batched: column j of a padded matrix; column 2 holds a NaN and must come back as NaN from
// every offered algorithm (the batched passes and the per-column ones alike).
template <class T>
void batched_cells() {
  const std::size_t rows = 3001, cols = 6, ld = 3005, k = 1500;
  std::vector<T> matrix(ld * cols, T(-7));
  for (std::size_t j = 0; j < cols; ++j) {
    const auto column = data::make_distribution<T>(j % 2 ? data::Distribution::normal : data::Distribution::two_values_95,
                                                   rows, 40 + j);
    std::copy(column.begin(), column.end(), matrix.begin() + static_cast<std::ptrdiff_t>(j * ld));
  }
  matrix[2 * ld + 100] = std::numeric_limits<T>::quiet_NaN();
  DeviceVector<T> device(matrix);
  DeviceVector<T> out(cols);
  gpu::Workspace workspace;
  for (const Algorithm algorithm : every_algorithm()) {
    const std::string label = std::string(selection::to_string(algorithm)) + (sizeof(T) == 4 ? " float" : " double");
    if (!selection::offers(Backend::cuda, Use::batched, algorithm)) {
      expect_refused([&] { gpu::kth_smallest_batched(device.get(), rows, cols, ld, k, out.get(), algorithm, workspace); },
                     Use::batched, algorithm);
      continue;
    }
    gpu::kth_smallest_batched(device.get(), rows, cols, ld, k, out.get(), algorithm, workspace);
    const std::vector<T> got = out.download();
    for (std::size_t j = 0; j < cols; ++j) {
      if (j == 2) {
        EXPECT_TRUE(std::isnan(got[j])) << label << ": the NaN column gave " << got[j];
        continue;
      }
      const std::span<const T> column(matrix.data() + j * ld, rows);
      EXPECT_EQ(got[j], selection::kth_smallest<T>(column, k)) << label << " column " << j;
    }
  }
}

TEST(GpuCapabilityCells, BatchedColumns) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  batched_cells<float>();
  batched_cells<double>();
}

// The regression engines: every batched cell fits (the same fit as the CPU's nth-element), the
// others are refused with the table's message, and auto goes where the table says.
TEST(GpuCapabilityCells, FitsOnEveryBackendCell) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  data::ScenarioSpec spec;
  spec.n = 3000;
  spec.q = 3;
  spec.epsilon = 0.2;
  spec.seed = 5;
  const auto scenario = data::make_scenario(spec);
  regression::LtsOptions options;
  options.backend = Backend::cpu;
  options.selection = Algorithm::nth_element;
  const auto reference = regression::fit_lts(scenario.X, scenario.y, options);
  for (const Backend backend : {Backend::cpu, Backend::cuda, Backend::automatic})
    for (const Algorithm algorithm : every_algorithm()) {
      options.backend = backend;
      options.selection = algorithm;
      const std::string label = std::string(selection::to_string(backend)) + "/" + std::string(selection::to_string(algorithm));
      const Backend chosen = selection::resolve_backend(backend, Use::batched, algorithm, true);
      if (!selection::offers(chosen, Use::batched, algorithm)) {
        try {
          regression::fit_lts(scenario.X, scenario.y, options);
          ADD_FAILURE() << label << " was accepted";
        } catch (const std::invalid_argument& e) {
          EXPECT_EQ(std::string(e.what()), selection::unavailable_message(chosen, Use::batched, algorithm)) << label;
        }
        continue;
      }
      // auto with both backends open: the estimators' cost model decides (backend_cost.cpp).
      const bool both = selection::offers(Backend::cpu, Use::batched, algorithm) &&
                        selection::offers(Backend::cuda, Use::batched, algorithm);
      const Backend expected =
          backend == Backend::automatic && both
              ? (regression::detail::cuda_pays_off({spec.n, spec.q + 1, options.subsets.value_or(5000)}, common::worker_count(options.subsets.value_or(5000)))
                     ? Backend::cuda
                     : Backend::cpu)
              : chosen;
      const auto fit = regression::fit_lts(scenario.X, scenario.y, options);
      EXPECT_EQ(fit.backend, selection::to_string(expected)) << label;
      EXPECT_NEAR(fit.objective, reference.objective, 1e-9 * reference.objective) << label;
      EXPECT_EQ(fit.outlier, reference.outlier) << label;
    }
}

}  // namespace
}  // namespace robustfit::testing
