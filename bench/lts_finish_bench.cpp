// The LTS finish alone (finish_lts: raw LS fit, objective, reweighting, reweighted fit, scale,
// outliers, R^2, inference) on bench_lts's scenario, without the search: the coefficients it
// starts from are C-steps by QR from the LS fit to convergence, computed once per process.
// ROBUSTFIT_TRACE=1 prints the finish's phases. Prints per run the finish's seconds and, once,
// the result (%.17g, per-row vectors as sums and counts) so that builds can be compared bit for bit.
#include <Eigen/Core>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "all_rows.hpp"
#include "design_matrix.hpp"
#include "finish.hpp"
#include "least_squares.hpp"
#include "lts_scenario.hpp"
#include "robustfit/data/scenarios.hpp"
#include "row_reductions.hpp"

namespace rd = robustfit::regression::detail;

namespace {

// C-steps by QR from the LS fit until the h-subset repeats (at most `steps`).
Eigen::VectorXd converged(const rd::ModelData& data, std::size_t h, int steps) {
  const rd::RowReductions all;
  Eigen::VectorXd beta = *rd::ls_on_rows(data.X, data.y, {});
  std::vector<std::size_t> last;
  for (int step = 0; step < steps; ++step) {
    std::vector<std::size_t> rows = all.smallest_h(rd::squared_residuals_of(data.X, data.y, beta), h);
    if (rows == last) break;
    beta = *rd::ls_on_rows(data.X, data.y, rows);
    last = std::move(rows);
  }
  return beta;
}

// CPU seconds of the whole process (every thread), user and system: the work done, which a
// shared machine's load stretches less than the wall time.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// Sum of a per-row vector in row order: equal sums for equal vectors (a quick bit-for-bit check).
double row_sum(const Eigen::VectorXd& v) {
  double s = 0;
  for (Eigen::Index i = 0; i < v.size(); ++i) s += v(i);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1000000, p = 10;
  int runs = 3, steps = 10;
  bool intercept = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--n") n = static_cast<std::size_t>(std::stod(value));
    else if (key == "--p") p = static_cast<std::size_t>(std::stod(value));
    else if (key == "--runs") runs = std::stoi(value);
    else if (key == "--steps") steps = std::stoi(value);
    else if (key == "--intercept") intercept = value == "on";
    else {
      std::cerr << "usage: bench_lts_finish [--n 1e6] [--p 10] [--runs 3] [--steps 10] [--intercept on|off]\n";
      return 2;
    }
  }
  const auto scenario = robustfit::bench::lts_scenario(n, p);
  const rd::ModelData data = rd::make_model_data(scenario.X, scenario.y, intercept);
  const std::size_t h = (n + data.p() + 1) / 2;
  const Eigen::VectorXd beta = converged(data, h, steps);
  // fit_lts computes y's window variance beside the search: not a finish phase.
  const double y_window_variance = rd::RowReductions{}.min_window_variance(data.y, h);

  robustfit::regression::FitResult result;
  std::printf("run,finish_s,finish_cpu_s\n");
  for (int r = 0; r < runs; ++r) {
    result = {};
    const auto start = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    rd::finish_lts(data, rd::RowReductions{}, beta, h, 0.5, true, result, y_window_variance);
    std::printf("%d,%.4f,%.4f\n", r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                cpu_seconds() - cpu);
    std::fflush(stdout);
  }
  std::size_t outliers = 0;
  for (const bool o : result.outlier) outliers += o;
  std::printf("objective %.17g raw_scale %.17g scale %.17g r_squared %.17g outliers %zu best_subset %zu\n",
              result.objective, result.raw_scale, result.scale, result.r_squared, outliers, result.best_subset.size());
  std::printf("sums residuals %.17g fitted %.17g standardized %.17g weights %.17g\n", row_sum(result.residuals),
              row_sum(result.fitted), row_sum(result.standardized_residuals), row_sum(result.weights));
  std::printf("raw_coefficients");
  for (Eigen::Index i = 0; i < result.raw_coefficients.size(); ++i) std::printf(" %.17g", result.raw_coefficients(i));
  std::printf("\ncoefficients");
  for (Eigen::Index i = 0; i < result.coefficients.size(); ++i) std::printf(" %.17g", result.coefficients(i));
  const auto& inference = result.inference;
  std::printf("\nstd_errors");
  for (const auto& c : inference.coefficients) std::printf(" %.17g", c.std_error);
  std::printf("\np_values");
  for (const auto& c : inference.coefficients) std::printf(" %.17g", c.p_value);
  std::printf("\nsigma %.17g df %zu multiple_r2 %.17g adj_r2 %.17g f %.17g\n", inference.sigma, inference.df,
              inference.multiple_r_squared, inference.adj_r_squared,
              inference.f_statistic.value_or(-1));
}
