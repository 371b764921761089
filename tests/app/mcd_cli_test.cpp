// robust-fit mcd, end to end: the covMcd fixtures through the CLI, output formats, the exact-fit
// message, --drop-missing, and bad input (exit code + message); fit --no-mcd.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

nlohmann::json fixture(const std::string& name) {
  std::ifstream in(fixture_path(name));
  return nlohmann::json::parse(in);
}

void expect_error(const CliRun& run, int code, const std::vector<std::string>& parts) {
  EXPECT_EQ(run.exit_code, code) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_EQ(run.err.rfind("robust-fit: error: ", 0), 0u) << run.err;
  for (const auto& part : parts) EXPECT_TRUE(contains(run.err, part)) << "missing '" << part << "' in: " << run.err;
}

TEST(McdCli, JsonMatchesCovMcdOnStackloss) {
  const auto run = run_cli({"mcd", dataset_path("stackloss.csv").string(), "--columns", "Air.Flow,Water.Temp,Acid.Conc.",
                            "--output", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  const auto r = fixture("stackloss_mcd.json");
  EXPECT_EQ(j["h"], r["h"]);
  EXPECT_EQ(j["flagged"], r["flagged"]);
  EXPECT_EQ(j["best_subset"], r["best"]);
  EXPECT_NEAR(j["log_det"].get<double>(), r["crit"].get<double>(), 1e-9);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(j["center"][k].get<double>(), r["center"][k].get<double>(), 1e-8);
  const auto& mah = r["mah"];
  for (std::size_t i = 0; i < mah.size(); ++i)
    EXPECT_NEAR(j["distances"][i].get<double>(), std::sqrt(mah[i].get<double>()), 1e-7) << "row " << i + 1;
  EXPECT_NEAR(j["cutoff"].get<double>(), std::sqrt(9.3484036044961449), 1e-12);
  EXPECT_EQ(j["exact_fit"], false);
}

TEST(McdCli, TableListsLocationScatterAndFlaggedRows) {
  const auto run = run_cli({"mcd", dataset_path("hbk.csv").string(), "--columns", "X1,X2,X3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "Location (reweighted)"));
  EXPECT_TRUE(contains(run.out, "Scatter (reweighted)"));
  EXPECT_TRUE(contains(run.out, "Flagged rows (14 of 75): 1 2 3 4 5 6 7 8 9 10 11 12 13 14\n"));
}

TEST(McdCli, ExactFitSaysSoAsRobustbase) {
  const auto run = run_cli({"mcd", fixture_path("mcd_constant_column.csv").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "Exact fit: " + fixture("mcd_constant_column_mcd.json")["message"].get<std::string>()))
      << run.out;
}

TEST(McdCli, DropMissingKeepsDataRowNumbers) {
  std::string csv = "a,b\n";
  for (int i = 1; i <= 40; ++i)
    csv += (i == 3 ? std::string("NA") : std::to_string(std::sin(i) * 3)) + "," + std::to_string(std::cos(i * 1.7) + (i > 36 ? 50 : 0)) + "\n";
  const std::string path = temp_file("missing.csv", csv);
  expect_error(run_cli({"mcd", path}), 1, {"missing.csv"});
  const auto run = run_cli({"mcd", path, "--drop-missing", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "dropped 1 of 40 rows"));
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["n"], 39);
  EXPECT_EQ(j["flagged"], nlohmann::json({37, 38, 39, 40}));  // data rows, not positions
}

TEST(McdCli, BadInput) {
  const std::string stackloss = dataset_path("stackloss.csv").string();
  expect_error(run_cli({"mcd"}), 2, {"mcd: no data file given"});
  expect_error(run_cli({"mcd", stackloss, "--alpha", "0.3"}), 2, {"--alpha: '0.3'"});
  expect_error(run_cli({"mcd", stackloss, "--subsets", "0"}), 2, {"--subsets: '0'"});
  expect_error(run_cli({"mcd", stackloss, "--backend", "gpu"}), 2, {"gpu"});
  expect_error(run_cli({"mcd", stackloss, "--columns", "Air.Flow,nope"}), 1, {"no column named 'nope'"});
  const std::string tiny = temp_file("tiny.csv", "a,b,c\n1,2,3\n4,5,7\n2,9,1\n");
  expect_error(run_cli({"mcd", tiny}), 1, {"tiny.csv", "MCD needs more than p + 1 observations: n = 3, p = 3"});
}

TEST(FitCli, NoMcdSkipsTheRobustDistancesOnly) {
  const std::string stackloss = dataset_path("stackloss.csv").string();
  const auto with = run_cli({"fit", stackloss, "-y", "stack.loss", "-o", "json"});
  const auto without = run_cli({"fit", stackloss, "-y", "stack.loss", "-o", "json", "--no-mcd"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  ASSERT_EQ(without.exit_code, 0) << without.err;
  auto a = nlohmann::json::parse(with.out), b = nlohmann::json::parse(without.out);
  EXPECT_EQ(a["coefficients"], b["coefficients"]);
  EXPECT_EQ(a["outliers"], b["outliers"]);
}

}  // namespace
}  // namespace robustfit::testing
