// The streaming scenario generator: the same numbers as the original in-memory generator (kept
// here as the reference), planted outliers and coefficients as stated, the parameters, and
// byte-identical CSV output.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "robustfit/common/random.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/scenario_writer.hpp"
#include "robustfit/data/scenarios.hpp"

namespace rd = robustfit::data;

namespace {

// The in-memory generator as it was before the streaming one (commit ca941f1,
// data/src/scenarios.cpp), unchanged but for names: the reference the stream must reproduce.
std::vector<bool> reference_choose_rows(std::size_t n, std::size_t count, robustfit::common::Random& random) {
  std::vector<bool> chosen(n, false);
  std::size_t needed = count;
  for (std::size_t i = 0; i < n && needed > 0; ++i) {
    if (random.uniform() * static_cast<double>(n - i) < static_cast<double>(needed)) {
      chosen[i] = true;
      --needed;
    }
  }
  return chosen;
}

rd::Scenario reference_make_scenario(const rd::ScenarioSpec& spec) {
  using Random = robustfit::common::Random;
  const auto n = static_cast<Eigen::Index>(spec.n);
  const auto q = static_cast<Eigen::Index>(spec.q);
  const auto model = [q](const Eigen::MatrixXd& X, Eigen::Index i) { return q == 0 ? 1.0 : 1.0 + X.row(i).sum(); };
  rd::Scenario s;
  s.beta = Eigen::VectorXd::Ones(q + 1);
  s.X.resize(n, q);
  s.y.resize(n);
  Eigen::VectorXd errors(n);
  Random clean(spec.seed, 0);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < q; ++j) s.X(i, j) = clean.normal();
    errors(i) = clean.normal();
  }
  const auto contaminated = static_cast<std::size_t>(std::llround(spec.epsilon * static_cast<double>(spec.n)));
  Random picker(spec.seed, 1);
  const std::vector<bool> chosen = reference_choose_rows(spec.n, contaminated, picker);
  std::vector<bool> leverage_in_mix(spec.n, false);
  if (spec.contamination == rd::Contamination::mixed) {
    const std::vector<bool> half = reference_choose_rows(contaminated, contaminated / 2, picker);
    for (std::size_t i = 0, k = 0; i < spec.n; ++i)
      if (chosen[i]) leverage_in_mix[i] = half[k++];
  }
  Random noise(spec.seed, 2);
  s.planted_outlier.assign(spec.n, false);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto row = static_cast<std::size_t>(i);
    if (!chosen[row]) {
      s.y(i) = model(s.X, i) + errors(i);
      continue;
    }
    rd::Contamination kind = spec.contamination;
    if (kind == rd::Contamination::mixed)
      kind = leverage_in_mix[row] ? rd::Contamination::bad_leverage : rd::Contamination::vertical;
    switch (kind) {
      case rd::Contamination::vertical: s.y(i) = model(s.X, i) + errors(i) + noise.uniform(10.0, 100.0); break;
      case rd::Contamination::bad_leverage:
        s.X(i, 0) = 10.0 + 0.5 * noise.normal();
        s.y(i) = model(s.X, i) - 20.0 + 0.5 * noise.normal();
        break;
      case rd::Contamination::good_leverage: {
        const double sign = noise.uniform() < 0.5 ? -1.0 : 1.0;
        s.X(i, 0) = sign * noise.uniform(10.0, 20.0);
        s.y(i) = model(s.X, i) + errors(i);
        break;
      }
      case rd::Contamination::heavy_tails: s.y(i) = model(s.X, i) + noise.cauchy(); break;
      default: break;
    }
    s.planted_outlier[row] = kind != rd::Contamination::good_leverage;
  }
  return s;
}

rd::ScenarioSpec spec_of(std::size_t n, std::size_t q, double epsilon, rd::Contamination type, std::uint64_t seed = 11) {
  rd::ScenarioSpec spec;
  spec.n = n;
  spec.q = q;
  spec.epsilon = epsilon;
  spec.contamination = type;
  spec.seed = seed;
  return spec;
}

bool same_bits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

constexpr rd::Contamination kContaminated[] = {rd::Contamination::vertical, rd::Contamination::bad_leverage,
                                               rd::Contamination::good_leverage, rd::Contamination::heavy_tails,
                                               rd::Contamination::mixed};

std::string csv_text(const rd::ScenarioSpec& spec, std::string* truth = nullptr) {
  std::FILE* csv = std::tmpfile();
  std::FILE* json = truth ? std::tmpfile() : nullptr;
  rd::write_scenario_csv(spec, "test", csv, json);
  const auto read_all = [](std::FILE* f) {
    std::string text;
    std::rewind(f);
    char buffer[65536];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, got);
    std::fclose(f);
    return text;
  };
  if (truth) *truth = read_all(json);
  return read_all(csv);
}

}  // namespace

TEST(ScenarioStream, ReproducesTheOriginalInMemoryGeneratorBitForBit) {
  for (const auto type : kContaminated) {
    for (const double epsilon : {0.0, 0.1, 0.3, 0.45}) {
      for (const std::size_t q : {std::size_t{1}, std::size_t{3}}) {
        SCOPED_TRACE(std::string(rd::to_string(type)) + " eps " + std::to_string(epsilon) + " q " + std::to_string(q));
        const auto spec = spec_of(777, q, epsilon, type);
        const auto expected = reference_make_scenario(spec);
        const auto actual = rd::make_scenario(spec);
        EXPECT_TRUE(same_bits(actual.X, expected.X));
        EXPECT_TRUE(same_bits(actual.y, expected.y));
        EXPECT_EQ(actual.planted_outlier, expected.planted_outlier);
      }
    }
  }
  const auto intercept_only = spec_of(50, 0, 0.2, rd::Contamination::vertical);
  EXPECT_TRUE(same_bits(rd::make_scenario(intercept_only).y, reference_make_scenario(intercept_only).y));
}

TEST(ScenarioStream, RowsOneAtATimeEqualMakeScenario) {
  const auto spec = spec_of(500, 4, 0.3, rd::Contamination::mixed);
  const auto whole = rd::make_scenario(spec);
  rd::ScenarioStream stream(spec);
  std::vector<double> x(4);
  for (Eigen::Index i = 0; i < 500; ++i) {
    bool outlier = false;
    const double y = stream.next(x.data(), outlier);
    ASSERT_EQ(y, whole.y(i));
    for (Eigen::Index j = 0; j < 4; ++j) ASSERT_EQ(x[static_cast<std::size_t>(j)], whole.X(i, j));
    ASSERT_EQ(outlier, whole.planted_outlier[static_cast<std::size_t>(i)]);
  }
  EXPECT_EQ(stream.contaminated_rows(), 150u);
}

TEST(ScenarioStream, CleanRowsFollowTheStatedCoefficients) {
  // LS on the clean rows estimates beta with standard error about sigma / sqrt(n) per
  // coefficient (x ~ N(0, I)): n = 20000 gives 0.007; 5 standard errors is 0.035.
  auto spec = spec_of(20000, 3, 0.3, rd::Contamination::bad_leverage);
  spec.beta = {2.0, -1.0, 0.5, 3.0};
  spec.sigma = 1.0;
  const auto s = rd::make_scenario(spec);
  std::vector<Eigen::Index> clean;
  std::size_t planted = 0;
  for (Eigen::Index i = 0; i < 20000; ++i) {
    if (s.planted_outlier[static_cast<std::size_t>(i)]) ++planted;
    else clean.push_back(i);
  }
  EXPECT_EQ(planted, 6000u);
  Eigen::MatrixXd A(static_cast<Eigen::Index>(clean.size()), 4);
  Eigen::VectorXd b(static_cast<Eigen::Index>(clean.size()));
  for (Eigen::Index k = 0; k < A.rows(); ++k) {
    A(k, 0) = 1.0;
    A.row(k).tail(3) = s.X.row(clean[static_cast<std::size_t>(k)]);
    b(k) = s.y(clean[static_cast<std::size_t>(k)]);
  }
  const Eigen::VectorXd fit = A.colPivHouseholderQr().solve(b);
  for (Eigen::Index j = 0; j < 4; ++j) EXPECT_NEAR(fit(j), spec.beta[static_cast<std::size_t>(j)], 0.035) << j;
  const double residual_sd = std::sqrt((b - A * fit).squaredNorm() / double(A.rows() - 4));
  EXPECT_NEAR(residual_sd, 1.0, 0.03);
}

TEST(ScenarioStream, ParametersMoveTheContamination) {
  auto spec = spec_of(4000, 2, 0.25, rd::Contamination::vertical);
  spec.shift_min = 200;
  spec.shift_max = 300;
  auto s = rd::make_scenario(spec);
  for (Eigen::Index i = 0; i < 4000; ++i) {
    const double r = s.y(i) - (1 + s.X(i, 0) + s.X(i, 1));
    if (s.planted_outlier[static_cast<std::size_t>(i)]) {
      EXPECT_GT(r, 190);
    }
  }
  spec = spec_of(4000, 2, 0.25, rd::Contamination::bad_leverage);
  spec.leverage_x = -30;
  spec.leverage_spread = 0;
  spec.leverage_offset = 50;
  spec.leverage_y_spread = 0;
  s = rd::make_scenario(spec);
  for (Eigen::Index i = 0; i < 4000; ++i) {
    if (!s.planted_outlier[static_cast<std::size_t>(i)]) continue;
    EXPECT_EQ(s.X(i, 0), -30.0);
    EXPECT_NEAR(s.y(i) - (1 + s.X(i, 0) + s.X(i, 1)), 50.0, 1e-9);
  }
}

TEST(ScenarioStream, StudentTErrorsHaveTheirQuantiles) {
  // t with 3 df: P(|T| > 3.182) = 0.05 (the 0.975 quantile).
  auto spec = spec_of(40000, 1, 0.45, rd::Contamination::heavy_tails);
  spec.t_df = 3;
  const auto s = rd::make_scenario(spec);
  std::size_t planted = 0, beyond = 0;
  for (Eigen::Index i = 0; i < s.y.size(); ++i) {
    if (!s.planted_outlier[static_cast<std::size_t>(i)]) continue;
    ++planted;
    beyond += std::abs(s.y(i) - 1 - s.X(i, 0)) > 3.182;
  }
  ASSERT_EQ(planted, 18000u);
  EXPECT_NEAR(double(beyond) / 18000.0, 0.05, 0.006);  // binomial sd 0.0016
}

TEST(ScenarioStream, RejectsBadParameters) {
  auto spec = spec_of(100, 2, 0.1, rd::Contamination::vertical);
  spec.beta = {1, 2};  // needs 3
  EXPECT_THROW(rd::make_scenario(spec), std::invalid_argument);
  spec = spec_of(100, 2, 0.1, rd::Contamination::vertical);
  spec.sigma = 0;
  EXPECT_THROW(rd::make_scenario(spec), std::invalid_argument);
  spec = spec_of(100, 2, 0.1, rd::Contamination::none);
  EXPECT_THROW(rd::make_scenario(spec), std::invalid_argument);  // clean with contamination
  spec.epsilon = 0;
  EXPECT_NO_THROW(rd::make_scenario(spec));
}

TEST(ScenarioWriter, CsvReadsBackToTheSameNumbersAndIsByteIdentical) {
  const auto spec = spec_of(2000, 3, 0.2, rd::Contamination::mixed);
  std::string truth;
  const std::string text = csv_text(spec, &truth);
  EXPECT_EQ(text, csv_text(spec));
  EXPECT_NE(text, csv_text(spec_of(2000, 3, 0.2, rd::Contamination::mixed, 12)));
  const auto table = rd::parse_csv(text, "generated");
  const auto s = rd::make_scenario(spec);
  ASSERT_EQ(table.columns.size(), 4u);
  EXPECT_EQ(table.columns[0].name, "x1");
  EXPECT_EQ(table.columns[3].name, "y");
  ASSERT_EQ(table.rows(), 2000u);
  for (std::size_t i = 0; i < 2000; ++i) {
    for (std::size_t j = 0; j < 3; ++j)
      ASSERT_EQ(table.columns[j].values[i], s.X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)));
    ASSERT_EQ(table.columns[3].values[i], s.y(static_cast<Eigen::Index>(i)));
  }
  // The truth file lists exactly the planted rows, 1-based.
  std::string expected = "\"outliers\": [";
  bool first = true;
  for (std::size_t i = 0; i < 2000; ++i) {
    if (!s.planted_outlier[i]) continue;
    expected += (first ? "" : ", ") + std::to_string(i + 1);
    first = false;
  }
  EXPECT_NE(truth.find(expected + "]}"), std::string::npos);
  EXPECT_EQ(truth.rfind("{\"scenario\": \"test\", \"n\": 2000, \"p\": 3, \"contamination\": 0.2, \"seed\": 11, "
                        "\"coefficients\": {\"(Intercept)\": 1, \"x1\": 1, \"x2\": 1, \"x3\": 1}", 0),
            0u)
      << truth.substr(0, 200);
}

TEST(ScenarioWriter, SelectionColumnsEqualMakeDistribution) {
  for (const auto d : rd::all_distributions()) {
    SCOPED_TRACE(std::string(rd::to_string(d)));
    std::FILE* f = std::tmpfile();
    rd::write_distribution_csv(d, 70000, 5, 16, "x", f);  // more than one block of 65536
    std::rewind(f);
    std::string text;
    char buffer[65536];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, got);
    std::fclose(f);
    const auto table = rd::parse_csv(text, "column");
    const auto expected = rd::make_distribution<double>(d, 70000, 5, 16);
    ASSERT_EQ(table.rows(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const double got = table.columns[0].values[i];
      if (std::isinf(expected[i]) || std::isnan(got)) continue;  // Inf cells read back as not finite
      ASSERT_EQ(std::signbit(got), std::signbit(expected[i])) << i;
      ASSERT_EQ(got, expected[i]) << i;
    }
  }
}
