// The CUDA engine against the CPU engine: with the same seed both draw the same subsets and
// must reach the same objective (1e-9 relative) and the same outliers. The float engine
// against the double engine: the same outliers, the objective to the accuracy of float
// residuals. Skips without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <exception>
#include <ostream>
#include <thread>
#include <vector>

#include "gpu_skip.hpp"
#include "regression/src/cpu_engine.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/design_matrix.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/capabilities.hpp"
#include "tests/regression/reference_data.hpp"

namespace robustfit::testing {
namespace {

using regression::Backend;
using regression::Precision;

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
// Readable in test listings and failures (GoogleTest would print the two pointers' bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name << " (response " << c.response << ")"; }

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
                         [](const auto& instance) { return std::string(instance.param.name); });

// Every selection algorithm the CUDA engine accepts for --selection: the capability table's cell.
const std::vector<selection::Algorithm> kEngineSelections =
    selection::offered(selection::Backend::cuda, selection::Use::batched);

TEST(CudaEngine, EverySelectionAlgorithmGivesTheSameFit) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LtsOptions options;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_lts(design.X, design.y, options);
  options.backend = Backend::cuda;
  for (auto algorithm : kEngineSelections) {
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
    const auto gpu = regression::fit_lts(scenario.X, scenario.y, options);
    expect_same_fit(cpu, gpu);
    // Device time of the GEMMs and selections: measured on CUDA only, and part of the total.
    EXPECT_FALSE(cpu.timings.residuals_s.has_value());
    ASSERT_TRUE(gpu.timings.residuals_s.has_value() && gpu.timings.selection_s.has_value());
    EXPECT_GT(*gpu.timings.residuals_s, 0.0);
    EXPECT_GT(*gpu.timings.selection_s, 0.0);
    EXPECT_LT(*gpu.timings.residuals_s + *gpu.timings.selection_s, gpu.timings.total_s);
  }
}

// A wide design (30 predictors, q = 31: the masked Gram kernel with two pairs per thread): the
// same fit as the CPU backend.
TEST(CudaEngine, WideDesignSameFitAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  data::ScenarioSpec spec;
  spec.n = 100000;
  spec.q = 30;
  spec.epsilon = 0.2;
  spec.seed = 31;
  const auto scenario = data::make_scenario(spec);
  regression::LtsOptions options;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_lts(scenario.X, scenario.y, options);
  options.backend = Backend::cuda;
  const auto gpu = regression::fit_lts(scenario.X, scenario.y, options);
  expect_same_fit(cpu, gpu);
}

// ---- float precision ----------------------------------------------------------------------

constexpr double kLtsCutoff = 2.241402727604947;  // qnorm(0.9875), robustbase's reweighting cutoff
constexpr double kLmsCutoff = 2.5;                // Rousseeuw & Leroy's
// LTS: 1e-5 relative. The float engine only steers the search (starts, C-steps, the choice of
// the best candidate); the raw fit is then recomputed in double from the h-subset its
// coefficients imply (finish_lts). It can differ from the double engine's only in rows whose
// squared residuals tie with the h-th smallest to float accuracy (~1e-7 relative), and
// swapping such rows moves the objective by far less than 1e-5; a different local optimum
// (another h-subset) typically moves it by 1e-3 or more, which 1e-5 catches.
constexpr double kLtsFloatTolerance = 1e-5;

// LMS: its coefficients come from the engine (the intercept is the midpoint of the shortest
// window of float residuals), so the objective carries the error of a float residual,
// e = 2^-24 (|y| + sum_j |x_j b_j|) at most over the rows: h-th smallest r^2 = s^2 moves by
// about 2 s e. Tolerance: 1e-5 + 8 e / s relative (s = sqrt(objective), e from the double fit).
double lms_float_tolerance(const Eigen::MatrixXd& predictors, const Eigen::VectorXd& y, const regression::FitResult& fit) {
  const Eigen::Index q = predictors.cols();
  const Eigen::VectorXd& b = fit.raw_coefficients;
  const Eigen::VectorXd slopes = fit.intercept ? Eigen::VectorXd(b.tail(q)) : b;
  const double intercept = fit.intercept ? std::abs(b(0)) : 0.0;
  const double size = (y.cwiseAbs() + predictors.cwiseAbs() * slopes.cwiseAbs()).maxCoeff() + intercept;
  const double e = std::ldexp(size, -24);
  return 1e-5 + 8 * e / std::sqrt(fit.objective);
}

// The float fit against the double fit (both CUDA, same seed): objective within `tolerance`
// (relative), and the same outliers, except that a row may be flagged by one fit only where the
// double fit puts its standardized residual on the cutoff (within `tolerance`, relative) - a
// row on the cutoff flips with any rounding.
void expect_float_matches_double(const regression::FitResult& dbl, const regression::FitResult& flt, double cutoff,
                                 double tolerance) {
  EXPECT_EQ(dbl.precision, Precision::double_precision);
  EXPECT_EQ(flt.precision, Precision::single_precision);
  EXPECT_EQ(flt.backend, "cuda");
  EXPECT_EQ(flt.h, dbl.h);
  EXPECT_NEAR(flt.objective, dbl.objective, tolerance * dbl.objective);
  ASSERT_EQ(flt.outlier.size(), dbl.outlier.size());
  std::size_t differing = 0, outliers = 0;
  for (std::size_t i = 0; i < dbl.outlier.size(); ++i) {
    outliers += dbl.outlier[i];
    if (flt.outlier[i] == dbl.outlier[i]) continue;
    ++differing;
    const double z = std::abs(dbl.standardized_residuals(static_cast<Eigen::Index>(i)));
    EXPECT_NEAR(z, cutoff, tolerance * cutoff) << "row " << i << " is an outlier of one fit only, off the cutoff";
  }
  EXPECT_LE(differing, 2u) << "of " << outliers << " outliers";
  if (differing) std::cout << "[ note ] " << differing << " row(s) on the cutoff flagged by one fit only\n";
}

TEST_P(CudaEngineOnDatasets, FloatMatchesDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design(GetParam().name, GetParam().response);
  regression::LtsOptions lts;
  lts.backend = Backend::cuda;
  const auto dbl = regression::fit_lts(design.X, design.y, lts);
  lts.precision = Precision::single_precision;
  expect_float_matches_double(dbl, regression::fit_lts(design.X, design.y, lts), kLtsCutoff, kLtsFloatTolerance);
  if (std::string(GetParam().name).rfind("nested", 0) == 0) return;
  regression::LmsOptions lms;
  lms.backend = Backend::cuda;
  const auto dbl_lms = regression::fit_lms(design.X, design.y, lms);
  lms.precision = Precision::single_precision;
  const double tolerance = lms_float_tolerance(design.X, design.y, dbl_lms);
  SCOPED_TRACE("LMS tolerance " + std::to_string(tolerance));
  expect_float_matches_double(dbl_lms, regression::fit_lms(design.X, design.y, lms), kLmsCutoff, tolerance);
}

TEST(CudaEngine, FloatWithEverySelectionAlgorithm) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto design = load_design("hbk", "Y");
  regression::LtsOptions options;
  options.backend = Backend::cuda;
  const auto dbl = regression::fit_lts(design.X, design.y, options);
  options.precision = Precision::single_precision;
  for (auto algorithm : kEngineSelections) {
    options.selection = algorithm;
    SCOPED_TRACE(std::string(selection::to_string(algorithm)));
    expect_float_matches_double(dbl, regression::fit_lts(design.X, design.y, options), kLtsCutoff, kLtsFloatTolerance);
  }
}

TEST(CudaEngine, FloatOnGeneratedDataUpToAMillionRows) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (std::size_t n : {std::size_t{100000}, std::size_t{1000000}}) {
    data::ScenarioSpec spec;
    spec.n = n;
    spec.q = 5;
    spec.epsilon = 0.2;
    spec.seed = 7 + n;
    const auto scenario = data::make_scenario(spec);
    SCOPED_TRACE("n = " + std::to_string(n));
    regression::LtsOptions lts;
    lts.backend = Backend::cuda;
    const auto dbl = regression::fit_lts(scenario.X, scenario.y, lts);
    lts.precision = Precision::single_precision;
    expect_float_matches_double(dbl, regression::fit_lts(scenario.X, scenario.y, lts), kLtsCutoff, kLtsFloatTolerance);
    if (n > 100000) continue;  // LMS: 3000 candidates, each sorted in full
    regression::LmsOptions lms;
    lms.backend = Backend::cuda;
    const auto dbl_lms = regression::fit_lms(scenario.X, scenario.y, lms);
    lms.precision = Precision::single_precision;
    const double tolerance = lms_float_tolerance(scenario.X, scenario.y, dbl_lms);
    SCOPED_TRACE("LMS tolerance " + std::to_string(tolerance));
    expect_float_matches_double(dbl_lms, regression::fit_lms(scenario.X, scenario.y, lms), kLmsCutoff, tolerance);
  }
}

// ---- engine level ---------------------------------------------------------------------------

// Candidates near the scenario's model (coefficients 1): p x m, deterministic.
Eigen::MatrixXd candidates(std::size_t p, std::size_t m) {
  Eigen::MatrixXd betas(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(m));
  for (Eigen::Index j = 0; j < betas.cols(); ++j)
    for (Eigen::Index i = 0; i < betas.rows(); ++i) betas(i, j) = 1 + 0.3 * std::sin(static_cast<double>(7 * j + 3 * i + 1));
  return betas;
}

// An engine over more rows than the CPU takes (restrict_to above 20000 rows gives a CUDA engine
// that owns its rows) computes what the CPU engine computes on the same rows, in double and,
// to float accuracy, in float. Also: the engine refers to the caller's data, so `data` here
// must (and does) outlive it.
template <class Scalar>
void check_restricted_engine(double tolerance) {
  data::ScenarioSpec spec;
  spec.n = 60000;
  spec.q = 3;
  spec.epsilon = 0.1;
  const auto scenario = data::make_scenario(spec);
  const auto data = regression::detail::make_model_data(scenario.X, scenario.y, true);
  regression::cuda::CudaEngine<Scalar> engine(data, selection::Algorithm::automatic);
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < data.n(); i += 2) rows.push_back(i);
  const auto restricted = engine.restrict_to(rows);
  ASSERT_EQ(restricted->backend_name(), "cuda");
  ASSERT_EQ(restricted->rows(), rows.size());
  const auto subset = restricted->restrict_to(std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(subset->backend_name(), "cpu");

  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()), data.X.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    X.row(static_cast<Eigen::Index>(i)) = data.X.row(static_cast<Eigen::Index>(rows[i]));
    y(static_cast<Eigen::Index>(i)) = data.y(static_cast<Eigen::Index>(rows[i]));
  }
  regression::detail::CpuEngine cpu(X, y);
  const Eigen::MatrixXd betas = candidates(data.p(), 40);
  const std::size_t h = rows.size() / 2 + 3;
  std::vector<double> expected(40), got(40);
  cpu.lts_objectives(betas, h, expected);
  restricted->lts_objectives(betas, h, got);
  for (std::size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], expected[j], tolerance * expected[j]) << "candidate " << j;
}

TEST(CudaEngine, RestrictedEngineOwnsItsRows) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_restricted_engine<double>(1e-9);
  check_restricted_engine<float>(1e-5);
}

// C-steps through massive ties: small-integer data and (half-)integer coefficients make every
// squared residual an exact small number with hundreds of rows equal to the h-th smallest, so
// the h-subset must take the first of them in row order (the CUDA engine's ordered tie path; the
// continuous-data tests above cover its shortcut for columns that take all their ties). 40
// candidates (two mask words, two Gram groups) and 3 (the small-group kernel), each against the
// CPU engine on the same rows: the same objectives (exact sums) and refitted coefficients. With
// 30 predictors (q = 31) the masked Gram kernel keeps two pairs per thread and 16 candidates per
// read of X (kernels for wider designs than the datasets' 3); the integer data keep every Gram
// sum exact there too. Wider still (50 and 61 predictors), the rows every candidate takes are
// summed apart from the others, all in register tiles (tiled_gram.cuh).
template <class Scalar>
void check_c_steps_through_ties(std::size_t m, Eigen::Index predictors = 3) {
  const Eigen::Index n = 30011, q = predictors + 1;
  Eigen::MatrixXd X(n, predictors);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < predictors; ++j)
      X(i, j) = predictors <= 3 ? static_cast<double>((i * (j + 3) + i / (j + 7)) % 5)
                                : static_cast<double>((static_cast<std::uint64_t>(i + 1) * 2654435761u ^ static_cast<std::uint64_t>(j + 1) * 40503u) % 5);
    y(i) = 1 + X(i, 0) - X(i, 2) + static_cast<double>(i % 7 == 0 ? (i % 3) * 4 : i % 3 == 0 ? 1 : 0);
  }
  const auto data = regression::detail::make_model_data(X, y, true);
  ASSERT_TRUE((data.column_scale.array() == 1.0).all());  // the integers stay integers
  regression::detail::CpuEngine cpu(data.X, data.y);
  regression::cuda::CudaEngine<Scalar> gpu(data, selection::Algorithm::automatic);
  Eigen::MatrixXd betas(q, static_cast<Eigen::Index>(m));
  for (Eigen::Index j = 0; j < betas.cols(); ++j)
    for (Eigen::Index i = 0; i < q; ++i)
      betas(i, j) = static_cast<double>((3 * j + 5 * i) % 5) - 2 + (j % 4 == 3 ? 0.5 : 0.0);
  for (const std::size_t h : {static_cast<std::size_t>(n / 2 + 7), static_cast<std::size_t>(3 * n / 4)}) {
    SCOPED_TRACE("h = " + std::to_string(h) + ", m = " + std::to_string(m));
    Eigen::MatrixXd on_cpu = betas, on_gpu = betas;
    std::vector<double> before_cpu(m), before_gpu(m);
    cpu.c_step(on_cpu, h, before_cpu);
    gpu.c_step(on_gpu, h, before_gpu);
    for (std::size_t j = 0; j < m; ++j) {
      EXPECT_EQ(before_gpu[j], before_cpu[j]) << "candidate " << j;  // sums of small integers: exact
      for (Eigen::Index i = 0; i < q; ++i)
        EXPECT_NEAR(on_gpu(i, static_cast<Eigen::Index>(j)), on_cpu(i, static_cast<Eigen::Index>(j)),
                    1e-9 * (1 + std::abs(on_cpu(i, static_cast<Eigen::Index>(j)))))
            << "candidate " << j << ", coefficient " << i;
    }
  }
}

TEST(CudaEngine, CStepsThroughTiesMatchTheCpuEngine) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  check_c_steps_through_ties<double>(40);
  check_c_steps_through_ties<double>(3);
  check_c_steps_through_ties<float>(40);  // small integers and their squares are exact in float too
  check_c_steps_through_ties<double>(40, 30);
  check_c_steps_through_ties<double>(3, 30);
  check_c_steps_through_ties<float>(5, 30);
  // Up to 32 candidates of a wide design: the rows they all take summed once, the others four
  // candidates a block (tiled_gram.cuh: 4 x 4 tiles, 13 and 16 a side), 1, 3 and 4 in the last block.
  check_c_steps_through_ties<double>(20, 50);
  check_c_steps_through_ties<double>(1, 50);
  check_c_steps_through_ties<float>(32, 50);
  check_c_steps_through_ties<double>(7, 61);
}

// Engines on two host threads at once, as FAST-MCD's runs beside the LTS search: both launch the
// same masked Gram kernel (8 candidates, q(q+1)/2 <= 256 pairs) with dynamic shared memory that
// grows with q (q = 6 against q = 22: 12 against 44 KB). Each thread's C-steps must give what the
// same engine gives alone; when each launch set the kernel's (global) shared-memory allowance to
// its own size, the other thread's launch could find it too small and fail (cudaErrorInvalidValue).
TEST(CudaEngine, EnginesOfDifferentWidthsOnTwoThreads) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto make = [](Eigen::Index n, Eigen::Index q, unsigned seed) {
    const Eigen::MatrixXd X = Eigen::MatrixXd::Random(n, q);
    const Eigen::VectorXd y = X.rowwise().sum() + 0.1 * Eigen::VectorXd::Random(n) + Eigen::VectorXd::Constant(n, seed);
    return regression::detail::make_model_data(X, y, true);
  };
  std::srand(7);
  const auto narrow = make(40000, 4, 1), wide = make(40000, 20, 2);
  const auto run = [](const regression::detail::ModelData& data, int rounds) {
    regression::cuda::CudaEngine<double> engine(data, selection::Algorithm::automatic);
    const auto q = static_cast<Eigen::Index>(data.p());
    Eigen::MatrixXd betas = Eigen::MatrixXd::Constant(q, 8, 0.5);
    for (Eigen::Index j = 0; j < betas.cols(); ++j) betas(0, j) = static_cast<double>(j);
    std::vector<double> before(8);
    for (int r = 0; r < rounds; ++r) engine.c_step(betas, data.n() / 2 + 1, before);
    return betas;
  };
  const Eigen::MatrixXd narrow_alone = run(narrow, 40), wide_alone = run(wide, 40);
  Eigen::MatrixXd narrow_together, wide_together;
  std::exception_ptr failure;
  std::thread other([&] {
    try {
      wide_together = run(wide, 40);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  narrow_together = run(narrow, 40);
  other.join();
  if (failure) std::rethrow_exception(failure);
  EXPECT_EQ(narrow_together, narrow_alone);
  EXPECT_EQ(wide_together, wide_alone);
}

}  // namespace
}  // namespace robustfit::testing
