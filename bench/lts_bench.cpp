// Benchmark of fit_lts / fit_lms on contaminated regression scenarios (docs/BENCHMARKS.md),
// on the CPU or CUDA backend.
// Prints one CSV row per case: time (median/min/max of --runs), objective, ||beta_hat - beta||,
// outlier precision and recall against the planted outliers. --write-data DIR also saves each
// scenario as CSV so that R's robustbase can be timed on the very same data
// (bench/peers/lts_robustbase.R).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "lts_scenario.hpp"
#include "robustfit/data/scenarios.hpp"
#include "robustfit/regression/estimators.hpp"

namespace {

std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> values;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) values.push_back(static_cast<std::size_t>(std::stod(item)));
  return values;
}

void write_scenario(const std::filesystem::path& path, const robustfit::data::Scenario& s) {
  std::vector<std::string> header;
  std::vector<std::vector<double>> columns;
  for (Eigen::Index j = 0; j < s.X.cols(); ++j) {
    header.push_back(std::string("x").append(std::to_string(j + 1)));
    columns.emplace_back(s.X.col(j).data(), s.X.col(j).data() + s.X.rows());
  }
  header.push_back("y");
  columns.emplace_back(s.y.data(), s.y.data() + s.y.size());
  robustfit::data::write_csv(path, header, columns);
}

}  // namespace

int main(int argc, char** argv) {
  std::string ns = "1e4,1e5,1e6", ps = "5,10", write_dir, contamination = "vertical", backend = "cpu",
              method = "lts", selection = "auto", precision = "double", mcd = "on";
  double epsilon = 0.2;
  int runs = 3;
  std::size_t subsets = 0;
  const auto usage = [] {
    std::cerr << "usage: bench_lts [--n 1e4,1e5] [--p 5,10] [--eps 0.2] [--runs 3] [--contamination vertical]\n"
                 "                 [--backend cpu|cuda] [--method lts|lms] [--subsets N] [--selection ALG] [--precision double|float]\n"
                 "                 [--mcd on|off] [--write-data DIR]\n"
                 "--mcd off: LTS without the robust distances (FAST-MCD of the predictors, on by default as in fit_lts)\n";
    return 2;
  };
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) return usage();  // --help, or an option without its value
    const std::string value = argv[i + 1];
    if (key == "--n") ns = value;
    else if (key == "--p") ps = value;
    else if (key == "--eps") epsilon = std::stod(value);
    else if (key == "--runs") runs = std::stoi(value);
    else if (key == "--contamination") contamination = value;
    else if (key == "--write-data") write_dir = value;
    else if (key == "--backend") backend = value;
    else if (key == "--method") method = value;
    else if (key == "--subsets") subsets = static_cast<std::size_t>(std::stod(value));
    else if (key == "--selection") selection = value;
    else if (key == "--precision") precision = value;
    else if (key == "--mcd" && (value == "on" || value == "off")) mcd = value;
    else return usage();
  }
  const auto backend_value = robustfit::regression::parse_backend(backend);
  const auto method_value = robustfit::regression::parse_method(method);
  const auto selection_value = robustfit::selection::parse_algorithm(selection);
  const auto precision_value = robustfit::regression::parse_precision(precision);
  std::cout << "method,backend,selection,n,p,eps,contamination,subsets,threads,runs,median_s,min_s,max_s,"
               "setup_s,subsets_s,objectives_s,csteps_s,finish_s,objective,beta_error,precision,recall,arithmetic,"
               "residual_gemms_s,selection_s,mcd\n";
  for (std::size_t n : parse_list(ns)) {
    for (std::size_t p : parse_list(ps)) {
      const auto scenario = robustfit::bench::lts_scenario(n, p, epsilon, contamination);
      if (!write_dir.empty())
        write_scenario(std::filesystem::path(write_dir) / ("lts_n" + std::to_string(n) + "_p" + std::to_string(p) + ".csv"), scenario);
      std::vector<double> times;
      robustfit::regression::FitResult fit;
      for (int r = 0; r < runs; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const auto configured = [&](auto options) {  // LtsOptions or LmsOptions
          options.backend = backend_value;
          options.selection = selection_value;
          options.precision = precision_value;
          if (subsets) options.subsets = subsets;
          return options;
        };
        fit = method_value == robustfit::regression::Method::lms
                  ? robustfit::regression::fit_lms(scenario.X, scenario.y, configured(robustfit::regression::LmsOptions{}))
                  : robustfit::regression::fit_lts(scenario.X, scenario.y, [&] {
                      auto options = configured(robustfit::regression::LtsOptions{});
                      options.mcd = mcd == "on";
                      return options;
                    }());
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      std::sort(times.begin(), times.end());
      std::size_t true_pos = 0, flagged = 0, planted = 0;
      for (std::size_t i = 0; i < n; ++i) {
        flagged += fit.outlier[i];
        planted += scenario.planted_outlier[i];
        true_pos += fit.outlier[i] && scenario.planted_outlier[i];
      }
      const auto seconds = [](const std::optional<double>& s) { return s ? std::to_string(*s) : std::string(); };
      std::printf("%s,%s,%s,%zu,%zu,%.2f,%s,%zu,%u,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.10g,%.6g,%.4f,%.4f,%s,%s,%s,%s\n",
                  method.c_str(), fit.backend.c_str(), fit.selection.c_str(), n, p, epsilon, contamination.c_str(),
                  fit.subsets_tried, std::thread::hardware_concurrency(), runs, times[times.size() / 2], times.front(),
                  times.back(), fit.timings.setup_s, fit.timings.subsets_s, fit.timings.objectives_s, fit.timings.csteps_s, fit.timings.finish_s,
                  fit.objective, (fit.coefficients - scenario.beta).norm(),
                  flagged ? static_cast<double>(true_pos) / static_cast<double>(flagged) : 1.0,
                  planted ? static_cast<double>(true_pos) / static_cast<double>(planted) : 1.0,
                  std::string(robustfit::regression::to_string(fit.precision)).c_str(),
                  seconds(fit.timings.residuals_s).c_str(), seconds(fit.timings.selection_s).c_str(),
                  method_value == robustfit::regression::Method::lms ? "off" : mcd.c_str());
      std::fflush(stdout);
    }
  }
}
