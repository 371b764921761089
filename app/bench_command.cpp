// robust-fit bench: estimators compared on a grid of generated scenarios; JSON / CSV results,
// an HTML report with charts, and R's robustbase / MASS beside ours where R is installed.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "bench_output.hpp"
#include "bench_report.hpp"
#include "bench_runner.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "options_util.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/capabilities.hpp"

namespace po = boost::program_options;

namespace robustfit::app {
namespace {

constexpr const char* kBenchHelp = R"(Usage: robust-fit bench --scenario NAME[,NAME...] --n N[,N...] --p P[,P...]
                        --contamination E[,E...] [options]

Runs a grid: for every scenario, n, p, contamination and repeat one data set is generated (as
robust-fit generate makes it; scenario clean runs at contamination 0 only) and fitted by every
estimator on every backend and selection algorithm. Recorded per fit: wall time and the time of
each phase, the objective, ||beta_hat - beta||_2, and precision / recall of the flagged outliers
against the planted ones. Data set r of a cell uses seed S + r for the data and the fit, so
`robust-fit generate ... --seed S` and `robust-fit fit ... --seed S` reproduce repeat 0.

Breakdown: the smallest contamination in the grid at which the median over repeats of
||beta_hat - beta||_2 exceeds max(5 e0, 0.5), e0 being that median at contamination 0 (0.5 alone
when the grid has no 0); "none" when the estimator holds over the whole grid.

--peers r also runs robustbase::ltsReg and MASS::lqs (LMS) on the same data through Rscript
(bench/peers/robust_peers.R); without R (or those packages) a note says so and the rest runs.
A progress line (fit i of N, elapsed, estimated time left) is shown on stderr when it is a
terminal. Without --output a summary table is printed.

Options)";

struct BenchArguments {
  std::string scenarios, ns, ps = "2", epsilons = "0,0.1,0.2,0.3,0.4", estimators = "ls,lts,lms", backends = "cpu",
              selections = "auto", repeats = "1", seed = "1", output, report, peers;
  ScenarioParameterText parameters;
};

po::options_description bench_options(BenchArguments& a) {
  po::options_description options(kBenchHelp);
  options.add_options()
    ("help", "show this help")
    ("scenario,s", po::value(&a.scenarios), "comma-separated scenarios (required): clean, vertical, bad-leverage, good-leverage, heavy-tails, mixed")
    ("n", po::value(&a.ns), "comma-separated numbers of rows (required)")
    ("p", po::value(&a.ps), "comma-separated numbers of predictors (default 2)")
    ("contamination,e", po::value(&a.epsilons), "comma-separated contaminated fractions in [0, 0.5) (default 0,0.1,0.2,0.3,0.4)")
    ("estimators", po::value(&a.estimators), "comma-separated: ls, lts, lms (default all three)")
    ("backend", po::value(&a.backends), "comma-separated: cpu, cuda (default cpu)")
    ("selection", po::value(&a.selections), "comma-separated selection algorithms inside LTS/LMS (default auto; see fit --help)")
    ("repeat", po::value(&a.repeats), "data sets per cell (default 1)")
    ("seed", po::value(&a.seed), "seed S of the first data set (default 1)")
    ("output,o", po::value(&a.output), "results file: .json or .csv (by extension)")
    ("report", po::value(&a.report), "folder for an HTML report (index.html + PNG/SVG charts)")
    ("peers", po::value(&a.peers), "r: also time R's robustbase::ltsReg and MASS::lqs");
  add_scenario_parameter_options(options, a.parameters);
  return options;
}

std::string format_duration(double seconds) {
  char text[32];
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

// "[#####-----] fit 12 of 40, 0:05 elapsed, about 0:12 left" on one line of stderr.
class ProgressBar {
 public:
  ProgressBar() : start_(std::chrono::steady_clock::now()) {}
  void operator()(std::size_t done, std::size_t total) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double left = done > 0 ? elapsed / double(done) * double(total - done) : 0;
    constexpr int kWidth = 30;
    const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kWidth - filled), '-');
    std::fprintf(stderr, "\r[%s] fit %zu of %zu, %s elapsed, about %s left ", bar.c_str(), done, total,
                 format_duration(elapsed).c_str(), format_duration(left).c_str());
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

template <class T, class Parse>
std::vector<T> parse_each(const std::string& text, const std::string& option, Parse parse) {
  std::vector<T> values;
  for (const auto& item : split_list(text, option)) values.push_back(parse(item));
  return values;
}

std::string extension_of(const std::string& path) {
  const auto dot = path.find_last_of('.');
  return dot == std::string::npos ? "" : path.substr(dot);
}

BenchGrid make_grid(const BenchArguments& a, const po::variables_map& vm) {
  BenchGrid grid;
  grid.scenarios = parse_each<ScenarioChoice>(a.scenarios, "scenario", [](const std::string& s) {
    ScenarioChoice c = parse_scenario(s);
    if (c.selection) throw UsageError("--scenario: bench fits regressions; " + c.name + " is a selection input (use generate)");
    return c;
  });
  const auto count = [](const std::string& option, std::uint64_t low) {
    return [option, low](const std::string& s) { return static_cast<std::size_t>(parse_count(option, s, low)); };
  };
  grid.ns = parse_each<std::size_t>(a.ns, "n", count("n", 1));
  grid.ps = parse_each<std::size_t>(a.ps, "p", count("p", 1));
  for (const auto n : grid.ns)
    for (const auto p : grid.ps)
      if (p + 1 >= n)
        throw UsageError("--p: " + std::to_string(p) + " predictors and an intercept need more rows than n = " +
                         std::to_string(n) + " (p + 1 < n)");
  grid.epsilons = parse_each<double>(a.epsilons, "contamination", [](const std::string& s) { return parse_fraction("contamination", s); });
  std::sort(grid.epsilons.begin(), grid.epsilons.end());
  grid.estimators = parse_each<regression::Method>(a.estimators, "estimators", [](const std::string& s) {
    return parse_or_usage<regression::Method>("estimators", s, regression::parse_method);
  });
  grid.backends = parse_each<regression::Backend>(a.backends, "backend", [](const std::string& s) {
    if (s != "cpu" && s != "cuda") throw UsageError("--backend: unknown backend '" + s + "' (expected cpu or cuda)");
    if (s == "cuda" && !regression::cuda_backend_available())
      throw UsageError("--backend cuda: the CUDA backend is not available on this machine or in this build");
    return regression::parse_backend(s);
  });
  grid.selections = parse_each<std::string>(a.selections, "selection", [](const std::string& s) {
    (void)parse_or_usage<selection::Algorithm>("selection", s, selection::parse_algorithm);
    return s;
  });
  // Every backend x selection cell of the grid must exist (capability table), before any fit runs.
  for (const auto backend : grid.backends)
    for (const auto& name : grid.selections) {
      try {
        selection::require_offered(backend, selection::Use::batched, selection::parse_algorithm(name));
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--selection: ") + e.what());
      }
    }
  grid.repeats = parse_count("repeat", a.repeats, 1);
  grid.seed = parse_count("seed", a.seed);
  if (vm.count("peers")) {
    if (a.peers != "r") throw UsageError("--peers: unknown peer '" + a.peers + "' (expected r)");
    grid.peers_r = true;
  }
  // Parameters against the largest p; a single --beta value is spread over every p.
  grid.parameters.q = *std::max_element(grid.ps.begin(), grid.ps.end());
  if (!a.parameters.beta.empty() && split_list(a.parameters.beta, "beta").size() > 1 && grid.ps.size() > 1)
    throw UsageError("--beta: with several --p values give one value for every coefficient");
  if (!a.parameters.df.empty()) grid.parameters.contamination = data::Contamination::heavy_tails;
  apply_scenario_parameters(a.parameters, grid.parameters);
  return grid;
}

}  // namespace

int run_bench(const std::vector<std::string>& args, Stage stage) {
  BenchArguments a;
  const po::options_description options = bench_options(a);
  const po::variables_map vm = parse_command_line(args, options, "bench");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  if (vm.count("data")) throw UsageError("bench: unexpected argument '" + vm["data"].as<std::string>() + "'");
  if (a.scenarios.empty()) throw UsageError("bench: --scenario is required");
  if (a.ns.empty()) throw UsageError("bench: --n is required");
  const BenchGrid grid = make_grid(a, vm);
  const std::string extension = extension_of(a.output);
  if (!a.output.empty() && extension != ".json" && extension != ".csv")
    throw UsageError("--output: '" + a.output + "' must end in .json or .csv");
  if (stage == Stage::parse) return kExitOk;
  // Fail before the run, not after it, when the results cannot be written.
  if (!a.output.empty() && !std::ofstream(a.output, std::ios::app))
    throw data::DataError("cannot write '" + a.output + "'");

  ProgressBar bar;
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const BenchResults results = run_bench(grid, terminal ? BenchProgress(std::ref(bar)) : BenchProgress());
  for (const auto& note : results.notes) std::cerr << "robust-fit: note: " << note << "\n";

  if (extension == ".json") {
    std::ofstream out(a.output);
    out << bench_json(grid, results).dump(2) << "\n";
    if (!out) throw data::DataError("cannot write '" + a.output + "'");
  } else if (extension == ".csv") {
    write_bench_csv(a.output, results);
  } else {
    print_bench_summary(std::cout, results);
  }
  if (!a.report.empty()) {
    std::string command_line = "robust-fit bench";
    for (const auto& arg : args) command_line += " " + arg;
    write_bench_report(a.report, grid, results, command_line);
  }
  return kExitOk;
}

}  // namespace robustfit::app
