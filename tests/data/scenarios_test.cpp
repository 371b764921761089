// Contaminated regression scenarios: shapes, reproducibility, and what each contamination does.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "robustfit/data/scenarios.hpp"

namespace rd = robustfit::data;

namespace {

rd::ScenarioSpec spec_of(std::size_t n, std::size_t q, double epsilon, rd::Contamination type,
                         std::uint64_t seed = 7) {
  rd::ScenarioSpec spec;
  spec.n = n;
  spec.q = q;
  spec.epsilon = epsilon;
  spec.contamination = type;
  spec.seed = seed;
  return spec;
}

// y - (beta0 + X beta) for the true beta.
Eigen::VectorXd true_residuals(const rd::Scenario& s) {
  const auto q = s.X.cols();
  return s.y - (Eigen::VectorXd::Constant(s.y.size(), s.beta(0)) + s.X * s.beta.tail(q));
}

std::size_t count(const std::vector<bool>& flags) {
  std::size_t total = 0;
  for (const bool flag : flags) total += flag ? 1 : 0;
  return total;
}

constexpr rd::Contamination kAll[] = {rd::Contamination::vertical, rd::Contamination::bad_leverage,
                                      rd::Contamination::good_leverage,
                                      rd::Contamination::heavy_tails, rd::Contamination::mixed};

}  // namespace

TEST(Scenarios, ShapesAndTrueCoefficients) {
  for (const auto type : kAll) {
    SCOPED_TRACE(std::string(rd::to_string(type)));
    const rd::Scenario s = rd::make_scenario(spec_of(200, 3, 0.2, type));
    EXPECT_EQ(s.X.rows(), 200);
    EXPECT_EQ(s.X.cols(), 3);
    EXPECT_EQ(s.y.size(), 200);
    EXPECT_EQ(s.beta, Eigen::VectorXd::Ones(4));
    EXPECT_EQ(s.planted_outlier.size(), 200u);
    EXPECT_TRUE(s.X.allFinite());
    EXPECT_TRUE(s.y.allFinite());
  }
}

TEST(Scenarios, DeterministicForASeedAndDifferentAcrossSeeds) {
  for (const auto type : kAll) {
    SCOPED_TRACE(std::string(rd::to_string(type)));
    const rd::Scenario a = rd::make_scenario(spec_of(500, 2, 0.3, type, 42));
    const rd::Scenario b = rd::make_scenario(spec_of(500, 2, 0.3, type, 42));
    const rd::Scenario c = rd::make_scenario(spec_of(500, 2, 0.3, type, 43));
    EXPECT_EQ(a.X, b.X);
    EXPECT_EQ(a.y, b.y);
    EXPECT_EQ(a.planted_outlier, b.planted_outlier);
    EXPECT_NE(a.X, c.X);
    EXPECT_NE(a.y, c.y);
  }
}

TEST(Scenarios, OutlierCountIsRoundedEpsilonTimesN) {
  struct Case {
    std::size_t n;
    double epsilon;
    std::size_t expected;
  };
  const Case cases[] = {{1000, 0.1, 100}, {1000, 0.45, 450}, {7, 0.25, 2},  // 1.75 -> 2
                        {9, 0.3, 3},      {3, 0.1, 0},       {1, 0.4, 0},   // 2.7 -> 3, 0.3 -> 0
                        {1000, 0.0, 0},   {11, 0.2, 2}};                     // 2.2 -> 2
  for (const Case& c : cases) {
    for (const auto type : {rd::Contamination::vertical, rd::Contamination::bad_leverage,
                            rd::Contamination::heavy_tails, rd::Contamination::mixed}) {
      SCOPED_TRACE(std::to_string(c.n) + " " + std::to_string(c.epsilon) + " " +
                   std::string(rd::to_string(type)));
      EXPECT_EQ(count(rd::make_scenario(spec_of(c.n, 2, c.epsilon, type)).planted_outlier),
                c.expected);
    }
  }
}

TEST(Scenarios, OutlierRowsDifferAcrossSeeds) {
  const auto a = rd::make_scenario(spec_of(1000, 1, 0.2, rd::Contamination::vertical, 1));
  const auto b = rd::make_scenario(spec_of(1000, 1, 0.2, rd::Contamination::vertical, 2));
  EXPECT_NE(a.planted_outlier, b.planted_outlier);
  // Chosen over the whole range, not a block at the start or the end.
  std::size_t first_half = 0;
  for (std::size_t i = 0; i < 500; ++i) first_half += a.planted_outlier[i] ? 1 : 0;
  EXPECT_GT(first_half, 70u);
  EXPECT_LT(first_half, 130u);
}

TEST(Scenarios, CleanDataFollowsTheModel) {
  const rd::Scenario s = rd::make_scenario(spec_of(20000, 3, 0.0, rd::Contamination::vertical));
  EXPECT_EQ(count(s.planted_outlier), 0u);
  const Eigen::VectorXd e = true_residuals(s);
  const double mean = e.mean();
  const double sd = std::sqrt((e.array() - mean).square().sum() / double(e.size() - 1));
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(sd, 1.0, 0.03);
  for (Eigen::Index j = 0; j < 3; ++j) {
    const Eigen::VectorXd x = s.X.col(j);
    EXPECT_NEAR(x.mean(), 0.0, 0.03);
    EXPECT_NEAR(std::sqrt(x.squaredNorm() / double(x.size())), 1.0, 0.03);
  }
  // Independent columns.
  EXPECT_NEAR(s.X.col(0).dot(s.X.col(1)) / 20000.0, 0.0, 0.03);
}

TEST(Scenarios, CleanRowsAndChosenRowsAreSharedAcrossContaminationTypes) {
  const auto vertical = rd::make_scenario(spec_of(300, 2, 0.2, rd::Contamination::vertical));
  const auto heavy = rd::make_scenario(spec_of(300, 2, 0.2, rd::Contamination::heavy_tails));
  const auto clean = rd::make_scenario(spec_of(300, 2, 0.0, rd::Contamination::vertical));
  EXPECT_EQ(vertical.planted_outlier, heavy.planted_outlier);
  EXPECT_EQ(vertical.X, clean.X);  // neither moves x
  for (Eigen::Index i = 0; i < 300; ++i) {
    if (!vertical.planted_outlier[static_cast<std::size_t>(i)]) {
      EXPECT_EQ(vertical.y(i), clean.y(i));
      EXPECT_EQ(heavy.y(i), clean.y(i));
    }
  }
}

TEST(Scenarios, VerticalOutliersAreShiftedUpBy10To100Sigma) {
  const rd::Scenario s = rd::make_scenario(spec_of(5000, 2, 0.2, rd::Contamination::vertical));
  const Eigen::VectorXd r = true_residuals(s);
  double shifted_sum = 0.0;
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    if (s.planted_outlier[static_cast<std::size_t>(i)]) {
      EXPECT_GT(r(i), 5.0);    // U(10, 100) plus N(0, 1)
      EXPECT_LT(r(i), 105.0);
      shifted_sum += r(i);
    } else {
      EXPECT_LT(std::abs(r(i)), 5.0);
    }
  }
  EXPECT_NEAR(shifted_sum / 1000.0, 55.0, 3.0);  // the mean of U(10, 100)
}

TEST(Scenarios, BadLeveragePointsAreAClusterAtX1Near10OffTheModel) {
  const rd::Scenario s = rd::make_scenario(spec_of(4000, 3, 0.25, rd::Contamination::bad_leverage));
  const Eigen::VectorXd r = true_residuals(s);
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    if (s.planted_outlier[static_cast<std::size_t>(i)]) {
      EXPECT_NEAR(s.X(i, 0), 10.0, 3.0);
      EXPECT_LT(r(i), -15.0);
    } else {
      EXPECT_LT(std::abs(s.X(i, 0)), 6.0);
      EXPECT_LT(std::abs(r(i)), 5.0);
    }
  }
}

TEST(Scenarios, GoodLeveragePointsAreFarInXButOnTheModelAndNotFlagged) {
  const rd::Scenario s =
      rd::make_scenario(spec_of(2000, 2, 0.1, rd::Contamination::good_leverage));
  EXPECT_EQ(count(s.planted_outlier), 0u);
  const Eigen::VectorXd r = true_residuals(s);
  std::size_t far = 0;
  std::size_t negative = 0;
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    EXPECT_LT(std::abs(r(i)), 5.0);
    if (std::abs(s.X(i, 0)) >= 10.0) {
      ++far;
      negative += s.X(i, 0) < 0 ? 1 : 0;
      EXPECT_LE(std::abs(s.X(i, 0)), 20.0);
    }
  }
  EXPECT_EQ(far, 200u);  // exactly the contaminated rows: N(0, 1) does not reach 10
  EXPECT_GT(negative, 60u);  // both sides
  EXPECT_LT(negative, 140u);
}

TEST(Scenarios, HeavyTailsPutCauchyErrorsOnTheFlaggedRows) {
  const rd::Scenario s = rd::make_scenario(spec_of(20000, 1, 0.4, rd::Contamination::heavy_tails));
  const Eigen::VectorXd r = true_residuals(s);
  std::size_t flagged = 0;
  std::size_t flagged_large = 0;
  std::size_t clean_large = 0;
  double flagged_max = 0.0;
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    const bool large = std::abs(r(i)) > 2.5;
    if (s.planted_outlier[static_cast<std::size_t>(i)]) {
      ++flagged;
      flagged_large += large ? 1 : 0;
      flagged_max = std::max(flagged_max, std::abs(r(i)));
    } else {
      clean_large += large ? 1 : 0;
    }
  }
  ASSERT_EQ(flagged, 8000u);
  // P(|Cauchy| > 2.5) = 1 - 2 atan(2.5) / pi = 0.242; P(|N(0,1)| > 2.5) = 0.0124.
  EXPECT_NEAR(double(flagged_large) / 8000.0, 0.242, 0.02);
  EXPECT_NEAR(double(clean_large) / 12000.0, 0.0124, 0.005);
  // P(|C| > 100) = 0.0064: about 51 of 8000 draws; none at all would be a broken generator.
  EXPECT_GT(flagged_max, 100.0);
}

TEST(Scenarios, MixedIsHalfBadLeverageHalfVertical) {
  const rd::Scenario s = rd::make_scenario(spec_of(1001, 2, 0.3, rd::Contamination::mixed));
  const Eigen::VectorXd r = true_residuals(s);
  std::size_t leverage = 0;
  std::size_t vertical = 0;
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    if (!s.planted_outlier[static_cast<std::size_t>(i)]) {
      EXPECT_LT(std::abs(r(i)), 5.0);
      continue;
    }
    if (s.X(i, 0) > 6.0) {
      ++leverage;
      EXPECT_LT(r(i), -15.0);
    } else {
      ++vertical;
      EXPECT_GT(r(i), 5.0);
    }
  }
  EXPECT_EQ(leverage + vertical, 300u);  // round(300.3)
  EXPECT_EQ(leverage, 150u);             // floor(300 / 2)
}

TEST(Scenarios, InterceptOnlyModel) {
  const rd::Scenario s = rd::make_scenario(spec_of(100, 0, 0.1, rd::Contamination::vertical));
  EXPECT_EQ(s.X.cols(), 0);
  EXPECT_EQ(s.beta, Eigen::VectorXd::Ones(1));
  EXPECT_EQ(count(s.planted_outlier), 10u);
  const Eigen::VectorXd r = true_residuals(s);
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r(i) > 5.0, s.planted_outlier[static_cast<std::size_t>(i)]);
  }
  // Moving x1 needs an x1; without contamination any type is fine.
  EXPECT_THROW(rd::make_scenario(spec_of(100, 0, 0.1, rd::Contamination::bad_leverage)),
               std::invalid_argument);
  EXPECT_NO_THROW(rd::make_scenario(spec_of(100, 0, 0.0, rd::Contamination::bad_leverage)));
}

TEST(Scenarios, RejectsEpsilonOutsideTheRangeAndEmptyScenarios) {
  for (const double epsilon : {-0.01, 0.5, 0.7, std::numeric_limits<double>::quiet_NaN()}) {
    SCOPED_TRACE(epsilon);
    try {
      rd::make_scenario(spec_of(100, 2, epsilon, rd::Contamination::vertical));
      ADD_FAILURE() << "no std::invalid_argument";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("epsilon must be in [0, 0.5)"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_NO_THROW(rd::make_scenario(spec_of(100, 2, 0.49, rd::Contamination::vertical)));
  EXPECT_THROW(rd::make_scenario(spec_of(0, 2, 0.1, rd::Contamination::vertical)),
               std::invalid_argument);
}

TEST(Scenarios, ContaminationNamesRoundTrip) {
  for (const auto type : kAll) EXPECT_EQ(rd::parse_contamination(rd::to_string(type)), type);
  EXPECT_EQ(rd::to_string(rd::Contamination::bad_leverage), "bad_leverage");
  EXPECT_EQ(rd::parse_contamination("heavy-tails"), rd::Contamination::heavy_tails);
  try {
    rd::parse_contamination("sideways");
    FAIL() << "no std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'sideways'"), std::string::npos) << message;
    EXPECT_NE(message.find("vertical, bad_leverage, good_leverage, heavy_tails, mixed"),
              std::string::npos)
        << message;
  }
}
