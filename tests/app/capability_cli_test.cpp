// Every cell of the capability table through the CLI: each algorithm under --backend cpu, cuda
// and auto, for select with one rank and with many ranks and for fit (batched: one rank per
// candidate). The cells are written out here by hand. Offered cells must give the answer of
// std::sort (select) or of the CPU nth-element fit; refused ones exit 2 and list what is offered.
// Without a usable GPU, every cell that lands on CUDA must exit 2 saying CUDA is not available;
// with one (the H200 runs), those cells must run on CUDA and give the same answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

enum class Use { single, many, batched };

const std::vector<std::string> kAlgorithms = {"auto",  "sort",   "cutting-plane", "bucket",     "radix",
                                              "sample", "multi", "floyd-rivest",  "sampled-multi", "bracket",
                                              "nth-element"};
const std::vector<std::string> kBackends = {"cpu", "cuda", "auto"};
const std::string kCpuList = "auto, sort, nth-element";
const std::string kCudaOneVectorList =
    "auto, sort, cutting-plane, bucket, radix, sample, multi, floyd-rivest, sampled-multi, bracket";
const std::string kCudaBatchedList = "auto, sort, cutting-plane, bucket, radix, sample, floyd-rivest, bracket";

bool listed(const std::string& list, const std::string& name) {
  const std::string padded = ", " + list + ",";
  return padded.find(", " + name + ",") != std::string::npos;
}
const std::string& cuda_list(Use use) { return use == Use::batched ? kCudaBatchedList : kCudaOneVectorList; }

std::string stackloss() { return dataset_path("stackloss.csv").string(); }

bool gpu_usable() {
  static const bool usable =
      run_cli({"select", stackloss(), "-c", "stack.loss", "--median", "--backend", "cuda"}).exit_code == 0;
  return usable;
}

// What a request must do: run on `backend` (exit 0), or exit 2 with every part in the message.
struct Expectation {
  int exit_code = 0;
  std::string backend;
  std::vector<std::string> parts;
};

Expectation expected(Use use, const std::string& backend, const std::string& algorithm) {
  const bool cpu = listed(kCpuList, algorithm), cuda = listed(cuda_list(use), algorithm);
  const std::string quoted = "'" + algorithm + "'";
  if (!cpu && !cuda) return {2, "", {quoted, "on any backend", kCpuList, cuda_list(use)}};
  if (backend == "cpu")
    return cpu ? Expectation{0, "cpu", {}} : Expectation{2, "", {quoted, "is not available on the CPU backend", kCpuList}};
  if (backend == "cuda") {
    if (!cuda) return {2, "", {quoted, "is not available on the CUDA backend", cuda_list(use)}};
    if (!gpu_usable()) return {2, "", {"--backend cuda", "the CUDA backend was requested but is not available"}};
    return {0, "cuda", {}};
  }
  const std::string chosen = cpu && !cuda ? "cpu" : !cpu ? "cuda" : gpu_usable() ? "cuda" : "cpu";
  if (chosen == "cuda" && !gpu_usable())
    return {2, "", {quoted, "runs on the CUDA backend only, which is not available", kCpuList}};
  return {0, chosen, {}};
}

// Checks exit code and message; true when the run succeeded as expected (then check the answer).
bool matches(const CliRun& run, const Expectation& e, const std::string& cell) {
  EXPECT_EQ(run.exit_code, e.exit_code) << cell << ": " << run.err;
  if (run.exit_code != e.exit_code) return false;
  if (e.exit_code != 0) {
    EXPECT_EQ(run.err.rfind("robust-fit: error: ", 0), 0u) << cell << ": " << run.err;
    for (const auto& part : e.parts) EXPECT_TRUE(contains(run.err, part)) << cell << ": missing '" << part << "' in " << run.err;
    return false;
  }
  return true;
}

struct Column {
  std::string path;
  std::vector<double> sorted;
};

Column random_column(std::size_t n) {
  std::mt19937_64 gen(29);
  std::uniform_real_distribution<double> u(-5, 5);
  std::string csv = "v\n";
  Column c;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::round(u(gen) * 1000) / 8;  // ties included
    c.sorted.push_back(v);
    csv += std::to_string(v) + "\n";
  }
  std::sort(c.sorted.begin(), c.sorted.end());
  c.path = temp_file("capability_column.csv", csv);
  return c;
}

void select_every_cell(Use use, const std::vector<std::string>& rank_args) {
  const Column c = random_column(1001);
  for (const auto& backend : kBackends)
    for (const auto& algorithm : kAlgorithms) {
      const std::string cell = "select " + backend + "/" + algorithm;
      std::vector<std::string> args = {"select", c.path, "-c", "v", "--backend", backend, "--algorithm", algorithm, "-o", "json"};
      args.insert(args.end(), rank_args.begin(), rank_args.end());
      const CliRun run = run_cli(args);
      const Expectation e = expected(use, backend, algorithm);
      if (!matches(run, e, cell)) continue;
      const auto j = nlohmann::json::parse(run.out);
      EXPECT_EQ(j["backend"], e.backend) << cell;
      // The CPU's automatic choice is reported as what ran.
      EXPECT_EQ(j["algorithm"], e.backend == "cpu" && algorithm == "auto" ? "nth-element" : algorithm) << cell;
      // The GPU's automatic choice is named beside it (1001 doubles: radix for one rank, multi for 4).
      if (e.backend == "cuda" && algorithm == "auto")
        EXPECT_EQ(j.value("automatic_choice", ""), use == Use::single ? "radix" : "multi") << cell;
      else
        EXPECT_FALSE(j.contains("automatic_choice")) << cell;
      ASSERT_EQ(j["results"].size(), use == Use::single ? 1u : 4u) << cell;
      for (const auto& r : j["results"])
        EXPECT_EQ(r["value"].get<double>(), c.sorted[r["k"].get<std::size_t>() - 1]) << cell << " k " << r["k"];
    }
}

TEST(CapabilityCli, SelectOneRankEveryCell) { select_every_cell(Use::single, {"--median"}); }

// Four ranks: more than the CUDA automatic choice loops over, so auto takes bucketMultiSelect.
TEST(CapabilityCli, SelectManyRanksEveryCell) { select_every_cell(Use::many, {"--k", "1,17,501,1001"}); }

void expect_same_fit(const nlohmann::json& reference, const nlohmann::json& fit, bool exact, const std::string& cell) {
  EXPECT_EQ(fit["outliers"], reference["outliers"]) << cell;
  EXPECT_EQ(fit["h"], reference["h"]) << cell;
  const double tolerance = exact ? 0.0 : 1e-8;
  const auto near = [&](double a, double b) { return std::abs(a - b) <= tolerance * std::max(1.0, std::abs(b)); };
  EXPECT_TRUE(near(fit["objective"].get<double>(), reference["objective"].get<double>()))
      << cell << ": " << fit["objective"] << " vs " << reference["objective"];
  for (const auto& [name, value] : reference["coefficients"].items())
    EXPECT_TRUE(near(fit["coefficients"][name].get<double>(), value.get<double>()))
        << cell << " " << name << ": " << fit["coefficients"][name] << " vs " << value;
}

// LTS selects thresholds, h-subsets and trimmed sums per candidate; LMS without an intercept
// selects the h-th smallest squared residual per candidate.
void fit_every_cell(const std::vector<std::string>& method_args) {
  std::vector<std::string> base = {"fit", stackloss(), "-y", "stack.loss", "-o", "json"};
  base.insert(base.end(), method_args.begin(), method_args.end());
  std::vector<std::string> reference_args = base;
  reference_args.insert(reference_args.end(), {"--backend", "cpu", "--selection", "nth-element"});
  const CliRun reference_run = run_cli(reference_args);
  ASSERT_EQ(reference_run.exit_code, 0) << reference_run.err;
  const auto reference = nlohmann::json::parse(reference_run.out);
  for (const auto& backend : kBackends)
    for (const auto& algorithm : kAlgorithms) {
      const std::string cell = "fit " + method_args.front() + " " + method_args[1] + " " + backend + "/" + algorithm;
      std::vector<std::string> args = base;
      args.insert(args.end(), {"--backend", backend, "--selection", algorithm});
      const CliRun run = run_cli(args);
      const Expectation e = expected(Use::batched, backend, algorithm);
      if (!matches(run, e, cell)) continue;
      const auto j = nlohmann::json::parse(run.out);
      // fit --backend auto with an algorithm both backends have goes where the cost model says
      // (regression/src/backend_cost.cpp): a 21-row fit stays on the CPU, GPU or not.
      const bool both = listed(kCpuList, algorithm) && listed(kCudaBatchedList, algorithm);
      const std::string where = backend == "auto" && both ? "cpu" : e.backend;
      EXPECT_EQ(j["backend"], where) << cell;
      if (where == "cpu") {
        EXPECT_EQ(j["selection"], algorithm == "sort" ? "sort" : "nth-element") << cell;
      }
      // sort on the CPU picks the same h-subsets: the same fit to the last bit on this data.
      expect_same_fit(reference, j, where == "cpu", cell);
    }
}

TEST(CapabilityCli, FitLtsEveryCell) { fit_every_cell({"--method", "lts"}); }
TEST(CapabilityCli, FitLmsWithoutInterceptEveryCell) { fit_every_cell({"--method", "lms", "--no-intercept"}); }

std::string squeezed(const std::string& text) {  // Boost wraps help lines: compare with single spaces
  std::string out;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch)) || (!out.empty() && out.back() != ' ')) out += std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
  return out;
}

TEST(CapabilityCli, HelpListsTheTable) {
  const CliRun select = run_cli({"select", "--help"});
  ASSERT_EQ(select.exit_code, 0);
  EXPECT_TRUE(contains(squeezed(select.out), "cpu: " + kCpuList + "; cuda: " + kCudaOneVectorList)) << select.out;
  const CliRun fit = run_cli({"fit", "--help"});
  ASSERT_EQ(fit.exit_code, 0);
  EXPECT_TRUE(contains(squeezed(fit.out), "cpu: " + kCpuList + "; cuda: " + kCudaBatchedList)) << fit.out;
  for (const CliRun* run : {&select, &fit}) {
    EXPECT_TRUE(contains(squeezed(run->out), "auto: the backend that has the algorithm when only one has it"));
  }
}

}  // namespace
}  // namespace robustfit::testing
