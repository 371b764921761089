#pragma once
// The grid behind `robust-fit bench`: for every scenario, n, p, contamination and repeat, one
// generated data set, fitted by every estimator on every backend (and selection algorithm);
// optionally R's robustbase::ltsReg and MASS::lqs on the same data (bench_peers.hpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/fit_result.hpp"
#include "robustfit/regression/options.hpp"
#include "scenario_options.hpp"

namespace robustfit::app {

struct BenchGrid {
  std::vector<ScenarioChoice> scenarios;  // regression scenarios only
  std::vector<std::size_t> ns, ps;
  std::vector<double> epsilons;           // clean is run at 0 only
  std::vector<regression::Method> estimators;
  std::vector<regression::Backend> backends;      // cpu, cuda
  std::vector<std::string> selections;            // algorithm names ("auto", "sort", ...)
  std::size_t repeats = 1;
  std::uint64_t seed = 1;                 // data set r of a cell uses seed + r, for data and fit
  data::ScenarioSpec parameters;          // beta, sigma, shifts, ... (n, q, epsilon, type ignored)
  bool peers_r = false;
};

struct BenchRun {
  std::string scenario;      // CLI name: "vertical", ...
  std::size_t n = 0, p = 0;  // p: predictors
  double epsilon = 0;
  std::string estimator;     // "ls", "lts", "lms", or the R peers "ltsReg (R)", "lqs (R)"
  std::string backend;       // "cpu", "cuda", "r"
  std::string selection;     // the fit's selection algorithm; "-" where none applies
  std::size_t repeat = 0;
  std::uint64_t seed = 0;
  double wall_s = 0;                                  // the whole fit call
  std::optional<regression::PhaseTimings> phases;     // robust-fit fits only
  double objective = 0;
  double beta_error = 0;                              // ||beta_hat - beta||_2
  std::size_t planted = 0, flagged = 0, flagged_planted = 0;
  std::optional<double> precision, recall;            // null when nothing flagged / planted
};

// Breakdown of one estimator on one scenario, n and p: the smallest contamination at which the
// median over repeats of ||beta_hat - beta||_2 exceeds threshold = max(5 e0, 0.5), e0 being that
// median at contamination 0 (0.5 alone when the grid has no 0).
inline constexpr double kBreakdownFactor = 5.0;
inline constexpr double kBreakdownFloor = 0.5;
struct Breakdown {
  std::string scenario, estimator, backend, selection;
  std::size_t n = 0, p = 0;
  std::optional<double> baseline_error;  // e0
  double threshold = kBreakdownFloor;
  std::optional<double> breakdown_epsilon;  // null: did not break down within the grid
  double max_epsilon = 0;                   // the largest contamination tried
};

struct BenchResults {
  std::vector<BenchRun> runs;
  std::vector<Breakdown> breakdowns;
  std::vector<std::string> notes;  // e.g. why the R peers did not run
};

// Calls progress(done, total) after every fit. Throws std::invalid_argument for a bad grid.
using BenchProgress = std::function<void(std::size_t done, std::size_t total)>;
BenchResults run_bench(const BenchGrid& grid, const BenchProgress& progress = {});

std::size_t bench_fit_count(const BenchGrid& grid, bool with_peers);
std::vector<Breakdown> compute_breakdowns(const std::vector<BenchRun>& runs);

}  // namespace robustfit::app
