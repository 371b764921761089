// robust-fit select, end to end, against sorting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "cli_runner.hpp"

namespace robustfit::testing {
namespace {

struct Column {
  std::string path;
  std::vector<double> sorted;
};

Column random_column(std::size_t n) {
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> u(-5, 5);
  std::string csv = "id,v\n";
  Column c;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::round(u(gen) * 1000) / 8;  // ties included
    c.sorted.push_back(v);
    csv += std::to_string(i) + "," + std::to_string(v) + "\n";
  }
  std::sort(c.sorted.begin(), c.sorted.end());
  c.path = temp_file("column.csv", csv);
  return c;
}

TEST(SelectCli, RanksQuantilesMedianPercentilesMatchSorting) {
  const Column c = random_column(1001);
  auto run = run_cli({"select", c.path, "--column", "v", "--k", "1,500,1001", "--backend", "cpu", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["n"], 1001);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["results"][0]["value"].get<double>(), c.sorted[0]);
  EXPECT_EQ(j["results"][1]["value"].get<double>(), c.sorted[499]);
  EXPECT_EQ(j["results"][2]["value"].get<double>(), c.sorted[1000]);

  run = run_cli({"select", c.path, "-c", "v", "--median", "--backend", "cpu", "--algorithm", "sort", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["results"][0]["k"], 501);
  EXPECT_EQ(j["results"][0]["value"].get<double>(), c.sorted[500]);

  run = run_cli({"select", c.path, "-c", "v", "--quantile", "0,0.25,1", "--backend", "cpu", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["results"][1]["k"], 251);  // ceil(0.25 * 1001)
  EXPECT_EQ(j["results"][1]["value"].get<double>(), c.sorted[250]);
  EXPECT_EQ(j["results"][0]["k"], 1);

  run = run_cli({"select", c.path, "-c", "v", "--percentiles", "101", "--backend", "cpu", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j["results"].size(), 101u);
  for (const auto& r : j["results"]) EXPECT_EQ(r["value"].get<double>(), c.sorted[r["k"].get<std::size_t>() - 1]);

  run = run_cli({"select", c.path, "-c", "v", "--median", "--backend", "cpu"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "n = 1001"));
}

TEST(SelectCli, Errors) {
  const Column c = random_column(10);
  auto run = run_cli({"select", c.path, "-c", "v", "--k", "11", "--backend", "cpu"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "robust-fit: error: --k: rank 11 is out of range")) << run.err;
  run = run_cli({"select", c.path, "-c", "v", "--k", "0", "--backend", "cpu"});
  EXPECT_EQ(run.exit_code, 2);
  run = run_cli({"select", c.path, "-c", "v", "--quantile", "1.5", "--backend", "cpu"});
  EXPECT_EQ(run.exit_code, 2);
  run = run_cli({"select", c.path, "-c", "v", "--median", "--k", "3"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "exactly one of"));
  run = run_cli({"select", c.path, "-c", "v", "--median", "--algorithm", "quick"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "unknown selection algorithm 'quick'"));
  run = run_cli({"select", c.path, "-c", "v", "--median", "--backend", "cpu", "--algorithm", "radix"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "CUDA backend only"));
  run = run_cli({"select", c.path, "-c", "w", "--median"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "'w'"));
  const auto nan = temp_file("nan.csv", "v\n1\nNaN\n3\n");
  run = run_cli({"select", nan, "-c", "v", "--median", "--backend", "cpu"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "nan.csv:3")) << run.err;
  run = run_cli({"select", nan, "-c", "v", "--median", "--backend", "cpu", "--drop-missing", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["n"], 2);
}

}  // namespace
}  // namespace robustfit::testing
