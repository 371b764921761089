// The JSON reports' per-row arrays written as text (app/json_rows.hpp) against nlohmann's
// dump(2) of the same values, byte for byte: single arrays of doubles and row numbers, the
// splice into a report, and the fit and mcd reports as the CLI prints them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "fit_report.hpp"
#include "generated_fit.hpp"
#include "json_rows.hpp"
#include "mcd_report.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/mcd.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

using nlohmann::ordered_json;

// On a difference, the line where it starts: gtest's diff of two texts of 10^5 lines takes more
// memory than the test machine has.
::testing::AssertionResult same_text(const std::string& written, const std::string& dumped) {
  if (written == dumped) return ::testing::AssertionSuccess();
  const std::size_t common = std::min(written.size(), dumped.size());
  std::size_t at = 0;
  while (at < common && written[at] == dumped[at]) ++at;
  const std::size_t line = at == 0 ? 0 : dumped.rfind('\n', at - 1) + 1;
  return ::testing::AssertionFailure() << "first difference at byte " << at << " of " << dumped.size()
                                       << "\nwritten: " << written.substr(line, at - line + 40)
                                       << "\ndump(2): " << dumped.substr(line, at - line + 40);
}

std::string written(const ordered_json& report, const std::vector<app::JsonArrayMember>& arrays) {
  std::ostringstream out;
  app::write_json(out, report, arrays);
  return out.str();
}

// `values` as member "a" of a small report, through write_json and through nlohmann.
template <class T>
void expect_array_like_nlohmann(const std::vector<T>& values) {
  ordered_json report = {{"before", 1}, {"a", nullptr}, {"after", "x"}};
  std::vector<app::JsonArrayMember> arrays;
  arrays.push_back({"a", app::json_array_text(std::span<const T>(values))});
  const std::string text = written(report, arrays);
  report["a"] = values;
  EXPECT_TRUE(same_text(text, report.dump(2) + "\n")) << values.size() << " values";
}

std::vector<double> special_doubles() {
  const double inf = std::numeric_limits<double>::infinity();
  return {0.0, -0.0, 1.0, -1.0, 2.0, 1e-5, 1e-4, 0.1, 1.0 / 3, 123456789.0, 1e15, 1e16, 1e17, 1e21, 1e22, 1e-7,
          -2.5e-300, 1.7976931348623157e308, std::numeric_limits<double>::min(),
          std::numeric_limits<double>::denorm_min(), 3 * std::numeric_limits<double>::denorm_min(),
          2.2250738585072009e-308, 9007199254740993.0, 4503599627370496.5, 0.30000000000000004,
          std::nan(""), -std::nan(""), inf, -inf};
}

TEST(JsonRows, DoublesAreDumpTwoByteForByte) {
  expect_array_like_nlohmann(std::vector<double>{});
  for (double x : special_doubles()) expect_array_like_nlohmann(std::vector<double>{x});
  expect_array_like_nlohmann(special_doubles());
  // Every bit pattern (NaNs and infinities among them) and everyday values, over several chunks.
  std::mt19937_64 random(7);
  std::vector<double> bits(kManyRows), everyday(kManyRows);
  std::normal_distribution<double> normal(0, 3);
  for (std::size_t i = 0; i < kManyRows; ++i) {
    const std::uint64_t word = random();
    std::memcpy(&bits[i], &word, sizeof word);
    everyday[i] = i % 3 == 0 ? std::round(normal(random) * 100) : i % 3 == 1 ? normal(random) : std::exp(normal(random) * 20);
  }
  expect_array_like_nlohmann(bits);
  expect_array_like_nlohmann(everyday);
}

TEST(JsonRows, RowNumbersAreDumpTwoByteForByte) {
  expect_array_like_nlohmann(std::vector<std::size_t>{});
  expect_array_like_nlohmann(std::vector<std::size_t>{0});
  expect_array_like_nlohmann(std::vector<std::size_t>{1, 9, 10, 99, 100, 10000000000, std::numeric_limits<std::size_t>::max()});
  std::mt19937_64 random(8);
  std::vector<std::size_t> rows(kManyRows);
  for (std::size_t i = 0; i < kManyRows; ++i) rows[i] = i % 2 ? i + 1 : random() >> (random() % 64);
  expect_array_like_nlohmann(rows);
}

// Only the top-level member of that key is written over: not a nested member of the same key,
// not a string holding its text; members in any order, first and last included.
TEST(JsonRows, ArraysReplaceTheirTopLevelMembersOnly) {
  const std::vector<double> a = {1.5, -0.0};
  const std::vector<std::size_t> b = {3, 4}, c;
  ordered_json report = {{"b", nullptr},
                         {"nested", {{"a", nullptr}, {"list", {nullptr, {{"a", nullptr}}}}}},
                         {"text", "\n  \"a\": null"},
                         {"\n  \"a\": null", nullptr},
                         {"a", nullptr},
                         {"d", nullptr},
                         {"c", nullptr}};
  std::vector<app::JsonArrayMember> arrays;
  arrays.push_back({"c", app::json_array_text(std::span<const std::size_t>(c))});
  arrays.push_back({"a", app::json_array_text(std::span<const double>(a))});
  arrays.push_back({"b", app::json_array_text(std::span<const std::size_t>(b))});
  const std::string text = written(report, arrays);
  report["a"] = a;
  report["b"] = b;
  report["c"] = c;
  EXPECT_TRUE(same_text(text, report.dump(2) + "\n"));
}

TEST(JsonRows, AMemberThatIsNotATopLevelNullIsAnError) {
  const std::vector<double> a = {1};
  std::vector<app::JsonArrayMember> arrays;
  arrays.push_back({"a", app::json_array_text(std::span<const double>(a))});
  EXPECT_THROW(written({{"a", 1}}, arrays), std::logic_error);
  EXPECT_THROW(written({{"b", {{"a", nullptr}}}}, arrays), std::logic_error);
}

std::string printed_fit(const regression::FitResult& fit, const app::FitContext& context) {
  std::ostringstream out;
  app::print_fit_json(out, fit, context);
  return out.str();
}

TEST(JsonRows, FitReportIsFitJsonDumped) {
  GeneratedFit generated;
  const app::FitContext context{"generated.csv", &generated.design, 0.5, 9};
  ASSERT_GT(generated.fit.best_subset.size(), 32768u);
  ASSERT_GT(app::fit_json(generated.fit, context)["outliers"].size(), 1000u);
  EXPECT_TRUE(same_text(printed_fit(generated.fit, context), app::fit_json(generated.fit, context).dump(2) + "\n"));
  // Without robust distances (--no-mcd): those members are null.
  generated.fit.robust_distances.clear();
  EXPECT_TRUE(same_text(printed_fit(generated.fit, context), app::fit_json(generated.fit, context).dump(2) + "\n"));
}

TEST(JsonRows, DistributedFitReportIsFitJsonDumped) {
  GeneratedFit generated;
  app::DistributedRows rows;
  rows.ranks = 3;
  rows.bytes = 12345;
  rows.outlier_rows = {2, 7, 100000000000};
  rows.best_subset_rows = {1, 3};
  rows.has_robust_distances = true;
  rows.robust_distances = {0.5, std::nan(""), 1e21};
  rows.outlier_classes = {regression::OutlierClass::bad_leverage, regression::OutlierClass::regular,
                          regression::OutlierClass::vertical_outlier};
  const app::FitContext context{"generated.csv", &generated.design, 0.75, 1, &rows};
  EXPECT_TRUE(same_text(printed_fit(generated.fit, context), app::fit_json(generated.fit, context).dump(2) + "\n"));
  // A rank 0 without rows and a fit without robust distances.
  rows.best_subset_rows.clear();
  rows.outlier_rows.clear();
  rows.has_robust_distances = false;
  rows.robust_distances.clear();
  rows.outlier_classes.clear();
  EXPECT_TRUE(same_text(printed_fit(generated.fit, context), app::fit_json(generated.fit, context).dump(2) + "\n"));
}

TEST(JsonRows, McdReportIsMcdJsonDumped) {
  const std::vector<std::string> columns = {"X1", "X2", "X3"};
  const data::Design design = app::read_mcd_columns(data::read_csv(dataset_path("hbk.csv")), columns, false);
  regression::McdResult result = regression::fit_mcd(design.X);
  app::McdRows rows = app::mcd_rows_of(result, design);
  const auto printed = [&] {
    std::ostringstream out;
    app::print_mcd_json(out, result, rows, columns, "hbk.csv", 5);
    return out.str();
  };
  EXPECT_TRUE(same_text(printed(), app::mcd_json(result, rows, columns, "hbk.csv", 5).dump(2) + "\n"));
  // Under mpirun (ranks), with a non-finite distance; at an exact fit (no distances, log det -inf).
  rows.ranks = 2;
  rows.distances(0) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(same_text(printed(), app::mcd_json(result, rows, columns, "hbk.csv", 5).dump(2) + "\n"));
  result.exact_fit = true;
  result.exact_fit_message = "exact";
  result.log_det = -std::numeric_limits<double>::infinity();
  rows.distances.resize(0);
  rows.raw_distances.resize(0);
  rows.flagged.clear();
  EXPECT_TRUE(same_text(printed(), app::mcd_json(result, rows, columns, "hbk.csv", 5).dump(2) + "\n"));
}

}  // namespace
}  // namespace robustfit::testing
