// DeviceRowReductions (regression/src/cuda/device_row_reductions.hpp) against the host's
// RowReductions on every selection distribution without infinities (ties, sorted, subnormal,
// huge values) and signed zeros, n from 1 to 2^20 across kDeviceReductionsMinRows, h from 1 to
// n: row lists, order statistics and window scans equal, trimmed sums to rounding. Then
// fit_lts / fit_mcd on the CUDA backend (whose finish and whole-data passes use it), and fit_lms
// (which keeps the host's), against the CPU backend. Skips without a device.
#include <gtest/gtest.h>

#include <Eigen/QR>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "mcd_compare.hpp"
#include "positive_diagonal.hpp"
#include "regression/src/cuda/cuda_engine.hpp"
#include "regression/src/cuda/device_row_reductions.hpp"
#include "regression/src/design_matrix.hpp"
#include "regression/src/engine_factory.hpp"
#include "regression/src/least_squares.hpp"
#include "regression/src/row_reductions.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"

namespace robustfit::testing {
namespace {

using regression::Backend;
using regression::cuda::DeviceRowReductions;
using regression::cuda::kDeviceReductionsMinRows;
using regression::detail::RowReductions;

Eigen::VectorXd as_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

// N(0,1) with a third +0 and a third -0: ties at zero whose signs differ.
std::vector<double> signed_zeros(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i % 3 == 0 ? 0.0 : i % 3 == 1 ? -0.0 : normal(random);
  std::shuffle(v.begin(), v.end(), random);
  return v;
}

struct Input {
  std::string name;
  Eigen::VectorXd values;
};

std::vector<Input> inputs(std::size_t n, std::uint64_t seed) {
  std::vector<Input> out;
  for (const data::Distribution d : data::all_distributions()) {
    if (d == data::Distribution::signed_zeros_and_infs) continue;  // the reductions see finite values
    out.push_back({std::string(data::to_string(d)), as_vector(data::make_distribution<double>(d, n, seed, 5))});
  }
  out.push_back({"signed_zeros", as_vector(signed_zeros(n, seed))});
  return out;
}

std::vector<std::size_t> coverages(std::size_t n) {
  // Both sides of 2h > n (shortest_window_below's two paths), the ends; fewer at 2^20 rows,
  // where the host's reference sorts dominate the test's time.
  std::vector<std::size_t> hs = {1, 2, n / 2, (n + 1) / 2 + 1, n - 1, n};
  if (n >= (std::size_t{1} << 20)) hs = {1, n / 2, (n + 1) / 2 + 1, n};
  hs.erase(std::remove_if(hs.begin(), hs.end(), [&](std::size_t h) { return h < 1 || h > n; }), hs.end());
  std::sort(hs.begin(), hs.end());
  hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
  return hs;
}

// Every override against the host's answer for one input and coverage.
void expect_same_answers(const RowReductions& host, const DeviceRowReductions& device, const Eigen::VectorXd& v,
                         std::size_t h) {
  const auto n = static_cast<std::size_t>(v.size());
  EXPECT_EQ(device.smallest_h(v, h), host.smallest_h(v, h));

  // Any summation order is within (n - 1) eps sum|v| of the exact sum.
  const double magnitude = v.cwiseAbs().sum() + static_cast<double>(h) * v.cwiseAbs().maxCoeff();
  const double tolerance = static_cast<double>(n) * std::numeric_limits<double>::epsilon() * magnitude;
  EXPECT_NEAR(device.trimmed_sum(v, h), host.trimmed_sum(v, h), tolerance);

  const std::vector<std::size_t> ks = {0, h - 1, n / 2, n - 1};
  EXPECT_EQ(device.kth_smallest_many(v, ks), host.kth_smallest_many(v, ks));

  EXPECT_EQ(device.min_window_variance(v, h), host.min_window_variance(v, h));

  const std::size_t middle[] = {n / 2};
  const double shift = host.kth_smallest_many(v, middle)[0];
  const auto a = device.min_variance_window(v, h, shift), b = host.min_variance_window(v, h, shift);
  EXPECT_EQ(a.best_start, b.best_start);
  EXPECT_EQ(a.best_sum, b.best_sum);
  EXPECT_EQ(a.best_ss, b.best_ss);
  EXPECT_EQ(a.sum, b.sum);
  EXPECT_EQ(a.squares, b.squares);

  // Bounds around the shortest window's half width (strictly below: the window itself is not).
  const auto widest = host.shortest_window_below(v, h, std::numeric_limits<double>::infinity());
  ASSERT_TRUE(widest.has_value());
  const double half = widest->half_width;
  for (const double bound : {std::numeric_limits<double>::infinity(), half, std::nextafter(half, INFINITY)}) {
    const auto x = device.shortest_window_below(v, h, bound), y = host.shortest_window_below(v, h, bound);
    ASSERT_EQ(x.has_value(), y.has_value()) << "bound " << bound;
    if (y) {
      EXPECT_EQ(x->center, y->center) << "bound " << bound;
      EXPECT_EQ(x->half_width, y->half_width) << "bound " << bound;
    }
  }
}

class DeviceRowReductionsSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(DeviceRowReductionsSizes, EveryOverrideEqualsTheHost) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = GetParam();
  const RowReductions host;
  for (const Input& input : inputs(n, n + 7)) {
    SCOPED_TRACE(input.name + ", n = " + std::to_string(n));
    DeviceRowReductions device;
    for (const std::size_t h : coverages(n)) {
      SCOPED_TRACE("h = " + std::to_string(h));
      expect_same_answers(host, device, input.values, h);
    }
    EXPECT_EQ(device.fallbacks(), 0u);
    if (n >= kDeviceReductionsMinRows) {
      EXPECT_GT(device.device_calls(), 0u);  // large inputs were answered by the device
    } else {
      EXPECT_EQ(device.device_calls(), 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AcrossTheThreshold, DeviceRowReductionsSizes,
                         ::testing::Values(std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
                                           kDeviceReductionsMinRows - 1, kDeviceReductionsMinRows,
                                           kDeviceReductionsMinRows + 1, std::size_t{300001}, std::size_t{1} << 20));

// Random coverages on one large input of many ties: the tie rule (lower rows first) decides.
TEST(DeviceRowReductions, RandomCoveragesWithTies) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 200003;
  const Eigen::VectorXd v = as_vector(data::make_distribution<double>(data::Distribution::distinct_d, n, 11, 3));
  const RowReductions host;
  DeviceRowReductions device;
  std::mt19937_64 random(13);
  for (int trial = 0; trial < 20; ++trial) {
    const std::size_t h = 1 + random() % n;
    SCOPED_TRACE("h = " + std::to_string(h));
    EXPECT_EQ(device.smallest_h(v, h), host.smallest_h(v, h));
    EXPECT_NEAR(device.trimmed_sum(v, h), host.trimmed_sum(v, h), 1e-12 * static_cast<double>(h) * 2);
  }
  EXPECT_EQ(device.fallbacks(), 0u);
}

// A NaN makes the device's selection refuse: the host answers, with the host's own error.
TEST(DeviceRowReductions, NanFallsBackToTheHostsError) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  std::vector<double> values = data::make_distribution<double>(data::Distribution::normal, kDeviceReductionsMinRows * 2, 3);
  values[1234] = std::numeric_limits<double>::quiet_NaN();
  const Eigen::VectorXd v = as_vector(values);
  const RowReductions host;
  DeviceRowReductions device;
  EXPECT_THROW(host.smallest_h(v, 100), std::invalid_argument);
  EXPECT_THROW(device.smallest_h(v, 100), std::invalid_argument);
  EXPECT_GE(device.fallbacks(), 1u);
  // Afterwards the device answers again.
  const Eigen::VectorXd clean = as_vector(data::make_distribution<double>(data::Distribution::normal, values.size(), 4));
  EXPECT_EQ(device.smallest_h(clean, 1000), host.smallest_h(clean, 1000));
  EXPECT_GE(device.device_calls(), 1u);
}

// Out-of-range arguments: the host's errors.
TEST(DeviceRowReductions, BadArgumentsGiveTheHostsErrors) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const Eigen::VectorXd v = as_vector(data::make_distribution<double>(data::Distribution::uniform, kDeviceReductionsMinRows, 5));
  const DeviceRowReductions device;
  EXPECT_THROW(device.smallest_h(v, 0), std::invalid_argument);
  EXPECT_THROW(device.smallest_h(v, static_cast<std::size_t>(v.size()) + 1), std::invalid_argument);
  const std::size_t too_far[] = {static_cast<std::size_t>(v.size())};
  EXPECT_THROW(device.kth_smallest_many(v, too_far), std::invalid_argument);
  EXPECT_FALSE(device.shortest_window_below(v, 10, 0.0).has_value());
}

TEST(DeviceRowReductions, TheCudaBackendGetsThem) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  EXPECT_NE(dynamic_cast<DeviceRowReductions*>(regression::detail::one_process_reductions(Backend::cuda).get()), nullptr);
  EXPECT_EQ(dynamic_cast<DeviceRowReductions*>(regression::detail::one_process_reductions(Backend::cpu).get()), nullptr);
}

data::Scenario contaminated(std::size_t n, std::size_t q, std::uint64_t seed) {
  data::ScenarioSpec spec;
  spec.n = n;
  spec.q = q;
  spec.epsilon = 0.2;
  spec.contamination = data::Contamination::bad_leverage;
  spec.seed = seed;
  return data::make_scenario(spec);
}

// The finish's QR factors of a subset of rows of the CUDA engine's design, by cuSOLVER on the
// engine's device copy, against the host's TSQR (reduced to one R): the same R to rounding and
// the same least-squares coefficients; anything but the engine's own host X and y, and work
// below the threshold, stay on the host (bit for bit the host's blocks).
TEST(DeviceRowReductions, LocalFactorsOfTheEnginesDesignAsTheHostTsqr) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const data::Scenario s = contaminated(100003, 12, 24);
  const auto data = regression::detail::make_model_data(s.X, s.y, true);
  regression::cuda::CudaEngine<double> engine(data, selection::Algorithm::automatic);
  ASSERT_TRUE(engine.device_design().has_value());
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < data.n(); ++i)
    if (i % 3 != 1 && i % 7 != 0) rows.push_back(i);
  const RowReductions host;
  const Eigen::MatrixXd blocks = host.local_factors(data.X, data.y, rows);
  const Eigen::MatrixXd host_R = positive_diagonal(Eigen::HouseholderQR<Eigen::MatrixXd>(blocks).matrixQR()
                                                       .topRows(blocks.cols()).triangularView<Eigen::Upper>());
  const DeviceRowReductions device(engine.device_design(), 0);
  const Eigen::MatrixXd device_R = device.local_factors(data.X, data.y, rows);
  EXPECT_EQ(device.device_calls(), 1u);
  ASSERT_EQ(device_R.rows(), host_R.rows());
  ASSERT_EQ(device_R.cols(), host_R.cols());
  const double size = host_R.cwiseAbs().maxCoeff();
  const Eigen::MatrixXd difference = positive_diagonal(device_R) - host_R;
  EXPECT_LT(difference.cwiseAbs().maxCoeff(), 1e-11 * size);
  const auto beta_host = regression::detail::ls_on_rows(data.X, data.y, rows);
  const auto beta_device = regression::detail::ls_of_factors(device_R, rows.size());
  ASSERT_TRUE(beta_host && beta_device);
  for (Eigen::Index j = 0; j < beta_host->size(); ++j)
    EXPECT_NEAR((*beta_device)(j), (*beta_host)(j), 1e-10 * (1 + std::abs((*beta_host)(j)))) << "coefficient " << j;

  // Another matrix with the same numbers is not the engine's copy; little work stays home too.
  const Eigen::MatrixXd X_copy = data.X;
  EXPECT_EQ(device.local_factors(X_copy, data.y, rows), blocks);
  const DeviceRowReductions thresholded(engine.device_design());
  EXPECT_EQ(thresholded.local_factors(data.X, data.y, rows), blocks);
  EXPECT_EQ(device.device_calls() + thresholded.device_calls(), 1u);
  // The float engine's copy is not the design's numbers.
  EXPECT_FALSE(regression::cuda::CudaEngine<float>(data, selection::Algorithm::automatic).device_design().has_value());
}

// Fits whose finish runs over the device's reductions (n above the threshold) against the CPU.
void expect_same_fit(const regression::FitResult& cpu, const regression::FitResult& gpu) {
  EXPECT_EQ(gpu.backend, "cuda");
  EXPECT_NEAR(gpu.objective, cpu.objective, 1e-9 * cpu.objective);
  EXPECT_EQ(gpu.best_subset, cpu.best_subset);
  EXPECT_EQ(gpu.outlier, cpu.outlier);
  for (Eigen::Index j = 0; j < cpu.coefficients.size(); ++j) {
    EXPECT_NEAR(gpu.coefficients(j), cpu.coefficients(j), 1e-9 * (1 + std::abs(cpu.coefficients(j))));
    EXPECT_NEAR(gpu.raw_coefficients(j), cpu.raw_coefficients(j), 1e-9 * (1 + std::abs(cpu.raw_coefficients(j))));
  }
  EXPECT_NEAR(gpu.scale, cpu.scale, 1e-9 * cpu.scale);
  EXPECT_NEAR(gpu.r_squared, cpu.r_squared, 1e-9);
  ASSERT_EQ(gpu.robust_distances.size(), cpu.robust_distances.size());
  for (std::size_t i = 0; i < cpu.robust_distances.size(); ++i)
    ASSERT_NEAR(gpu.robust_distances[i], cpu.robust_distances[i], 1e-8 * (1 + cpu.robust_distances[i])) << "row " << i;
}

TEST(DeviceRowReductionsFits, LtsWithAndWithoutInterceptSameAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const data::Scenario s = contaminated(200000, 4, 21);
  for (const bool intercept : {true, false}) {
    SCOPED_TRACE(intercept ? "intercept" : "no intercept");
    regression::LtsOptions options;
    options.subsets = 200;
    options.intercept = intercept;
    options.backend = Backend::cpu;
    const auto cpu = regression::fit_lts(s.X, s.y, options);
    options.backend = Backend::cuda;
    expect_same_fit(cpu, regression::fit_lts(s.X, s.y, options));
  }
}

TEST(DeviceRowReductionsFits, LmsSameAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const data::Scenario s = contaminated(100000, 3, 22);
  regression::LmsOptions options;
  options.subsets = 500;
  options.backend = Backend::cpu;
  const auto cpu = regression::fit_lms(s.X, s.y, options);
  options.backend = Backend::cuda;
  expect_same_fit(cpu, regression::fit_lms(s.X, s.y, options));
}

using robustfit::testing::expect_same_mcd;

// Multivariate (medians, MADs, the final h-subset over the device) and univariate (p = 1: the
// window scan, its rows and the trimmed sum of the criterion over the device).
TEST(DeviceRowReductionsFits, McdSameAsTheCpu) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (const std::size_t q : {std::size_t{1}, std::size_t{5}}) {
    SCOPED_TRACE("p = " + std::to_string(q));
    const data::Scenario s = contaminated(150000, q, 23);
    regression::McdOptions options;
    options.seed = 4;
    options.backend = Backend::cpu;
    const auto cpu = regression::fit_mcd(s.X, options);
    options.backend = Backend::cuda;
    expect_same_mcd(cpu, regression::fit_mcd(s.X, options));
  }
}

}  // namespace
}  // namespace robustfit::testing
