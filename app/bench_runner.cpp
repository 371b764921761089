#include "bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>
#include <tuple>

#include "bench_peers.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::app {
namespace {

// The contaminations of one scenario: clean only at 0.
std::vector<double> epsilons_of(const ScenarioChoice& scenario, const std::vector<double>& epsilons) {
  if (scenario.contamination != data::Contamination::none) return epsilons;
  return {0.0};
}

struct FitSetting {
  regression::Method method;
  regression::Backend backend;
  std::string selection;
};

std::vector<FitSetting> settings_of(const BenchGrid& grid) {
  std::vector<FitSetting> settings;
  for (const auto method : grid.estimators) {
    if (method == regression::Method::ls) {  // one LS fit: no backend or selection choice
      settings.push_back({method, regression::Backend::cpu, "-"});
      continue;
    }
    for (const auto backend : grid.backends)
      for (const auto& selection : grid.selections) settings.push_back({method, backend, selection});
  }
  return settings;
}

void score(BenchRun& run, const Eigen::VectorXd& coefficients, const std::vector<bool>& flagged_rows,
           const data::Scenario& scenario) {
  run.beta_error = (coefficients - scenario.beta).norm();
  for (std::size_t i = 0; i < scenario.planted_outlier.size(); ++i) {
    const bool planted = scenario.planted_outlier[i], flagged = !flagged_rows.empty() && flagged_rows[i];
    run.planted += planted;
    run.flagged += flagged;
    run.flagged_planted += planted && flagged;
  }
  if (run.flagged > 0) run.precision = double(run.flagged_planted) / double(run.flagged);
  if (run.planted > 0) run.recall = double(run.flagged_planted) / double(run.planted);
}

regression::FitResult fit_one(const data::Scenario& s, const FitSetting& setting, std::uint64_t seed) {
  const auto selection = selection::parse_algorithm(setting.selection == "-" ? "auto" : setting.selection);
  switch (setting.method) {
    case regression::Method::ls: return regression::fit_ls(s.X, s.y);
    case regression::Method::lms: {
      regression::LmsOptions o;
      o.seed = seed;
      o.backend = setting.backend;
      o.selection = selection;
      return regression::fit_lms(s.X, s.y, o);
    }
    case regression::Method::lts: break;
  }
  regression::LtsOptions o;
  o.seed = seed;
  o.backend = setting.backend;
  o.selection = selection;
  return regression::fit_lts(s.X, s.y, o);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  return m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
}

}  // namespace

std::size_t bench_fit_count(const BenchGrid& grid, bool with_peers) {
  std::size_t data_sets = 0;
  for (const auto& scenario : grid.scenarios)
    data_sets += grid.ns.size() * grid.ps.size() * epsilons_of(scenario, grid.epsilons).size() * grid.repeats;
  return data_sets * (settings_of(grid).size() + (with_peers ? 1 : 0));
}

BenchResults run_bench(const BenchGrid& grid, const BenchProgress& progress) {
  BenchResults results;
  std::unique_ptr<RPeers> peers;
  if (grid.peers_r) {
    peers = std::make_unique<RPeers>();
    if (!peers->available()) {
      results.notes.push_back("--peers r: R peers skipped: " + peers->why_not());
      peers.reset();
    }
  }
  const auto settings = settings_of(grid);
  const std::size_t total = bench_fit_count(grid, peers != nullptr);
  std::size_t done = 0;
  for (const auto& scenario : grid.scenarios) {
    for (const std::size_t n : grid.ns) {
      for (const std::size_t p : grid.ps) {
        for (const double epsilon : epsilons_of(scenario, grid.epsilons)) {
          for (std::size_t repeat = 0; repeat < grid.repeats; ++repeat) {
            data::ScenarioSpec spec = grid.parameters;
            spec.n = n;
            spec.q = p;
            spec.epsilon = epsilon;
            spec.contamination = scenario.contamination;
            spec.seed = grid.seed + repeat;
            if (!spec.beta.empty() && spec.beta.size() != p + 1) spec.beta.assign(p + 1, spec.beta.front());
            const data::Scenario data_set = data::make_scenario(spec);
            BenchRun base;
            base.scenario = scenario.name;
            base.n = n;
            base.p = p;
            base.epsilon = epsilon;
            base.repeat = repeat;
            base.seed = spec.seed;
            for (const auto& setting : settings) {
              const auto start = std::chrono::steady_clock::now();
              const regression::FitResult fit = fit_one(data_set, setting, spec.seed);
              BenchRun run = base;
              run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
              run.estimator = std::string(regression::to_string(setting.method));
              run.backend = fit.backend;
              run.selection = setting.method == regression::Method::ls ? "-" : fit.selection;
              run.phases = fit.timings;
              run.objective = fit.objective;
              score(run, fit.coefficients, fit.outlier, data_set);
              results.runs.push_back(std::move(run));
              if (progress) progress(++done, total);
            }
            if (peers) {
              for (const auto& peer : peers->fit(data_set)) {
                BenchRun run = base;
                run.estimator = peer.estimator;
                run.backend = std::string("r");
                run.selection = std::string("-");
                run.wall_s = peer.seconds;
                run.objective = peer.objective;
                std::vector<bool> flagged(n, false);
                for (const std::size_t row : peer.outliers)
                  if (row < n) flagged[row] = true;
                score(run, Eigen::Map<const Eigen::VectorXd>(peer.coefficients.data(),
                                                             static_cast<Eigen::Index>(peer.coefficients.size())),
                      flagged, data_set);
                results.runs.push_back(std::move(run));
              }
              if (progress) progress(++done, total);
            }
          }
        }
      }
    }
  }
  results.breakdowns = compute_breakdowns(results.runs);
  return results;
}

std::vector<Breakdown> compute_breakdowns(const std::vector<BenchRun>& runs) {
  using Key = std::tuple<std::string, std::size_t, std::size_t, std::string, std::string, std::string>;
  std::map<Key, std::map<double, std::vector<double>>> errors;  // group -> epsilon -> errors
  std::vector<Key> order;
  for (const auto& run : runs) {
    const Key key{run.scenario, run.n, run.p, run.estimator, run.backend, run.selection};
    if (!errors.count(key)) order.push_back(key);
    errors[key][run.epsilon].push_back(run.beta_error);
  }
  std::vector<Breakdown> breakdowns;
  for (const Key& key : order) {
    const auto& by_epsilon = errors[key];
    Breakdown b;
    std::tie(b.scenario, b.n, b.p, b.estimator, b.backend, b.selection) = key;
    if (by_epsilon.count(0.0)) b.baseline_error = median(by_epsilon.at(0.0));
    b.threshold = std::max(kBreakdownFloor, b.baseline_error ? kBreakdownFactor * *b.baseline_error : 0.0);
    for (const auto& [epsilon, values] : by_epsilon) {  // ascending epsilon
      b.max_epsilon = epsilon;
      if (!b.breakdown_epsilon && median(values) > b.threshold) b.breakdown_epsilon = epsilon;
    }
    breakdowns.push_back(b);
  }
  return breakdowns;
}

}  // namespace robustfit::app
