// robust-fit fit, end to end: output formats, options, and every bad input (exit code + message).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "robustfit/data/csv.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

std::string stackloss() { return dataset_path("stackloss.csv").string(); }

// Expects a failure with `code` and an error line containing every part.
void expect_error(const CliRun& run, int code, const std::vector<std::string>& parts) {
  EXPECT_EQ(run.exit_code, code) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_EQ(run.err.rfind("robust-fit: error: ", 0), 0u) << run.err;
  for (const auto& part : parts) EXPECT_TRUE(contains(run.err, part)) << "missing '" << part << "' in: " << run.err;
}

TEST(FitCli, TableOnStackloss) {
  const auto run = run_cli({"fit", stackloss(), "--response", "stack.loss"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.out, "Least Trimmed Squares"));
  EXPECT_TRUE(contains(run.out, "Air.Flow"));
  EXPECT_TRUE(contains(run.out, "outliers: 4 (data rows 1, 3, 4, 21)"));
}

TEST(FitCli, JsonHasTheDocumentedFields) {
  const auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--output", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  for (const char* key : {"method", "n", "p", "h", "coefficients", "raw_coefficients", "scale", "raw_scale",
                          "objective", "outliers", "backend"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["method"], "lts");
  EXPECT_EQ(j["n"], 21);
  EXPECT_EQ(j["h"], 13);
  EXPECT_TRUE(j["coefficients"].contains("(Intercept)"));
  EXPECT_EQ(j["outliers"], nlohmann::json::array({1, 3, 4, 21}));
  EXPECT_NEAR(j["objective"].get<double>(), 2.9323912461199702, 1e-9);  // robustbase fixture
  for (const char* phase : {"setup", "subsets", "objectives", "csteps", "finish", "total"})
    EXPECT_TRUE(j["timings_s"][phase].is_number()) << phase;
}

TEST(FitCli, JsonKernelTimesAreNullOnTheCpu) {
  const auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--backend", "cpu", "--output", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(j["timings_s"]["residual_gemms"].is_null());
  EXPECT_TRUE(j["timings_s"]["selection"].is_null());
}

TEST(FitCli, PredictorsMethodsAndNoIntercept) {
  auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "-x", "Air.Flow,Water.Temp", "-m", "lms", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["p"], 3);
  EXPECT_EQ(j["method"], "lms");
  EXPECT_EQ(j["h"], 11);
  run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--method", "ls", "--no-intercept", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["p"], 3);
  EXPECT_FALSE(j["coefficients"].contains("(Intercept)"));
  run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--h", "15", "--subsets", "50", "--seed", "3", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["h"], 15);
}

TEST(FitCli, ResidualsFile) {
  const std::string path = temp_file("residuals.csv", "");
  auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--residuals", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // With FAST-MCD (the default) each row also has its robust distance and outlier-map class.
  const auto with_mcd = data::read_csv(path);
  ASSERT_EQ(with_mcd.columns.size(), 8u);
  EXPECT_EQ(with_mcd.columns[6].name, "robust_distance");
  EXPECT_EQ(with_mcd.columns[7].name, "class");
  run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--no-mcd", "--residuals", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto table = data::read_csv(path);
  ASSERT_EQ(table.rows(), 21u);
  ASSERT_EQ(table.columns.size(), 6u);
  EXPECT_EQ(table.columns[0].name, "row");
  EXPECT_EQ(table.columns[5].name, "outlier");
  double flagged = 0;
  for (double v : table.columns[5].values) flagged += v;
  EXPECT_EQ(flagged, 4);
  EXPECT_EQ(table.columns[5].values[0], 1);  // row 1 is an outlier
}

TEST(FitCli, HelpAndUsageErrors) {
  auto run = run_cli({"fit", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_TRUE(contains(run.out, "--response"));
  EXPECT_TRUE(contains(run.out, "robustbase::ltsReg"));
  run = run_cli({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_TRUE(contains(run.out, "robust-fit select"));
  expect_error(run_cli({}), 2, {}) ;
  expect_error(run_cli({"frobnicate"}), 2, {"unknown command 'frobnicate'"});
  expect_error(run_cli({"fit", stackloss()}), 2, {"--response is required"});
  expect_error(run_cli({"fit", "-y", "stack.loss"}), 2, {"no data file"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--method", "lqs"}), 2, {"--method", "lqs"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--alpha", "0.3"}), 2, {"--alpha: '0.3' is not a number in [0.5, 1]"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--subsets", "0"}), 2, {"--subsets"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--bogus"}), 2, {"bogus"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--output", "xml"}), 2, {"xml"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--backend", "tpu"}), 2, {"tpu"});
}

TEST(FitCli, SubsetsAllEnumeratesEveryElementalSubset) {
  for (const char* method : {"lts", "lms"}) {
    const auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "-m", method, "--subsets", "all", "-o", "json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["exhaustive"], true) << method;
    EXPECT_EQ(j["subsets_tried"], 5985) << method;  // C(21, 4)
  }
  // robustbase's ltsReg(nsamp = "exact") fixture.
  const auto table = run_cli({"fit", stackloss(), "-y", "stack.loss", "--subsets", "all"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "all 5985 elemental subsets")) << table.out;
  EXPECT_TRUE(contains(table.out, "outliers: 4 (data rows 1, 3, 4, 21)"));
  // C(200, 6) = 8.2e10 subsets: refused before the fit, as a command-line problem.
  std::string csv = "a,b,c,d,e,y\n";
  for (int i = 0; i < 200; ++i)
    for (int k = 0; k < 6; ++k) csv += std::to_string((i * (k + 3) * 7919 + k * 104729) % 1009) + (k < 5 ? "," : "\n");
  const auto wide = temp_file("wide.csv", csv);
  expect_error(run_cli({"fit", wide, "-y", "y", "--subsets", "all"}), 2, {"--subsets all", "C(200, 6)", "1e+08"});
  expect_error(run_cli({"fit", wide, "-y", "y", "-m", "lms", "--subsets", "all"}), 2, {"C(200, 6)"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--subsets", "every"}), 2, {"--subsets: 'every'", "or all"});
}

TEST(FitCli, DataErrorsNameFileLineAndColumn) {
  expect_error(run_cli({"fit", "/nonexistent/x.csv", "-y", "y"}), 1, {"/nonexistent/x.csv"});
  const auto empty = temp_file("empty.csv", "");
  expect_error(run_cli({"fit", empty, "-y", "y"}), 1, {"empty.csv", "empty"});
  const auto ragged = temp_file("ragged.csv", "x,y\n1,2\n3\n4,5\n");
  expect_error(run_cli({"fit", ragged, "-y", "y"}), 1, {"ragged.csv:3"});
  const auto text = temp_file("text.csv", "x,y\n1,2\n2,abc\n3,4\n4,5\n");
  expect_error(run_cli({"fit", text, "-y", "y"}), 1, {"text.csv:3", "y", "abc"});
  const auto missing = temp_file("missing.csv", "x,y\n1,2\n2,\n3,4\n4,5\n");
  expect_error(run_cli({"fit", missing, "-y", "y"}), 1, {"missing.csv:3", "y", "--drop-missing"});
  const auto inf = temp_file("inf.csv", "x,y\n1,2\nInf,3\n3,4\n4,5\n");
  expect_error(run_cli({"fit", inf, "-y", "y"}), 1, {"inf.csv:3", "x", "Inf"});
  expect_error(run_cli({"fit", stackloss(), "-y", "nope"}), 1, {"nope", "stack.loss"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "-x", "Air.Flow,Wind"}), 1, {"Wind"});
}

TEST(FitCli, DropMissingSaysHowManyRowsWent) {
  std::string csv = "x,y\n";
  for (int i = 1; i <= 12; ++i) csv += std::to_string(i) + "," + (i == 5 ? "NA" : std::to_string(2 * i + (i % 3))) + "\n";
  const auto path = temp_file("na.csv", csv);
  const auto run = run_cli({"fit", path, "-y", "y", "--drop-missing", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "dropped 1 of 12 rows"));
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["n"], 11);
  EXPECT_EQ(j["dropped_rows"], 1);
  for (const auto& row : j["best_subset"]) EXPECT_NE(row.get<int>(), 5);  // data-row numbers skip row 5
}

TEST(FitCli, DegenerateDesignsAreDataErrors) {
  const auto constant = temp_file("constant.csv", "a,b,y\n1,7,1\n2,7,3\n3,7,2\n4,7,5\n5,7,4\n6,7,6\n");
  expect_error(run_cli({"fit", constant, "-y", "y"}), 1, {"constant.csv", "'b' is constant"});
  const auto collinear = temp_file("collinear.csv", "a,b,c,y\n1,2,3,1\n2,1,3,3\n3,5,8,2\n4,1,5,5\n5,0,5,4\n6,2,8,6\n7,1,8,2\n");
  expect_error(run_cli({"fit", collinear, "-y", "y"}), 1, {"rank deficient", "collinear"});
  const auto few = temp_file("few.csv", "a,b,y\n1,2,1\n2,1,3\n3,5,2\n");
  expect_error(run_cli({"fit", few, "-y", "y"}), 1, {"too few observations", "n = 3"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--h", "22"}), 1, {"h = 22 is out of range"});
}

TEST(FitCli, PrecisionOption) {
  auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["precision"], "double");  // the default
  run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--precision", "double", "--backend", "cpu", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["precision"], "double");
  run = run_cli({"fit", "--help"});
  EXPECT_TRUE(contains(run.out, "--precision"));
  EXPECT_TRUE(contains(run.out, "double | float"));
  EXPECT_TRUE(contains(run.out, "Gram matrices"));
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--precision", "half"}), 2,
               {"--precision", "unknown precision 'half'", "double or float"});
  // float is the CUDA engine's; never a silent fall-back to double on the CPU.
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--precision", "float", "--backend", "cpu"}), 2,
               {"--precision float applies to the CUDA backend only", "the CPU backend computes in double"});
  expect_error(run_cli({"fit", stackloss(), "-y", "stack.loss", "--precision", "float", "--method", "ls"}), 2,
               {"--precision float", "LS is computed in double"});
}

TEST(FitCli, FloatPrecisionNeedsAGpu) {
  const auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--precision", "float", "-o", "json"});
  if (run.exit_code == 0) {  // a usable GPU: auto picked CUDA and ran in float
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["backend"], "cuda");
    EXPECT_EQ(j["precision"], "float");
    return;
  }
  // A command-line problem like any other backend mismatch: exit 2, before the data are read.
  expect_error(run, 2, {"--precision float needs the CUDA backend, which is not available"});
}

TEST(FitCli, CudaBackendWithoutDevice) {
  const auto run = run_cli({"fit", stackloss(), "-y", "stack.loss", "--backend", "cuda"});
  if (run.exit_code == 0) GTEST_SKIP() << "a CUDA backend is usable here";
  expect_error(run, 2, {"--backend cuda", "the CUDA backend was requested but is not available"});
}

}  // namespace
}  // namespace robustfit::testing
