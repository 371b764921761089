// LMS against MASS::lqs(method = "lms") (fixtures produced by tests/fixtures/make_fixtures.R).
// Acceptance: our objective (h-th smallest squared residual) <= MASS's at the same h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>

#include "reference_data.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {
namespace {

struct LmsCase {
  const char* name;
  const char* response;
};
// Readable in test listings and failures (GoogleTest would print the two pointers' bytes).
void PrintTo(const LmsCase& c, std::ostream* os) { *os << c.name << " (response " << c.response << ")"; }

class MassLms : public ::testing::TestWithParam<LmsCase> {};

TEST_P(MassLms, ObjectiveNoWorseThanLqs) {
  const auto [name, response] = GetParam();
  const auto design = load_design(name, response);
  const auto r = load_fixture(std::string(name) + "_lms.json");
  const auto fit = regression::fit_lms(design.X, design.y, regression::LmsOptions{});
  EXPECT_EQ(fit.h, r["h"].get<std::size_t>());
  EXPECT_LE(fit.objective, r["objective"].get<double>() * (1 + 1e-9));

  // The objective really is the h-th smallest squared residual of the raw coefficients.
  Eigen::MatrixXd X(design.X.rows(), design.X.cols() + 1);
  X << Eigen::VectorXd::Ones(design.X.rows()), design.X;
  const Eigen::VectorXd r2 = (design.y - X * fit.raw_coefficients).array().square();
  std::vector<double> sorted(r2.data(), r2.data() + r2.size());
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(fit.objective, sorted[fit.h - 1], 1e-12 * sorted[fit.h - 1]);

  // Rousseeuw & Leroy's raw scale is MASS's first scale times (1 + 5 / (n - p)) at equal objective.
  const double n = static_cast<double>(fit.n), p = static_cast<double>(fit.p);
  const double mass_scale = r["scale"][0].get<double>();
  const double expected = mass_scale * std::sqrt(fit.objective / r["objective"].get<double>()) * (1 + 5 / (n - p));
  EXPECT_NEAR(fit.raw_scale, expected, 1e-9 * expected);
}

INSTANTIATE_TEST_SUITE_P(Datasets, MassLms,
                         ::testing::Values(LmsCase{"stackloss", "stack.loss"}, LmsCase{"hbk", "Y"},
                                           LmsCase{"starsCYG", "log.light"}),
                         [](const auto& instance) { return std::string(instance.param.name); });

TEST(Lms, EnumeratesAllSubsetsWhenFew) {
  const auto design = load_design("starsCYG", "log.light");  // C(47, 2) = 1081 <= 5000
  const auto fit = regression::fit_lms(design.X, design.y, regression::LmsOptions{});
  EXPECT_TRUE(fit.exhaustive);
  EXPECT_EQ(fit.subsets_tried, 1081u);
  regression::LmsOptions options;
  options.subsets = 100;
  EXPECT_FALSE(regression::fit_lms(design.X, design.y, options).exhaustive);
}

TEST(Lms, AdjustedInterceptIsOptimalForTheSlopes) {
  // Moving the intercept of the LMS fit either way cannot lower the h-th smallest r^2.
  const auto design = load_design("stackloss", "stack.loss");
  const auto fit = regression::fit_lms(design.X, design.y, regression::LmsOptions{});
  Eigen::MatrixXd X(design.X.rows(), design.X.cols() + 1);
  X << Eigen::VectorXd::Ones(design.X.rows()), design.X;
  for (double shift : {-1e-3, 1e-3, -0.1, 0.1}) {
    Eigen::VectorXd beta = fit.raw_coefficients;
    beta(0) += shift;
    const Eigen::VectorXd r2 = (design.y - X * beta).array().square();
    std::vector<double> sorted(r2.data(), r2.data() + r2.size());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_GE(sorted[fit.h - 1], fit.objective * (1 - 1e-12)) << "shift " << shift;
  }
}

}  // namespace
}  // namespace robustfit::testing
