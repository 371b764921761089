// The LMS host phases alone (issue 10): the refinement of the kept candidates (refine_lms) and
// the finish (finish_lms) on bench_lts's scenario, without the engine's objectives, which on the
// CPU engine take most of a fit at 10^6 rows. The kept candidates of `--subsets N` (the ten best
// of N random elemental fits, exactly as fit_lms keeps them: same seed, same engine calls) are
// computed once with the CPU engine and cached in --cache FILE; each run then refines a copy and
// finishes the best. Prints per run the two phases' seconds and, once, every refined objective
// and the fit (%.17g) so that builds can be compared bit for bit.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "best_candidates.hpp"
#include "design_matrix.hpp"
#include "engine_factory.hpp"
#include "finish.hpp"
#include "lms_refine.hpp"
#include "lts_scenario.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/options.hpp"
#include "row_reductions.hpp"
#include "subsets.hpp"

namespace rd = robustfit::regression::detail;

namespace {

// CPU seconds of the whole process (every thread), user and system: the work done, which a
// shared machine's load stretches less than the wall time.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// fit_lms's search with `subsets` random starts on the CPU engine: the ten best candidates.
void kept_candidates(const rd::ModelData& data, std::size_t h, std::size_t subsets, Eigen::MatrixXd& betas,
                     std::vector<double>& objectives) {
  const robustfit::regression::LmsOptions options;
  auto engine = rd::make_engine(data, robustfit::regression::Backend::cpu, options.selection, options.precision,
                                rd::SearchSize{data.n(), data.p(), subsets});
  rd::Random random(options.seed);
  rd::Candidates candidates = rd::random_elemental_fits(*engine, random, subsets);
  rd::BestCandidates keep(10);
  const auto m = static_cast<std::size_t>(candidates.betas.cols());
  std::uint64_t offered = 0;
  for (std::size_t begin = 0; begin < m; begin += 4096) {
    const std::size_t count = std::min<std::size_t>(4096, m - begin);
    Eigen::MatrixXd batch = candidates.betas.middleCols(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
    std::vector<double> values(count);
    engine->lms_objectives(batch, h, data.intercept, values, keep.capacity());
    for (std::size_t j = 0; j < count; ++j) keep.offer(batch.col(static_cast<Eigen::Index>(j)), values[j], offered++);
  }
  betas = keep.columns();
  objectives = keep.objectives();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1000000, p = 10, subsets = 3000;
  int runs = 3, steps = 20;
  bool concentrate = false;
  std::string cache;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--n") n = static_cast<std::size_t>(std::stod(value));
    else if (key == "--p") p = static_cast<std::size_t>(std::stod(value));
    else if (key == "--subsets") subsets = static_cast<std::size_t>(std::stod(value));
    else if (key == "--runs") runs = std::stoi(value);
    else if (key == "--steps") steps = std::stoi(value);
    else if (key == "--concentrate") concentrate = value == "on";
    else if (key == "--cache") cache = value;
    else {
      std::cerr << "usage: bench_lms_host [--n 1e6] [--p 10] [--subsets 3000] [--runs 3] [--steps 20] "
                   "[--concentrate on|off] [--cache FILE]\n";
      return 2;
    }
  }
  const auto scenario = robustfit::bench::lts_scenario(n, p);
  const rd::ModelData data = rd::make_model_data(scenario.X, scenario.y, true);
  const std::size_t h = (n + 1) / 2;

  Eigen::MatrixXd kept;
  std::vector<double> kept_objectives;
  std::ifstream in(cache, std::ios::binary);
  Eigen::Index rows = 0, cols = 0;
  if (!cache.empty() && in && in.read(reinterpret_cast<char*>(&rows), sizeof rows) && in.read(reinterpret_cast<char*>(&cols), sizeof cols)) {
    kept.resize(rows, cols);
    kept_objectives.resize(static_cast<std::size_t>(cols));
    in.read(reinterpret_cast<char*>(kept.data()), static_cast<std::streamsize>(sizeof(double) * rows * cols));
    in.read(reinterpret_cast<char*>(kept_objectives.data()), static_cast<std::streamsize>(sizeof(double) * cols));
  } else {
    const auto start = std::chrono::steady_clock::now();
    kept_candidates(data, h, subsets, kept, kept_objectives);
    std::fprintf(stderr, "kept candidates computed in %.2f s\n", seconds_since(start));
    if (!cache.empty()) {
      std::ofstream out(cache, std::ios::binary);
      rows = kept.rows(), cols = kept.cols();
      out.write(reinterpret_cast<const char*>(&rows), sizeof rows);
      out.write(reinterpret_cast<const char*>(&cols), sizeof cols);
      out.write(reinterpret_cast<const char*>(kept.data()), static_cast<std::streamsize>(sizeof(double) * rows * cols));
      out.write(reinterpret_cast<const char*>(kept_objectives.data()), static_cast<std::streamsize>(sizeof(double) * cols));
    }
  }

  const rd::RowReductions all;
  std::printf("run,refine_s,finish_s,refine_cpu_s,finish_cpu_s\n");
  Eigen::MatrixXd betas;
  std::vector<double> objectives;
  robustfit::regression::FitResult result;
  for (int r = 0; r < runs; ++r) {
    betas = kept;
    objectives = kept_objectives;
    auto start = std::chrono::steady_clock::now();
    double cpu = cpu_seconds();
    rd::refine_lms(data, all, h, steps, concentrate, betas, objectives);
    const double refine_s = seconds_since(start), refine_cpu_s = cpu_seconds() - cpu;
    const auto winner = std::min_element(objectives.begin(), objectives.end()) - objectives.begin();
    const Eigen::VectorXd best = betas.col(winner);
    start = std::chrono::steady_clock::now();
    cpu = cpu_seconds();
    result = {};
    rd::finish_lms(data, all, best, h, result);
    const double finish_s = seconds_since(start);
    std::printf("%d,%.4f,%.4f,%.4f,%.4f\n", r, refine_s, finish_s, refine_cpu_s, cpu_seconds() - cpu);
    std::fflush(stdout);
  }
  for (std::size_t j = 0; j < objectives.size(); ++j) {
    std::printf("candidate %zu: %.17g ->", j, kept_objectives[j]);
    std::printf(" %.17g beta", objectives[j]);
    for (Eigen::Index i = 0; i < betas.rows(); ++i) std::printf(" %.17g", betas(i, static_cast<Eigen::Index>(j)));
    std::printf("\n");
  }
  std::size_t outliers = 0;
  for (const bool o : result.outlier) outliers += o;
  double residual_sum = 0;
  for (Eigen::Index i = 0; i < result.residuals.size(); ++i) residual_sum += result.residuals(i);
  std::printf("objective %.17g raw_scale %.17g scale %.17g r_squared %.17g outliers %zu best_subset %zu residual_sum %.17g\n",
              result.objective, result.raw_scale, result.scale, result.r_squared, outliers, result.best_subset.size(),
              residual_sum);
  std::printf("coefficients");
  for (Eigen::Index i = 0; i < result.coefficients.size(); ++i) std::printf(" %.17g", result.coefficients(i));
  std::printf("\nstd_errors");
  for (const auto& c : result.inference.coefficients) std::printf(" %.17g", c.std_error);
  std::printf("\nsigma %.17g multiple_r2 %.17g\n", result.inference.sigma, result.inference.multiple_r_squared);
}
