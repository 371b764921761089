// FAST-LTS against robustbase::ltsReg (fixtures produced by tests/fixtures/make_fixtures.R).
// Acceptance: objective <= robustbase's (same h) within 1e-9 relative, identical outlier set,
// reweighted coefficients within 1e-4 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "reference_data.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {
namespace {

struct LtsCase {
  const char* name;
  const char* response;
};
// Readable in test listings and failures (GoogleTest would print the two pointers' bytes).
void PrintTo(const LtsCase& c, std::ostream* os) { *os << c.name << " (response " << c.response << ")"; }

class RobustbaseLts : public ::testing::TestWithParam<LtsCase> {};

void expect_relative(const Eigen::VectorXd& actual, const Eigen::VectorXd& expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (Eigen::Index j = 0; j < actual.size(); ++j)
    EXPECT_LE(std::abs(actual(j) - expected(j)), tolerance * std::abs(expected(j))) << "coefficient " << j;
}

TEST_P(RobustbaseLts, MatchesLtsReg) {
  const auto [name, response] = GetParam();
  const auto design = load_design(name, response);
  const auto r = load_fixture(std::string(name) + "_lts.json");
  const auto fit = regression::fit_lts(design.X, design.y, regression::LtsOptions{});

  EXPECT_EQ(fit.h, r["h"].get<std::size_t>());
  EXPECT_EQ(fit.p, r["p"].get<std::size_t>());
  EXPECT_LE(fit.objective, r["objective"].get<double>() * (1 + 1e-9));
  EXPECT_EQ(outlier_rows(fit.outlier), r["outliers"].get<std::vector<std::size_t>>());
  expect_relative(fit.coefficients, coefficients_of(r["coefficients"]), 1e-4);
  // Same optimum: then the raw fit, scales and R^2 follow robustbase's formulas exactly.
  if (std::abs(fit.objective - r["objective"].get<double>()) <= 1e-9 * fit.objective) {
    expect_relative(fit.raw_coefficients, coefficients_of(r["raw_coefficients"]), 1e-8);
    EXPECT_NEAR(fit.raw_scale, r["raw_scale"].get<double>(), 1e-9 * fit.raw_scale);
    EXPECT_NEAR(fit.scale, r["scale"].get<double>(), 1e-9 * fit.scale);
    EXPECT_NEAR(fit.r_squared, r["rsquared"].get<double>(), 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(Datasets, RobustbaseLts,
                         ::testing::Values(LtsCase{"stackloss", "stack.loss"}, LtsCase{"hbk", "Y"},
                                           LtsCase{"starsCYG", "log.light"}, LtsCase{"nested1000", "y"},
                                           LtsCase{"nested3000", "y"}),
                         [](const auto& instance) { return std::string(instance.param.name); });

TEST(FastLts, SameSeedSameFitOtherSeedSameOptimumOnStackloss) {
  const auto design = load_design("stackloss", "stack.loss");
  regression::LtsOptions options;
  options.seed = 42;
  const auto a = regression::fit_lts(design.X, design.y, options);
  const auto b = regression::fit_lts(design.X, design.y, options);
  EXPECT_EQ(a.raw_coefficients, b.raw_coefficients);
  EXPECT_EQ(a.best_subset, b.best_subset);
  options.seed = 7;
  const auto c = regression::fit_lts(design.X, design.y, options);
  EXPECT_NEAR(c.objective, a.objective, 1e-9 * a.objective);
}

TEST(FastLts, BestSubsetHoldsTheHSmallestResidualsOfTheRawFit) {
  const auto design = load_design("hbk", "Y");
  const auto fit = regression::fit_lts(design.X, design.y, regression::LtsOptions{});
  ASSERT_EQ(fit.best_subset.size(), fit.h);
  Eigen::MatrixXd X(design.X.rows(), design.X.cols() + 1);
  X << Eigen::VectorXd::Ones(design.X.rows()), design.X;
  const Eigen::VectorXd r2 = (design.y - X * fit.raw_coefficients).array().square();
  std::vector<double> sorted(r2.data(), r2.data() + r2.size());
  std::sort(sorted.begin(), sorted.end());
  double sum_h = 0, sum_subset = 0;
  for (std::size_t i = 0; i < fit.h; ++i) sum_h += sorted[i];
  for (std::size_t i : fit.best_subset) sum_subset += r2(static_cast<Eigen::Index>(i));
  EXPECT_NEAR(fit.objective, sum_h, 1e-12 * sum_h);
  EXPECT_NEAR(sum_subset, sum_h, 1e-12 * sum_h);
}

TEST(FastLts, AlphaAndExplicitH) {
  const auto design = load_design("starsCYG", "log.light");
  regression::LtsOptions options;
  options.alpha = 0.75;
  const auto by_alpha = regression::fit_lts(design.X, design.y, options);
  EXPECT_EQ(by_alpha.h, regression::h_alpha_n(0.75, 47, 2));
  EXPECT_EQ(regression::h_alpha_n(0.5, 47, 2), 25u);  // floor((n + p + 1) / 2)
  EXPECT_EQ(regression::h_alpha_n(0.75, 47, 2), 36u);  // robustbase::h.alpha.n(0.75, 47, 2)
  options.h = 30;
  EXPECT_EQ(regression::fit_lts(design.X, design.y, options).h, 30u);
}

}  // namespace
}  // namespace robustfit::testing
