#pragma once
// Loading the reference datasets and the fixtures R produced (tests/fixtures/make_fixtures.R).
#include <Eigen/Core>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {

inline nlohmann::ordered_json load_fixture(const std::string& name) {
  std::ifstream in(fixture_path(name));
  return nlohmann::ordered_json::parse(in);  // keeps R's coefficient order
}

// The dataset `name` (bundled dataset or a fixture CSV) with `response` and every other column.
inline data::Design load_design(const std::string& name, const std::string& response) {
  const auto path = name.rfind("nested", 0) == 0 ? fixture_path(name + ".csv") : dataset_path(name + ".csv");
  data::DesignOptions options;
  options.response = response;
  return data::make_design(data::read_csv(path), options);
}

// Coefficients of an R fixture object in R's order (intercept first).
inline Eigen::VectorXd coefficients_of(const nlohmann::ordered_json& named) {
  std::vector<double> values;
  for (const auto& item : named.items()) values.push_back(item.value().get<double>());
  return Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

// 1-based data rows flagged as outliers by a fit.
inline std::vector<std::size_t> outlier_rows(const std::vector<bool>& flags) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (flags[i]) rows.push_back(i + 1);
  return rows;
}

}  // namespace robustfit::testing
