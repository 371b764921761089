// Hostile data through the CLI: an exact fit is said in the table and in JSON (a flag and a
// note), and every JSON number stays a number (JSON has no NaN or Inf: nlohmann writes null);
// --alpha 1 runs (it failed in Boost's erfc_inv before); huge values are refused with exit 1.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace robustfit::testing {
namespace {

std::string line_with_two_outliers() {
  std::string csv = "x,y\n";
  for (int i = 1; i <= 20; ++i) csv += std::to_string(i) + "," + std::to_string(i == 3 ? 100 : i == 7 ? -50 : 2 + 3 * i) + "\n";
  return csv;
}

// True when no value anywhere in `j` is null (what a NaN or Inf turns into).
bool no_nulls(const nlohmann::json& j) {
  if (j.is_null()) return false;
  if (j.is_structured())
    for (const auto& item : j)
      if (!no_nulls(item)) return false;
  return true;
}

TEST(HostileDataCli, ExactFitIsReportedInTableAndJson) {
  const std::string data = temp_file("exact.csv", line_with_two_outliers());
  for (const std::string method : {"lts", "lms"}) {
    const CliRun table = run_cli({"fit", data, "-y", "y", "--method", method});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("exact fit: at least h rows lie on the fitted hyperplane"), std::string::npos) << table.out;
    const CliRun json = run_cli({"fit", data, "-y", "y", "--method", method, "-o", "json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    auto j = nlohmann::json::parse(json.out);
    EXPECT_TRUE(j["exact_fit"].get<bool>());
    EXPECT_EQ(j["scale"].get<double>(), 0.0);
    EXPECT_EQ(j["outliers"], nlohmann::json::parse("[3, 7]"));
    EXPECT_TRUE(j["note"].get<std::string>().rfind("exact fit:", 0) == 0);
    j.erase("timings_s");  // null device timings on the CPU backend are not numbers by design
    // At an exact fit the reweighted fit has zero residual variance: t values, their p-values and
    // the F statistic are undefined (R gives Inf/NaN), which JSON writes as null; robust
    // distances are null where MCD did not run (LMS). Every other number stays defined.
    for (auto& [name, entry] : j["inference"].items()) {
      EXPECT_LT(entry["std_error"].get<double>(), 1e-12) << name;  // zero up to rounding
      entry.erase("t_value");
      entry.erase("p_value");
    }
    for (const char* key : {"f_statistic", "f_p_value", "f_df", "robust_distances", "rd_cutoff", "outlier_map"})
      j.erase(key);
    EXPECT_TRUE(no_nulls(j)) << json.out;
  }
}

TEST(HostileDataCli, AlphaOneRuns) {
  const std::string data = temp_file("noisy.csv", "x,y\n1,1.1\n2,1.9\n3,3.2\n4,3.9\n5,5.3\n6,5.8\n7,7.1\n8,30\n");
  const CliRun run = run_cli({"fit", data, "-y", "y", "--alpha", "1", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["h"].get<int>(), 8);
  EXPECT_FALSE(j["exact_fit"].get<bool>());
}

TEST(HostileDataCli, ValuesBeyondDoublesSquaresAreADataError) {
  const std::string data = temp_file("huge.csv", "x,y\n1,1e300\n2,2e300\n3,3.5e300\n4,4e300\n");
  const CliRun run = run_cli({"fit", data, "-y", "y", "--method", "ls"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("robust-fit: error:"), std::string::npos);
  EXPECT_NE(run.err.find("overflow double; rescale"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace robustfit::testing
