// fit --residuals FILE (write_residuals_csv, formatted in row chunks) against data::write_csv of
// the same columns, byte for byte, the data row written as an integer; with robust distances,
// each of those lines followed by the outlier map's class. residuals_csv_rows (mpirun's part of the file) is the file less its header.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_runner.hpp"
#include "fit_report.hpp"
#include "generated_fit.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/regression/outlier_map.hpp"

namespace robustfit::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The file as data::write_csv writes the numeric columns, and with robust distances ",class"
// at the end of every line.
std::string expected_csv(const regression::FitResult& fit, const data::Design& design) {
  std::vector<std::vector<double>> columns(6);
  for (std::size_t i = 0; i < design.data_rows.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    columns[0].push_back(static_cast<double>(design.data_rows[i]));
    columns[1].push_back(fit.fitted(r));
    columns[2].push_back(fit.residuals(r));
    columns[3].push_back(fit.standardized_residuals(r));
    columns[4].push_back(fit.weights(r));
    columns[5].push_back(fit.outlier[i] ? 1.0 : 0.0);
  }
  std::vector<std::string> header = {"row", "fitted", "residual", "std_residual", "weight", "outlier"};
  const bool distances = !fit.robust_distances.empty();
  if (distances) {
    columns.push_back(fit.robust_distances);
    header.push_back("robust_distance");
  }
  const std::string path = temp_file("expected.csv", "");
  data::write_csv(path, header, columns);
  const auto classes = regression::outlier_map(fit);
  std::istringstream lines(read_file(path));
  std::string text, line;
  for (std::size_t k = 0; std::getline(lines, line); ++k) {
    // The data row as an integer (write_csv's shortest double would give 1e+06).
    text += k == 0 ? line : std::to_string(design.data_rows[k - 1]) + line.substr(line.find(','));
    if (distances) {
      text += ',';
      text += k == 0 ? std::string_view("class") : regression::to_string(classes[k - 1]);
    }
    text += '\n';
  }
  return text;
}

void expect_csv_like_write_csv(const regression::FitResult& fit, const data::Design& design) {
  const app::FitContext context{"generated.csv", &design, 0.5, 9};
  const std::string path = temp_file("residuals.csv", "");
  app::write_residuals_csv(path, fit, context);
  const std::string written = read_file(path), expected = expected_csv(fit, design);
  // EXPECT_TRUE, not EXPECT_EQ: gtest's diff of two 10^5-line texts runs out of memory.
  EXPECT_TRUE(written == expected) << written.size() << " bytes written, " << expected.size() << " expected";
  EXPECT_TRUE(written.substr(written.find('\n') + 1) == app::residuals_csv_rows(fit, context));
}

TEST(ResidualsCsv, IsWriteCsvOfTheColumnsByteForByte) {
  GeneratedFit generated;
  auto& fit = generated.fit;
  // Non-finite values, and row numbers that a double would print in exponent form.
  fit.fitted(0) = std::numeric_limits<double>::quiet_NaN();
  fit.residuals(1) = std::numeric_limits<double>::infinity();
  fit.standardized_residuals(2) = -std::numeric_limits<double>::infinity();
  fit.fitted(3) = -0.0;
  fit.residuals(4) = std::numeric_limits<double>::denorm_min();
  generated.design.data_rows[5] = 1000000;
  generated.design.data_rows[6] = 123456789012345678;
  expect_csv_like_write_csv(fit, generated.design);
  fit.robust_distances.clear();  // --no-mcd
  expect_csv_like_write_csv(fit, generated.design);
}

TEST(ResidualsCsv, NoRowsIsTheHeaderAlone) {
  const data::Design design;
  const regression::FitResult fit;
  expect_csv_like_write_csv(fit, design);
}

}  // namespace
}  // namespace robustfit::testing
