// robust-fit bench end to end: results that parse and agree with `fit` on the same generated
// file, breakdown, the HTML report and its images, and bad options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "robustfit/data/csv.hpp"

namespace robustfit::testing {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::pair<unsigned, unsigned> png_size(const std::string& bytes) {
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const auto word = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {word(16), word(20)};
}

}  // namespace

TEST(BenchCli, JsonResultsAgreeWithFitOnTheGeneratedFile) {
  const std::string results = temp_file("bench.json", "");
  const auto run = run_cli({"bench", "--scenario", "vertical", "--n", "400", "--p", "2", "--contamination", "0,0.2",
                            "--estimators", "ls,lts,lms", "--seed", "5", "--output", results});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(slurp(results));
  ASSERT_EQ(j["runs"].size(), 6u);  // 2 contaminations x 3 estimators
  const std::string data = temp_file("bench_data.csv", "");
  ASSERT_EQ(run_cli({"generate", "-s", "vertical", "--n", "400", "--p", "2", "-e", "0.2", "--seed", "5", "-o", data}).exit_code, 0);
  for (const std::string method : {"ls", "lts", "lms"}) {
    SCOPED_TRACE(method);
    const auto fit = run_cli({"fit", data, "-y", "y", "-m", method, "--seed", "5", "--backend", "cpu", "-o", "json"});
    ASSERT_EQ(fit.exit_code, 0) << fit.err;
    const auto f = nlohmann::json::parse(fit.out);
    bool found = false;
    for (const auto& r : j["runs"]) {
      if (r["estimator"] != method || r["contamination"] != 0.2) continue;
      found = true;
      EXPECT_EQ(r["objective"].get<double>(), f["objective"].get<double>());
      double error = 0;
      for (const auto& [name, value] : f["coefficients"].items()) error += std::pow(value.get<double>() - 1, 2);
      EXPECT_NEAR(r["beta_error"].get<double>(), std::sqrt(error), 1e-12);
      if (method != "ls") {
        EXPECT_EQ(r["flagged_outliers"].get<std::size_t>(), f["outliers"].size());
        EXPECT_EQ(r["planted_outliers"], 80);
        EXPECT_GT(r["recall"].get<double>(), 0.99);
      }
      for (const char* phase : {"setup", "subsets", "objectives", "csteps", "finish", "total"})
        EXPECT_TRUE(r["timings_s"][phase].is_number());
    }
    EXPECT_TRUE(found);
  }
  // LS breaks down at 0.2 on vertical outliers; LTS holds.
  for (const auto& b : j["breakdowns"]) {
    if (b["estimator"] == "ls") {
      EXPECT_EQ(b["breakdown_contamination"], 0.2);
    }
    if (b["estimator"] == "lts") {
      EXPECT_TRUE(b["breakdown_contamination"].is_null());
    }
  }
}

TEST(BenchCli, CsvResultsAndSummaryTable) {
  const std::string results = temp_file("bench.csv", "");
  auto run = run_cli({"bench", "-s", "bad-leverage,clean", "--n", "300", "-e", "0,0.1", "--estimators", "ls,lts",
                      "--repeat", "2", "-o", results});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto table = data::read_csv(results);
  // bad-leverage: 2 eps x 2 repeats x 2 estimators; clean: 1 x 2 x 2.
  EXPECT_EQ(table.rows(), 12u);
  EXPECT_NO_THROW(table.column_index("beta_error"));
  EXPECT_NO_THROW(table.column_index("breakdown_contamination"));
  run = run_cli({"bench", "-s", "vertical", "--n", "200", "-e", "0,0.3", "--estimators", "lts"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "holds up to eps = 0.3")) << run.out;
}

TEST(BenchCli, ReportWritesAPageThatReferencesItsImages) {
  const auto folder = std::filesystem::path(temp_file("unused", "")).parent_path() / "report";
  std::filesystem::remove_all(folder);
  const auto run = run_cli({"bench", "-s", "vertical,mixed", "--n", "200,400", "-e", "0,0.2", "--estimators", "ls,lts",
                            "--selection", "auto,nth-element", "--report", folder.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string page = slurp(folder / "index.html");
  ASSERT_FALSE(page.empty());
  for (const std::string stem : {"breakdown_vertical", "outliers_vertical", "breakdown_mixed", "outliers_mixed",
                                 "time_vs_n", "selection_time"}) {
    SCOPED_TRACE(stem);
    EXPECT_TRUE(contains(page, "<img src=\"" + stem + ".png\"")) << stem;
    EXPECT_TRUE(contains(page, "href=\"" + stem + ".svg\""));
    const auto [w, h] = png_size(slurp(folder / (stem + ".png")));
    EXPECT_EQ(w, 960u);
    EXPECT_TRUE(contains(page, "width=\"" + std::to_string(w) + "\" height=\"" + std::to_string(h) + "\""));
    const std::string svg = slurp(folder / (stem + ".svg"));
    EXPECT_TRUE(contains(svg, "<svg")) << stem;
    EXPECT_TRUE(contains(svg, "width=\"960\""));
  }
  EXPECT_TRUE(contains(page, "<table>"));
}

TEST(BenchCli, BadOptionsAreClearErrors) {
  const auto expect_error = [](const CliRun& run, int code, const std::string& part) {
    EXPECT_EQ(run.exit_code, code) << run.err;
    EXPECT_EQ(run.err.rfind("robust-fit: error: ", 0), 0u) << run.err;
    EXPECT_TRUE(contains(run.err, part)) << "missing '" << part << "' in: " << run.err;
  };
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "-e", "0.1,0.5"}), 2, "outside [0, 0.5)");
  expect_error(run_cli({"bench", "-s", "sideways", "--n", "100"}), 2, "unknown scenario 'sideways'");
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "10", "--p", "9"}), 2, "p + 1 < n");
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "--repeat", "-1"}), 2, "--repeat");
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "--estimators", "lts,magic"}), 2, "--estimators");
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "-o", "results.txt"}), 2, ".json or .csv");
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "--peers", "python"}), 2, "expected r");
  // A selection algorithm the CPU engine does not have is refused before any fit runs.
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "--backend", "cpu", "--selection", "auto,bucket"}), 2,
               "--selection: ");
  expect_error(run_cli({"bench", "-s", "vertical", "--n", "100", "-o", "/nonexistent-dir/r.json"}), 1,
               "cannot write '/nonexistent-dir/r.json'");
}

}  // namespace robustfit::testing
