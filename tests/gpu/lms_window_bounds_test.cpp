// LMS on the CUDA engine evaluates the exact window (a sort) only for the candidates whose
// histogram bounds leave them a chance among the driver's best (engine.hpp, window_ops.cu).
// Here: the bounds hold on hard columns (ties, heavy contamination, uniform, two clusters, a
// large offset, float and double) against a sort on the host; objectives asked with `needed`
// equal, bit for bit, those asked for every candidate wherever a candidate is evaluated, the
// skipped ones get a lower bound above the needed-th best, and the kept best set is the same;
// with candidates all close nothing is skipped; fits equal the CPU engine's. Skips without a
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "regression/src/best_candidates.hpp"
#include "regression/src/cpu_engine.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/cuda/device_ops.hpp"
#include "regression/src/design_matrix.hpp"
#include "regression/src/subsets.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {
namespace {

namespace cuda = regression::cuda;
using regression::detail::Engine;

// The exact objective as the engine computes it: the smallest half width of h consecutive
// sorted values, in double, squared.
template <class Scalar>
double exact_objective(std::vector<Scalar> column, std::size_t h) {
  std::sort(column.begin(), column.end());
  double best = INFINITY;
  for (std::size_t s = 0; s + h <= column.size(); ++s)
    best = std::min(best, (static_cast<double>(column[s + h - 1]) - static_cast<double>(column[s])) / 2);
  return best * best;
}

// Columns that make bounds hard: name and values.
std::vector<std::pair<std::string, std::vector<double>>> hard_columns(std::size_t n) {
  std::mt19937_64 random(12345);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::vector<std::pair<std::string, std::vector<double>>> out;
  auto add = [&](std::string name, auto value) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = value(i);
    out.emplace_back(std::move(name), std::move(v));
  };
  add("normal", [&](std::size_t) { return normal(random); });
  add("45% outliers above", [&](std::size_t i) { return i % 20 < 9 ? 20 + 80 * uniform(random) : normal(random); });
  add("45% outliers below, near", [&](std::size_t i) { return i % 20 < 9 ? -3 + 0.5 * normal(random) : normal(random); });
  add("uniform", [&](std::size_t) { return uniform(random); });
  add("two equal clusters", [&](std::size_t i) { return (i % 2 ? 10 : 0) + normal(random); });
  add("40% ties at zero", [&](std::size_t i) { return i % 5 < 2 ? 0.0 : normal(random); });
  add("integers", [&](std::size_t) { return std::round(3 * normal(random)); });
  add("60% equal (exact fit)", [&](std::size_t i) { return i % 5 < 3 ? 1.5 : normal(random); });
  add("offset 1e6", [&](std::size_t) { return 1e6 + 1e-3 * normal(random); });
  add("cauchy", [&](std::size_t) { return std::tan(3.14159265358979 * (uniform(random) - 0.5)); });
  add("sorted", [&](std::size_t i) { return static_cast<double>(i); });
  return out;
}

template <class Scalar>
void check_bounds_on_hard_columns() {
  const std::size_t n = 300000;  // two histogram chunks, the second partial
  const auto columns = hard_columns(n);
  const std::size_t m = columns.size();
  std::vector<Scalar> values(n * m);
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t i = 0; i < n; ++i) values[j * n + i] = static_cast<Scalar>(columns[j].second[i]);
  DeviceVector<Scalar> R(values);
  for (const std::size_t h : {n / 2, n / 2 + 1, (n + 1) / 2 + 7, 3 * n / 4, n - 10, n / 3, std::size_t{50}}) {
    DeviceVector<double> range(4 * m), lower(m), upper(m);
    DeviceVector<unsigned> hist(cuda::kWindowBins * m);
    DeviceVector<unsigned long long> inside(m);
    cuda::window_bounds(R.get(), n, m, h, cuda::window_sample_span(n, h), range.get(), hist.get(), inside.get(),
                        lower.get(), upper.get(), nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto lo = lower.download(), hi = upper.download();
    for (std::size_t j = 0; j < m; ++j) {
      SCOPED_TRACE(columns[j].first + ", h = " + std::to_string(h));
      const double exact = exact_objective(std::vector<Scalar>(values.begin() + j * n, values.begin() + (j + 1) * n), h);
      EXPECT_LE(lo[j], exact);
      EXPECT_GE(hi[j], exact);
      // Smooth columns get tight bounds (what makes the skipping worth it).
      if (h > 3 * n / 4 || h < n / 2) continue;  // wide windows for max(h, n + 1 - h) rows: looser bounds
      if (columns[j].first == "normal" || columns[j].first == "45% outliers above" || columns[j].first == "cauchy") {
        EXPECT_LT(hi[j], 1.05 * exact);
        EXPECT_GT(lo[j], 0.95 * exact);
      }
    }
  }
}

TEST(LmsWindowBounds, HoldOnHardColumnsInDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_bounds_on_hard_columns<double>();
}

TEST(LmsWindowBounds, HoldOnHardColumnsInFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_bounds_on_hard_columns<float>();
}

// ---- the engine: objectives with `needed` against every objective ------------------------

struct Kept {
  Eigen::MatrixXd columns;
  std::vector<double> objectives;
  std::vector<std::uint64_t> indices;
};

Kept best_of(const Eigen::MatrixXd& betas, const std::vector<double>& objectives, std::size_t capacity) {
  regression::detail::BestCandidates keep(capacity);
  for (Eigen::Index j = 0; j < betas.cols(); ++j)
    keep.offer(betas.col(j), objectives[static_cast<std::size_t>(j)], static_cast<std::uint64_t>(j));
  return {keep.columns(), keep.objectives(), keep.indices()};
}

// Asks `engine` for every objective and for the `needed` best; returns how many were skipped.
std::size_t check_needed_against_all(Engine& engine, const Eigen::MatrixXd& candidates, std::size_t h, std::size_t needed) {
  const auto m = static_cast<std::size_t>(candidates.cols());
  Eigen::MatrixXd all = candidates, pruned = candidates;
  std::vector<double> exact(m), bounded(m);
  engine.lms_objectives(all, h, true, exact, Engine::kAllCandidates);
  engine.lms_objectives(pruned, h, true, bounded, needed);
  const Kept expected = best_of(all, exact, needed);
  const double cut = expected.objectives.back();
  std::size_t skipped = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const auto col = static_cast<Eigen::Index>(j);
    if (pruned.col(col) == all.col(col) && bounded[j] == exact[j]) continue;  // evaluated
    ++skipped;
    EXPECT_EQ(pruned.col(col).tail(pruned.rows() - 1), all.col(col).tail(all.rows() - 1));
    EXPECT_EQ(pruned(0, col), candidates(0, col)) << "a skipped candidate keeps its intercept";
    EXPECT_LE(bounded[j], exact[j]) << "candidate " << j << ": not a lower bound";
    EXPECT_GT(bounded[j], cut) << "candidate " << j << " skipped but could be among the best";
  }
  const Kept got = best_of(pruned, bounded, needed);
  EXPECT_EQ(got.indices, expected.indices);
  EXPECT_EQ(got.objectives, expected.objectives);
  EXPECT_EQ(got.columns, expected.columns);
  return skipped;
}

struct Problem {
  regression::detail::ModelData data;
  Eigen::MatrixXd candidates;
};

Problem elemental_problem(std::size_t n, std::size_t q, double epsilon, std::size_t m, std::uint64_t seed) {
  data::ScenarioSpec spec;
  spec.n = n;
  spec.q = q;
  spec.epsilon = epsilon;
  spec.seed = seed;
  const auto scenario = data::make_scenario(spec);
  Problem out{regression::detail::make_model_data(scenario.X, scenario.y, true), {}};
  regression::detail::CpuEngine cpu(out.data);
  regression::detail::Random random(seed);
  out.candidates = regression::detail::random_elemental_fits(cpu, random, m).betas;
  return out;
}

template <class Scalar>
void check_elemental_candidates() {
  const Problem problem = elemental_problem(40000, 4, 0.4, 2000, 11);
  cuda::CudaEngine<Scalar> engine(problem.data, selection::Algorithm::automatic);
  const std::size_t h = (problem.data.n() + 1) / 2;
  // 10: a few columns sorted one by one; 200: many, gathered and sorted as segments.
  for (const std::size_t needed : {std::size_t{1}, std::size_t{10}, std::size_t{200}}) {
    SCOPED_TRACE("needed " + std::to_string(needed));
    const std::size_t skipped = check_needed_against_all(engine, problem.candidates, h, needed);
    std::cout << "needed " << needed << ": " << skipped << " of " << problem.candidates.cols() << " skipped\n";
    if (needed <= 10)
      EXPECT_GT(skipped, problem.candidates.cols() / 2) << "random elemental fits at 40 % contamination: most are far";
    else
      EXPECT_GT(skipped, 0u);
  }
  // Odd h, and h well above n / 2.
  for (const std::size_t hh : {h + 11, 3 * problem.data.n() / 4}) check_needed_against_all(engine, problem.candidates, hh, 10);
}

TEST(LmsWindowBounds, SkippedCandidatesLeaveTheBestUnchangedInDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_elemental_candidates<double>();
}

TEST(LmsWindowBounds, SkippedCandidatesLeaveTheBestUnchangedInFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_elemental_candidates<float>();
}

// The benchmark's shape (bench_lts --n 1e6 --p 10 --method lms --subsets 3000): several
// batches of candidates per call; prints how many were skipped.
TEST(LmsWindowBounds, AtAMillionRowsTheBestAreUnchanged) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const Problem problem = elemental_problem(1000000, 9, 0.2, 3000, 2011);
  const std::size_t h = (problem.data.n() + 1) / 2;
  {
    cuda::CudaEngine<double> engine(problem.data, selection::Algorithm::automatic);
    const std::size_t skipped = check_needed_against_all(engine, problem.candidates, h, 10);
    std::cout << "double: " << skipped << " of " << problem.candidates.cols() << " candidates skipped\n";
    EXPECT_GT(skipped, problem.candidates.cols() / 2);
  }
  cuda::CudaEngine<float> engine(problem.data, selection::Algorithm::automatic);
  const std::size_t skipped = check_needed_against_all(engine, problem.candidates, h, 10);
  std::cout << "float: " << skipped << " of " << problem.candidates.cols() << " candidates skipped\n";
  EXPECT_GT(skipped, problem.candidates.cols() / 2);
}

TEST(LmsWindowBounds, NothingSkippedWhenAllCandidatesAreClose) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const Problem problem = elemental_problem(30000, 3, 0.2, 1, 5);
  Eigen::MatrixXd close(problem.candidates.rows(), 300);
  for (Eigen::Index j = 0; j < close.cols(); ++j) {
    close.col(j) = problem.candidates.col(0);
    close(1, j) *= 1 + 1e-12 * static_cast<double>(j);  // objectives equal to far below the bins
  }
  const std::size_t h = (problem.data.n() + 1) / 2;
  cuda::CudaEngine<double> dbl(problem.data, selection::Algorithm::automatic);
  EXPECT_EQ(check_needed_against_all(dbl, close, h, 10), 0u);
  cuda::CudaEngine<float> flt(problem.data, selection::Algorithm::automatic);
  EXPECT_EQ(check_needed_against_all(flt, close, h, 10), 0u);
}

TEST(LmsWindowBounds, RepeatedCandidatesCountOnce) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  // The best candidate 50 times (a different intercept each: replaced anyway), then the rest:
  // the repeats are one column in the kept set, so the nine next ones must not be skipped.
  const Problem problem = elemental_problem(30000, 3, 0.3, 600, 9);
  cuda::CudaEngine<double> engine(problem.data, selection::Algorithm::automatic);
  const std::size_t h = (problem.data.n() + 1) / 2;
  Eigen::MatrixXd all = problem.candidates;
  std::vector<double> exact(static_cast<std::size_t>(all.cols()));
  engine.lms_objectives(all, h, true, exact, Engine::kAllCandidates);
  const auto best = std::min_element(exact.begin(), exact.end()) - exact.begin();
  Eigen::MatrixXd repeated(all.rows(), 50 + problem.candidates.cols());
  for (Eigen::Index j = 0; j < 50; ++j) {
    repeated.col(j) = problem.candidates.col(best);
    repeated(0, j) += static_cast<double>(j);
  }
  repeated.rightCols(problem.candidates.cols()) = problem.candidates;
  check_needed_against_all(engine, repeated, h, 10);
}

// ---- fits: the CUDA engine against the CPU engine ------------------------------------------

void expect_same_fit(const regression::FitResult& cpu, const regression::FitResult& gpu) {
  EXPECT_EQ(gpu.backend, "cuda");
  EXPECT_NEAR(gpu.objective, cpu.objective, 1e-9 * cpu.objective);
  EXPECT_EQ(gpu.outlier, cpu.outlier);
  for (Eigen::Index j = 0; j < cpu.coefficients.size(); ++j)
    EXPECT_NEAR(gpu.coefficients(j), cpu.coefficients(j), 1e-7 * (1 + std::abs(cpu.coefficients(j))));
}

TEST(LmsWindowBounds, FitsEqualTheCpuEngine) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  struct Case {
    std::size_t n, q;
    double epsilon;
    data::Contamination contamination;
    bool default_search;  // else 3000 subsets
  };
  for (const Case c : {Case{40000, 5, 0.4, data::Contamination::vertical, false},
                       Case{30000, 3, 0.2, data::Contamination::bad_leverage, false},
                       Case{20000, 4, 0.3, data::Contamination::vertical, true}}) {
    data::ScenarioSpec spec;
    spec.n = c.n;
    spec.q = c.q;
    spec.epsilon = c.epsilon;
    spec.contamination = c.contamination;
    spec.seed = 3 + c.n;
    const auto scenario = data::make_scenario(spec);
    SCOPED_TRACE("n = " + std::to_string(c.n) + ", epsilon " + std::to_string(c.epsilon));
    regression::LmsOptions options;
    if (!c.default_search) options.subsets = 3000;
    options.backend = regression::Backend::cpu;
    const auto cpu = regression::fit_lms(scenario.X, scenario.y, options);
    options.backend = regression::Backend::cuda;
    expect_same_fit(cpu, regression::fit_lms(scenario.X, scenario.y, options));
  }
}

}  // namespace
}  // namespace robustfit::testing
