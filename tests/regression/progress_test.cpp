// Progress callbacks of the fits: called between batches with fractions in [0, 1] that never
// decrease and end at 1; the fit itself is the same with or without a callback.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "reference_data.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"

namespace robustfit::testing {
namespace {

namespace rr = robustfit::regression;

struct Calls {
  std::vector<std::pair<std::string, double>> seen;
  rr::ProgressCallback callback() {
    return [this](std::string_view phase, double fraction) { seen.emplace_back(std::string(phase), fraction); };
  }
};

void expect_increasing_to_one(const Calls& calls, std::size_t at_least) {
  ASSERT_GE(calls.seen.size(), at_least);
  double last = 0;
  for (const auto& [phase, fraction] : calls.seen) {
    EXPECT_FALSE(phase.empty());
    EXPECT_GE(fraction, last) << phase;
    EXPECT_LE(fraction, 1.0) << phase;
    last = fraction;
  }
  EXPECT_EQ(calls.seen.back().second, 1.0);
  EXPECT_EQ(calls.seen.back().first, "finish");
  EXPECT_LT(calls.seen.front().second, 1.0);  // something before the end
}

// y = 1 + x1 - 2 x2 + 0.5 x3 + noise on n rows, 20 % of them shifted far off.
std::pair<Eigen::MatrixXd, Eigen::VectorXd> contaminated(Eigen::Index n) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0, 1);
  Eigen::MatrixXd X(n, 3);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) X(i, j) = normal(rng);
    y(i) = 1 + X(i, 0) - 2 * X(i, 1) + 0.5 * X(i, 2) + 0.1 * normal(rng) + (i % 5 == 0 ? 50.0 : 0.0);
  }
  return {X, y};
}

TEST(Progress, LtsOnSmallDataEndsAtOneAndChangesNothing) {
  const data::Design hbk = load_design("hbk", "Y");
  rr::LtsOptions options;
  const rr::FitResult silent = rr::fit_lts(hbk.X, hbk.y, options);
  Calls calls;
  options.progress = calls.callback();
  const rr::FitResult reported = rr::fit_lts(hbk.X, hbk.y, options);
  expect_increasing_to_one(calls, 3);
  EXPECT_EQ(reported.coefficients, silent.coefficients);
  EXPECT_EQ(reported.objective, silent.objective);
}

TEST(Progress, LtsNestedSubsamplesReportEachGroup) {
  const auto [X, y] = contaminated(3000);  // n >= 600: five subsamples, merged set, full data
  rr::LtsOptions options;
  options.mcd = false;
  Calls calls;
  options.progress = calls.callback();
  const rr::FitResult reported = rr::fit_lts(X, y, options);
  expect_increasing_to_one(calls, 5 + 1 + 1 + 1);
  options.progress = nullptr;
  EXPECT_EQ(rr::fit_lts(X, y, options).coefficients, reported.coefficients);
}

TEST(Progress, LmsReportsItsBatches) {
  const auto [X, y] = contaminated(200);
  rr::LmsOptions options;
  options.subsets = 10000;  // three batches of objectives
  Calls calls;
  options.progress = calls.callback();
  const rr::FitResult reported = rr::fit_lms(X, y, options);
  expect_increasing_to_one(calls, 1 + 3 + 1 + 1);
  options.progress = nullptr;
  EXPECT_EQ(rr::fit_lms(X, y, options).coefficients, reported.coefficients);
}

TEST(Progress, AllSubsetsReportEachChunk) {
  const auto [X, y] = contaminated(40);  // C(40, 4) = 91390 subsets: two chunks of 2^16
  Calls lts_calls, lms_calls;
  rr::LtsOptions lts;
  lts.subsets = rr::all_subsets;
  lts.mcd = false;
  lts.progress = lts_calls.callback();
  rr::fit_lts(X, y, lts);
  expect_increasing_to_one(lts_calls, 2 + 1);
  rr::LmsOptions lms;
  lms.subsets = rr::all_subsets;
  lms.progress = lms_calls.callback();
  rr::fit_lms(X, y, lms);
  expect_increasing_to_one(lms_calls, 2 + 1);
  for (const Calls* calls : {&lts_calls, &lms_calls})
    EXPECT_EQ(std::count_if(calls->seen.begin(), calls->seen.end(), [](const auto& c) { return c.first == "subsets"; }), 2);
}

TEST(Progress, McdEndsAtOne) {
  const auto [X, y] = contaminated(1000);
  rr::McdOptions options;
  Calls calls;
  options.progress = calls.callback();
  const rr::McdResult reported = rr::fit_mcd(X, options);
  expect_increasing_to_one(calls, 3);
  options.progress = nullptr;
  EXPECT_EQ(rr::fit_mcd(X, options).center, reported.center);
}

}  // namespace
}  // namespace robustfit::testing
