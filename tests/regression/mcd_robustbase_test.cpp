// FAST-MCD against robustbase::covMcd (fixtures produced by tests/fixtures/make_mcd_fixtures.R).
// Acceptance: objective (log det of the best h-subset's covariance) never worse than
// robustbase's; the same flagged rows; where the objective is equal, the raw and reweighted
// center and covariance, the distances and the best subset as robustbase's (1e-6 relative).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>

#include "reference_data.hpp"
#include "robustfit/regression/mcd.hpp"

namespace robustfit::testing {
namespace {

Eigen::VectorXd vector_of(const nlohmann::ordered_json& values) {
  std::vector<double> v = values.get<std::vector<double>>();
  return Eigen::Map<Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

Eigen::MatrixXd matrix_of(const nlohmann::ordered_json& rows) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j) m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j].get<double>();
  return m;
}

void expect_close(const Eigen::MatrixXd& actual, const Eigen::MatrixXd& expected, double tolerance, const char* what) {
  ASSERT_EQ(actual.rows(), expected.rows()) << what;
  ASSERT_EQ(actual.cols(), expected.cols()) << what;
  const double scale = std::max(1.0, expected.cwiseAbs().maxCoeff());
  for (Eigen::Index i = 0; i < actual.rows(); ++i)
    for (Eigen::Index j = 0; j < actual.cols(); ++j)
      EXPECT_NEAR(actual(i, j), expected(i, j), tolerance * scale) << what << " (" << i << ", " << j << ")";
}

// The fixture's variables of `dataset` (a bundled dataset, or a CSV beside the fixtures).
Eigen::MatrixXd variables(const std::string& dataset, const nlohmann::ordered_json& fixture, bool bundled) {
  const auto columns = fixture["columns"].get<std::vector<std::string>>();
  const auto table = data::read_csv(bundled ? dataset_path(dataset + ".csv") : fixture_path(dataset + ".csv"));
  Eigen::MatrixXd X(0, 0);
  for (std::size_t j = 0; j < columns.size(); ++j) {
    const auto column = data::numeric_column(table, columns[j], false);
    if (j == 0) X.resize(static_cast<Eigen::Index>(column.values.size()), static_cast<Eigen::Index>(columns.size()));
    X.col(static_cast<Eigen::Index>(j)) = Eigen::Map<const Eigen::VectorXd>(column.values.data(), X.rows());
  }
  return X;
}

struct McdCase {
  const char* name;     // the fixture
  const char* dataset;  // its data
  bool bundled;         // data/datasets, else tests/fixtures
};
void PrintTo(const McdCase& c, std::ostream* os) { *os << c.name; }

class RobustbaseMcd : public ::testing::TestWithParam<McdCase> {};

TEST_P(RobustbaseMcd, MatchesCovMcd) {
  const auto [name, dataset, bundled] = GetParam();
  const auto r = load_fixture(std::string(name) + "_mcd.json");
  const Eigen::MatrixXd X = variables(dataset, r, bundled);
  const auto fit = regression::fit_mcd(X);

  EXPECT_EQ(fit.h, r["h"].get<std::size_t>());
  EXPECT_EQ(fit.flagged, r["flagged"].get<std::vector<std::size_t>>());
  EXPECT_EQ(fit.exact_fit, r["exact_fit"].get<bool>());
  if (fit.exact_fit) {
    EXPECT_EQ(fit.exact_fit_message, r["message"].get<std::string>());
    EXPECT_EQ(fit.log_det, -std::numeric_limits<double>::infinity());
    expect_close(fit.center, vector_of(r["center"]), 1e-9, "center");
    expect_close(fit.covariance, matrix_of(r["cov"]), 1e-9, "covariance");
    return;
  }
  const double crit = r["crit"].get<double>();
  EXPECT_LE(fit.log_det, crit + 1e-9 * std::abs(crit)) << "our MCD objective is worse than robustbase's";
  // A better optimum than robustbase's (hbk: its 500 random starts miss the one all starts
  // find, hbk_exhaustive): the estimates then differ by design.
  if (std::abs(fit.log_det - crit) > 1e-9 * std::abs(crit)) return;
  expect_close(fit.raw_center, vector_of(r["raw_center"]), 1e-6, "raw center");
  expect_close(fit.raw_covariance, matrix_of(r["raw_cov"]), 1e-6, "raw covariance");
  expect_close(fit.center, vector_of(r["center"]), 1e-6, "center");
  expect_close(fit.covariance, matrix_of(r["cov"]), 1e-6, "covariance");
  expect_close(fit.distances.array().square().matrix(), vector_of(r["mah"]), 1e-6, "distances");
  expect_close(fit.raw_distances.array().square().matrix(), vector_of(r["raw_mah"]), 1e-6, "raw distances");
  if (!r["best"].empty()) {
    EXPECT_EQ(fit.best_subset, r["best"].get<std::vector<std::size_t>>());
  }
}

INSTANTIATE_TEST_SUITE_P(Datasets, RobustbaseMcd,
                         ::testing::Values(McdCase{"stackloss", "stackloss", true}, McdCase{"hbk", "hbk", true},
                                           McdCase{"hbk_exhaustive", "hbk", true}, McdCase{"starsCYG", "starsCYG", true},
                                           McdCase{"mcd_constant_column", "mcd_constant_column", false},
                                           McdCase{"mcd_mad_zero", "mcd_mad_zero", false},
                                           McdCase{"nested1000", "nested1000", false},
                                           McdCase{"nested3000", "nested3000", false}),
                         [](const auto& instance) { return std::string(instance.param.name); });

}  // namespace
}  // namespace robustfit::testing
