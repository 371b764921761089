// knn_predict against scikit-learn 1.2 (KNeighborsRegressor/Classifier, algorithm='brute') on
// datasets it ships; fixtures and the exact calls: tests/fixtures/make_knn_fixtures.py. Only
// tie-free (query, k) pairs are compared (the two libraries break ties differently, see there).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "robustfit/data/csv.hpp"
#include "robustfit/neighbors/knn.hpp"
#include "test_paths.hpp"

namespace nb = robustfit::neighbors;

namespace {

struct Split {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
};

Split load(const std::string& file) {
  const auto table = robustfit::data::read_csv(robustfit::testing::fixture_path(file));
  Split s{Eigen::MatrixXd(static_cast<Eigen::Index>(table.rows()), static_cast<Eigen::Index>(table.columns.size() - 1)),
          Eigen::VectorXd(static_cast<Eigen::Index>(table.rows()))};
  for (std::size_t r = 0; r < table.rows(); ++r) {
    for (std::size_t c = 0; c + 1 < table.columns.size(); ++c)
      s.X(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = table.columns[c].values[r];
    s.y[static_cast<Eigen::Index>(r)] = table.columns.back().values[r];
  }
  return s;
}

void compare(const std::string& name, nb::Mode mode) {
  const Split train = load("knn_" + name + "_train.csv"), query = load("knn_" + name + "_query.csv");
  std::ifstream in(robustfit::testing::fixture_path("knn_" + name + "_sklearn.json"));
  const auto fixture = nlohmann::json::parse(in);
  for (const auto& c : fixture["cases"]) {
    nb::KnnOptions o;
    o.k = c["k"].get<std::size_t>();
    o.weights = nb::parse_weights(c["weights"].get<std::string>());
    o.mode = mode;
    o.backend = robustfit::selection::Backend::cpu;
    const auto p = nb::knn_predict(train.X, train.y, query.X, o);
    std::size_t compared = 0;
    for (std::size_t i = 0; i < c["predictions"].size(); ++i) {
      if (!c["tie_free"][i].get<bool>()) continue;
      ++compared;
      const double expected = c["predictions"][i].get<double>();
      const double got = p.predictions[static_cast<Eigen::Index>(i)];
      if (mode == nb::Mode::classification)
        EXPECT_EQ(got, expected) << c["call"] << " query " << i;
      else
        EXPECT_NEAR(got, expected, 1e-9 * std::abs(expected)) << c["call"] << " query " << i;
    }
    EXPECT_GE(compared * 10, c["predictions"].size() * 9) << c["call"];  // nearly all are tie-free
  }
}

}  // namespace

TEST(KnnSklearn, DiabetesRegression) { compare("diabetes", nb::Mode::regression); }
TEST(KnnSklearn, WineClassification) { compare("wine", nb::Mode::classification); }
