// robust-fit fit's reports of a synthetic n-row LTS fit with robust distances (10 predictors),
// written to --out (default /dev/null), seconds per way (best of --reps):
//   json_object: fit_json(...).dump(2), one nlohmann value per row (print_fit_json before
//                app/json_rows.hpp; what the Python module still builds);
//   json:        print_fit_json, as `fit -o json` prints;
//   csv:         write_residuals_csv, as `fit --residuals FILE` writes.
//
//   bench_report --rows 10000000 [--out /tmp/report] [--reps 3] [--only json|json_object|csv]
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fit_report.hpp"
#include "robustfit/common/parallel.hpp"

namespace {

using namespace robustfit;

struct Synthetic {
  data::Design design;
  regression::FitResult fit;
  explicit Synthetic(std::size_t n) {
    const std::size_t q = 10;
    design.response = "y";
    for (std::size_t k = 1; k <= q; ++k) design.predictors.push_back(std::string(1, 'x').append(std::to_string(k)));
    design.data_rows.resize(n);
    for (std::size_t i = 0; i < n; ++i) design.data_rows[i] = i + 1;
    regression::FitResult& f = fit;
    f.method = regression::Method::lts;
    f.n = n;
    f.p = q + 1;
    f.h = (n + f.p + 1) / 2;
    f.coefficients = Eigen::VectorXd::Random(static_cast<Eigen::Index>(f.p));
    f.raw_coefficients = f.coefficients;
    f.scale = f.raw_scale = 1;
    f.fitted.resize(static_cast<Eigen::Index>(n));
    f.residuals.resize(static_cast<Eigen::Index>(n));
    f.standardized_residuals.resize(static_cast<Eigen::Index>(n));
    f.weights.resize(static_cast<Eigen::Index>(n));
    f.outlier.resize(n);
    f.robust_distances.resize(n);
    f.rd_cutoff = 4.5;
    // Row chunks with a generator each: 10^7 rows of normals take seconds on one thread.
    common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
      std::mt19937_64 random(c);
      std::normal_distribution<double> normal;
      for (std::size_t i = begin; i < end; ++i) {
        const auto r = static_cast<Eigen::Index>(i);
        const double e = normal(random) * (i % 10 == 0 ? 10 : 1);
        f.fitted(r) = 100 * normal(random);
        f.residuals(r) = f.standardized_residuals(r) = e;
        f.outlier[i] = std::abs(e) > 2.5;  // vector<bool>: chunk bounds are word-aligned
        f.weights(r) = f.outlier[i] ? 0 : 1;
        f.robust_distances[i] = std::hypot(normal(random), normal(random), normal(random)) * (i % 20 == 0 ? 3 : 1);
      }
    });
    for (std::size_t i = 0; i < f.h; ++i) f.best_subset.push_back(2 * i < n ? 2 * i : i);
    f.inference.coefficients.resize(f.p, {1.5, 0.01, 150, 1e-20});
    f.backend = "cpu";
  }
};

// Wall and CPU (all threads) seconds of the fastest of `reps` runs.
std::pair<double, double> seconds_of(int reps, const auto& write) {
  std::pair<double, double> best{1e300, 0};
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu = std::clock();
    write();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (wall < best.first) best = {wall, static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC};
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t rows = 1000000;
  std::string out = "/dev/null", only;
  int reps = 3;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a], value = argv[a + 1];
    if (key == "--rows") rows = static_cast<std::size_t>(std::stod(value));
    else if (key == "--out") out = value;
    else if (key == "--reps") reps = std::stoi(value);
    else if (key == "--only") only = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  const Synthetic synthetic(rows);
  const app::FitContext context{"synthetic.csv", &synthetic.design, 0.5, 1};
  std::printf("rows %zu, out %s, threads %u, best of %d\n", rows, out.c_str(), common::worker_count(1u << 20), reps);
  const auto report = [&](const char* way, const auto& write) {
    if (!only.empty() && only != way) return;
    const auto [wall, cpu] = seconds_of(reps, write);
    std::ifstream in(out, std::ios::binary | std::ios::ate);
    std::printf("%-12s %8.3f s wall %8.3f s cpu  %lld bytes\n", way, wall, cpu, static_cast<long long>(in.tellg()));
  };
  report("json_object", [&] {
    std::ofstream file(out, std::ios::binary);
    file << app::fit_json(synthetic.fit, context).dump(2) << "\n";
  });
  report("json", [&] {
    std::ofstream file(out, std::ios::binary);
    app::print_fit_json(file, synthetic.fit, context);
  });
  report("csv", [&] { app::write_residuals_csv(out, synthetic.fit, context); });
}
