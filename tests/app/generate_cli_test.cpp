// robust-fit generate end to end: byte-identical files, the truth file, LTS against LS on the
// generated data, and bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.hpp"
#include "robustfit/data/csv.hpp"

namespace robustfit::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_error(const CliRun& run, int code, const std::string& part) {
  EXPECT_EQ(run.exit_code, code) << run.err;
  EXPECT_EQ(run.err.rfind("robust-fit: error: ", 0), 0u) << run.err;
  EXPECT_TRUE(contains(run.err, part)) << "missing '" << part << "' in: " << run.err;
}

double coefficient_error(const nlohmann::json& fit) {
  double sum = 0;
  for (const auto& [name, value] : fit["coefficients"].items()) sum += std::pow(value.get<double>() - 1.0, 2);
  return std::sqrt(sum);
}

}  // namespace

TEST(GenerateCli, SameArgumentsGiveTheSameBytesAndTheTruthMatches) {
  const std::string a = temp_file("gen_a.csv", ""), b = temp_file("gen_b.csv", ""), truth = temp_file("gen.json", "");
  const std::vector<std::string> args = {"generate", "--scenario", "bad-leverage", "--n", "3000", "--p", "3",
                                         "--contamination", "0.2", "--seed", "9"};
  auto with = [&](std::vector<std::string> extra) {
    auto all = args;
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  };
  ASSERT_EQ(run_cli(with({"--output", a, "--truth", truth})).exit_code, 0);
  ASSERT_EQ(run_cli(with({"-o", b})).exit_code, 0);
  const std::string bytes = slurp(a);
  EXPECT_EQ(bytes, slurp(b));
  EXPECT_EQ(bytes.substr(0, 11), "x1,x2,x3,y\n");
  const auto stdout_run = run_cli(args);  // no --output: standard output
  EXPECT_EQ(stdout_run.out, bytes);

  const auto j = nlohmann::json::parse(slurp(truth));
  EXPECT_EQ(j["scenario"], "bad-leverage");
  EXPECT_EQ(j["n"], 3000);
  EXPECT_EQ(j["p"], 3);
  EXPECT_EQ(j["contamination"], 0.2);
  EXPECT_EQ(j["seed"], 9);
  EXPECT_EQ(j["coefficients"], nlohmann::json::parse(R"J({"(Intercept)": 1, "x1": 1, "x2": 1, "x3": 1})J"));
  ASSERT_EQ(j["outliers"].size(), 600u);
  // The listed rows are the bad leverage points: x1 near 10.
  const auto table = data::read_csv(a);
  for (const auto& row : j["outliers"]) EXPECT_GT(table.columns[0].values[row.get<std::size_t>() - 1], 6.0);
}

TEST(GenerateCli, LtsRecoversBetaAtThirtyPercentWhereLsDoesNot) {
  for (const std::string scenario : {"vertical", "bad-leverage"}) {
    SCOPED_TRACE(scenario);
    const std::string file = temp_file("gen_" + scenario + ".csv", "");
    ASSERT_EQ(run_cli({"generate", "-s", scenario, "--n", "2000", "--p", "2", "-e", "0.3", "-o", file}).exit_code, 0);
    const auto lts = run_cli({"fit", file, "-y", "y", "--backend", "cpu", "-o", "json"});
    const auto ls = run_cli({"fit", file, "-y", "y", "-m", "ls", "-o", "json"});
    ASSERT_EQ(lts.exit_code, 0) << lts.err;
    ASSERT_EQ(ls.exit_code, 0) << ls.err;
    // Clean-data LTS error is about 0.05 at n = 2000 (3 coefficients); LS is pulled by 600 rows
    // (here by 1.9 on bad-leverage and 30 on vertical).
    EXPECT_LT(coefficient_error(nlohmann::json::parse(lts.out)), 0.2);
    EXPECT_GT(coefficient_error(nlohmann::json::parse(ls.out)), 1.0);
  }
}

TEST(GenerateCli, SelectionColumnAndParameters) {
  auto run = run_cli({"generate", "--scenario", "selection:bucket_killer", "--n", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.substr(0, 2), "x\n");
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 6);
  run = run_cli({"generate", "-s", "heavy-tails", "--n", "100", "-e", "0.1", "--df", "3", "--beta", "2", "--sigma", "0.5"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  run = run_cli({"generate", "-s", "clean", "--n", "10", "--p", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
}

TEST(GenerateCli, BadOptionsAreClearErrors) {
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "100", "-e", "0.5"}), 2, "outside [0, 0.5)");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "100", "-e", "-0.1"}), 2, "outside [0, 0.5)");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "5", "--p", "5", "-e", "0.1"}), 2, "p must be less than n");
  expect_error(run_cli({"generate", "-s", "sideways", "--n", "100", "-e", "0.1"}), 2, "unknown scenario 'sideways'");
  expect_error(run_cli({"generate", "-s", "selection:nope", "--n", "100"}), 2, "unknown distribution 'nope'");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "-3", "-e", "0.1"}), 2, "'-3' is not a whole number >= 1");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "2.5", "-e", "0.1"}), 2, "'2.5' is not a whole number >= 1");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "100", "-e", "0.1", "--beta", "1,2"}), 2, "--beta");
  expect_error(run_cli({"generate", "-s", "clean", "--n", "100", "-e", "0.1"}), 2, "clean has no contamination");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "100"}), 2, "--contamination is required");
  expect_error(run_cli({"generate", "-s", "vertical", "--n", "100", "-e", "0.1", "-o", "/nonexistent-dir/x.csv"}), 1,
               "cannot write '/nonexistent-dir/x.csv'");
}

}  // namespace robustfit::testing
