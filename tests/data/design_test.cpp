// Design matrices from tables: column choice, cell problems of used columns, dropped rows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "robustfit/data/design.hpp"

namespace rd = robustfit::data;

namespace {

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

rd::Table table_of(const std::string& text) { return rd::parse_csv(text, "data.csv"); }

rd::DesignOptions options_for(std::string response, std::vector<std::string> predictors = {},
                              bool drop_missing = false) {
  rd::DesignOptions options;
  options.response = std::move(response);
  options.predictors = std::move(predictors);
  options.drop_missing = drop_missing;
  return options;
}

std::string design_error(const rd::Table& table, const rd::DesignOptions& options) {
  try {
    rd::make_design(table, options);
  } catch (const rd::DataError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no DataError";
  return {};
}

std::string column_error(const rd::Table& table, std::string_view name, bool drop_missing) {
  try {
    rd::numeric_column(table, name, drop_missing);
  } catch (const rd::DataError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no DataError";
  return {};
}

using Rows = std::vector<std::size_t>;
using Names = std::vector<std::string>;

}  // namespace

TEST(MakeDesign, DefaultPredictorsAreAllOtherColumnsInOrder) {
  const rd::Table table = table_of("a,y,b\n1,10,4\n2,20,5\n3,30,6\n");
  const rd::Design design = rd::make_design(table, options_for("y"));
  EXPECT_EQ(design.response, "y");
  EXPECT_EQ(design.predictors, (Names{"a", "b"}));
  ASSERT_EQ(design.X.rows(), 3);
  ASSERT_EQ(design.X.cols(), 2);
  EXPECT_EQ(design.y, Eigen::Vector3d(10, 20, 30));
  EXPECT_EQ(design.X.col(0), Eigen::Vector3d(1, 2, 3));
  EXPECT_EQ(design.X.col(1), Eigen::Vector3d(4, 5, 6));
  EXPECT_EQ(design.data_rows, (Rows{1, 2, 3}));
  EXPECT_EQ(design.dropped_rows, 0u);
}

TEST(MakeDesign, ExplicitPredictorsKeepTheirOrderAndUnusedTextColumnsAreHarmless) {
  const rd::Table table = table_of("label,a,b,y,junk\nfirst,1,4,7,\nsecond,2,5,8,NaN\n");
  const rd::Design design = rd::make_design(table, options_for("y", {"b", "a"}));
  EXPECT_EQ(design.predictors, (Names{"b", "a"}));
  EXPECT_EQ(design.X.col(0), Eigen::Vector2d(4, 5));
  EXPECT_EQ(design.X.col(1), Eigen::Vector2d(1, 2));
  EXPECT_EQ(design.y, Eigen::Vector2d(7, 8));
}

TEST(MakeDesign, ResponseOnlyGivesAnInterceptOnlyDesign) {
  const rd::Table table = table_of("y\n1\n2\n");
  const rd::Design design = rd::make_design(table, options_for("y"));
  EXPECT_EQ(design.X.rows(), 2);
  EXPECT_EQ(design.X.cols(), 0);
  EXPECT_TRUE(design.predictors.empty());
}

TEST(MakeDesignErrors, ResponseIsRequired) {
  const rd::Table table = table_of("x,y\n1,2\n");
  EXPECT_TRUE(contains(design_error(table, options_for("")), "data.csv: no response column"));
}

TEST(MakeDesignErrors, UnknownColumnsListTheAvailableNames) {
  const rd::Table table = table_of("x,y,z\n1,2,3\n");
  const std::string response = design_error(table, options_for("w"));
  EXPECT_TRUE(contains(response, "data.csv"));
  EXPECT_TRUE(contains(response, "no column named 'w'"));
  EXPECT_TRUE(contains(response, "'x', 'y', 'z'"));
  const std::string predictor = design_error(table, options_for("y", {"x", "v"}));
  EXPECT_TRUE(contains(predictor, "no column named 'v'"));
  EXPECT_TRUE(contains(predictor, "'x', 'y', 'z'"));
}

TEST(MakeDesignErrors, ResponseListedAsPredictor) {
  const rd::Table table = table_of("x,y\n1,2\n");
  EXPECT_TRUE(contains(design_error(table, options_for("y", {"x", "y"})),
                       "data.csv: column 'y' is the response and cannot also be a predictor"));
}

TEST(MakeDesignErrors, DuplicatedPredictor) {
  const rd::Table table = table_of("x,y,z\n1,2,3\n");
  EXPECT_TRUE(contains(design_error(table, options_for("y", {"x", "z", "x"})),
                       "data.csv: predictor 'x' is listed more than once"));
}

TEST(MakeDesignErrors, NonNumericCellIsAnErrorEvenWhenDroppingMissing) {
  const rd::Table table = table_of("x,y\n1,2\n\n3,abc\n4,5\n");
  const std::string expected = "data.csv:4:y: non-numeric value 'abc'";
  EXPECT_TRUE(contains(design_error(table, options_for("y")), expected));
  EXPECT_TRUE(contains(design_error(table, options_for("y", {}, true)), expected));
}

TEST(MakeDesignErrors, MissingValueSuggestsDropMissing) {
  const rd::Table table = table_of("x,y\n1,2\n,3\n");
  EXPECT_TRUE(contains(design_error(table, options_for("y")),
                       "data.csv:3:x: missing value (use --drop-missing to drop such rows)"));
  const rd::Table na = table_of("x,y\n1,NA\n");
  EXPECT_TRUE(contains(design_error(na, options_for("y")),
                       "data.csv:2:y: missing value 'NA' (use --drop-missing"));
}

TEST(MakeDesignErrors, NonFiniteValue) {
  const rd::Table table = table_of("x;y\n1;2\n2;3\n-Inf;4\n");
  EXPECT_TRUE(contains(design_error(table, options_for("y")),
                       "data.csv:4:x: non-finite value '-Inf' (use --drop-missing"));
  const rd::Table nan = table_of("x;y\n1;NaN\n");
  EXPECT_TRUE(contains(design_error(nan, options_for("y")), "data.csv:2:y: non-finite value 'NaN'"));
}

TEST(MakeDesignErrors, ReportsTheFirstProblemInFileOrder) {
  // z's problem (line 3) comes before x's (line 4), though x is the first predictor.
  const rd::Table table = table_of("x,y,z\n1,1,1\n2,2,bad\nbad,3,3\n");
  EXPECT_TRUE(contains(design_error(table, options_for("y", {"x", "z"})),
                       "data.csv:3:z: non-numeric value 'bad'"));
  // On one line, the leftmost column of the file.
  const rd::Table same_line = table_of("x,y,z\n1,1,1\nfoo,2,bar\n");
  EXPECT_TRUE(contains(design_error(same_line, options_for("y", {"z", "x"})),
                       "data.csv:3:x: non-numeric value 'foo'"));
}

TEST(MakeDesign, DropMissingDropsAndCountsRowsAndKeepsDataRowNumbers) {
  // Data rows: 1 ok, 2 missing x, 3 ok, 4 Inf y, 5 NA in an unused column, 6 NaN and missing.
  const rd::Table table =
      table_of("x,y,unused\n1,10,a\n,20,b\n3,30,c\n\n4,Inf,d\n5,50,NA\nNaN,,f\n");
  const rd::Design design = rd::make_design(table, options_for("y", {"x"}, true));
  EXPECT_EQ(design.dropped_rows, 3u);
  EXPECT_EQ(design.data_rows, (Rows{1, 3, 5}));
  EXPECT_EQ(design.y, Eigen::Vector3d(10, 30, 50));
  EXPECT_EQ(design.X.col(0), Eigen::Vector3d(1, 3, 5));
  // Without drop_missing the first of them is an error.
  EXPECT_TRUE(contains(design_error(table, options_for("y", {"x"})), "data.csv:3:x: missing value"));
}

TEST(MakeDesignErrors, NoRowsLeftAfterDropping) {
  const rd::Table table = table_of("x,y\n,1\n2,NA\n");
  EXPECT_TRUE(contains(design_error(table, options_for("y", {}, true)),
                       "data.csv: no rows left after dropping 2 rows"));
}

TEST(NumericColumn, ReturnsValuesAndAppliesTheSameRules) {
  const rd::Table table = table_of("v,label\n1.5,a\nNA,b\n-2,c\ninf,d\n");
  const rd::ColumnData data = rd::numeric_column(table, "v", true);
  EXPECT_EQ(data.values, (std::vector<double>{1.5, -2.0}));
  EXPECT_EQ(data.data_rows, (Rows{1, 3}));
  EXPECT_EQ(data.dropped_rows, 2u);

  EXPECT_TRUE(contains(column_error(table, "v", false),
                       "data.csv:3:v: missing value 'NA' (use --drop-missing"));
  EXPECT_TRUE(contains(column_error(table, "label", true), "data.csv:2:label: non-numeric value 'a'"));
  const std::string unknown = column_error(table, "w", false);
  EXPECT_TRUE(contains(unknown, "no column named 'w'"));
  EXPECT_TRUE(contains(unknown, "'v', 'label'"));
}

TEST(NumericColumn, NoRowsLeft) {
  const rd::Table table = table_of("v,w\nNA,1\n,2\n");
  EXPECT_TRUE(contains(column_error(table, "v", true), "data.csv: no rows left"));
  EXPECT_EQ(rd::numeric_column(table, "w", false).values, (std::vector<double>{1.0, 2.0}));
}
