// The inference table, its JSON fields and the outlier-map columns of the residuals CSV.
// Numbers against R: tests/fixtures/*_inference.json (tests/fixtures/make_inference_fixtures.R).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "fit_report.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

nlohmann::json fixture(const std::string& name) {
  std::ifstream in(fixture_path(name));
  return nlohmann::json::parse(in);
}

TEST(FitInferenceCli, TableHasTheCoefficientTableAndSummaryLines) {
  const auto run = run_cli({"fit", dataset_path("stackloss.csv").string(), "-y", "stack.loss"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // R: summary(ltsReg(stack.loss ~ ., data = stackloss)) prints the same rounded numbers.
  EXPECT_TRUE(contains(run.out, "Estimate  Std. Error  t value  Pr(>|t|)")) << run.out;
  EXPECT_TRUE(contains(run.out, "-7.957  2.37e-06 ***")) << run.out;
  EXPECT_TRUE(contains(run.out, "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"));
  EXPECT_TRUE(contains(run.out, "Residual standard error: 1.253 on 13 degrees of freedom")) << run.out;
  EXPECT_TRUE(contains(run.out, "Multiple R-squared: 0.975,\tAdjusted R-squared: 0.9692")) << run.out;
  EXPECT_TRUE(contains(run.out, "F-statistic: 169 on 3 and 13 DF,  p-value: 1.16e-10")) << run.out;
}

TEST(FitInferenceCli, JsonFieldsMatchSummaryLts) {
  const auto r = fixture("hbk_lts_inference.json");
  // robustbase's search (--subsets 500): the default search finds a lower raw objective on hbk,
  // and these fields are robustbase's formulas on robustbase's optimum.
  const auto run = run_cli({"fit", dataset_path("hbk.csv").string(), "-y", "Y", "--subsets", "500", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  const std::vector<std::string> ours = {"(Intercept)", "X1", "X2", "X3"}, rs = {"Intercept", "X1", "X2", "X3"};
  for (std::size_t k = 0; k < ours.size(); ++k)
    for (const char* field : {"estimate", "std_error", "t_value", "p_value"}) {
      const double expected = r["inference"][rs[k]][field].get<double>();
      EXPECT_NEAR(j["inference"][ours[k]][field].get<double>(), expected, 1e-6 * std::abs(expected)) << ours[k] << " " << field;
    }
  EXPECT_EQ(j["df"], r["df"]);
  EXPECT_NEAR(j["adj_r_squared"].get<double>(), r["adj_r_squared"].get<double>(), 1e-9);
  EXPECT_NEAR(j["multiple_r_squared"].get<double>(), r["multiple_r_squared"].get<double>(), 1e-9);
  EXPECT_NEAR(j["f_statistic"].get<double>(), r["f_statistic"].get<double>(), 1e-6 * r["f_statistic"].get<double>());
  EXPECT_NEAR(j["f_p_value"].get<double>(), r["f_p_value"].get<double>(), 1e-6 * r["f_p_value"].get<double>());
  EXPECT_EQ(j["f_df"], r["f_df"]);
  EXPECT_NEAR(j["residual_standard_error"].get<double>(), r["sigma"].get<double>(), 1e-9);
  // Existing keys keep their meaning: r_squared is still robustbase's robust R^2 of the fit.
  EXPECT_NEAR(j["r_squared"].get<double>(), fixture("hbk_lts.json")["rsquared"].get<double>(), 1e-9);
  // FAST-MCD runs by default for LTS: one robust distance and one class per row.
  EXPECT_EQ(j["robust_distances"].size(), j["n"].get<std::size_t>());
  EXPECT_NEAR(j["rd_cutoff"].get<double>(), r["rd_cutoff"].get<double>(), 1e-12);
  EXPECT_EQ(j["outlier_map"].size(), j["n"].get<std::size_t>());
}

// Robust distances are FAST-MCD's (another module): here robustbase's, put into the fit by hand.
struct HbkWithDistances {
  data::Design design;
  regression::FitResult fit;
  nlohmann::json r;
  HbkWithDistances() {
    data::DesignOptions options;
    options.response = "Y";
    design = data::make_design(data::read_csv(dataset_path("hbk.csv")), options);
    fit = regression::fit_lts(design.X, design.y, regression::LtsOptions{});
    r = fixture("hbk_lts_inference.json");
    fit.robust_distances = r["robust_distances"].get<std::vector<double>>();
    fit.rd_cutoff = r["rd_cutoff"].get<double>();
  }
};

TEST(FitInferenceReport, JsonAndCsvCarryDistancesAndClasses) {
  const HbkWithDistances hbk;
  const app::FitContext context{"hbk.csv", &hbk.design, 0.5, 0};
  const auto j = app::fit_json(hbk.fit, context);
  EXPECT_EQ(j["robust_distances"].size(), 75u);
  EXPECT_EQ(j["rd_cutoff"].get<double>(), hbk.fit.rd_cutoff);
  EXPECT_EQ(j["outlier_map"].get<std::vector<std::string>>(), hbk.r["outlier_map"].get<std::vector<std::string>>());

  const std::string path = temp_file("hbk_residuals.csv", "");
  app::write_residuals_csv(path, hbk.fit, context);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "row,fitted,residual,std_residual,weight,outlier,robust_distance,class");
  std::vector<std::string> classes;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    classes.push_back(line.substr(line.rfind(',') + 1));
    if (rows == 1) {
      EXPECT_EQ(line.substr(0, 2), "1,");
    }
  }
  EXPECT_EQ(rows, 75u);
  EXPECT_EQ(classes, hbk.r["outlier_map"].get<std::vector<std::string>>());

  std::ostringstream table;
  app::print_fit_table(table, hbk.fit, context);
  // R: 10 bad leverage points (rows 1-10), 4 good leverage points (11-14).
  EXPECT_TRUE(contains(table.str(), "61 regular, 0 vertical outliers, 4 good leverage, 10 bad leverage")) << table.str();
}

}  // namespace
}  // namespace robustfit::testing
