// Benchmark of fit_mcd (FAST-MCD) on n rows of p standard normal variables with a fraction of
// rows shifted by the same amount in every variable, on the CPU or CUDA backend.
// Prints one CSV row per n: time (median/min/max of --runs), the objective (log det of the
// best h-subset's covariance), the rows flagged, and the recall of the shifted rows.
// --write-data DIR also saves each sample as raw doubles (column-major, little endian) so that
// R's robustbase::covMcd can be timed on the very same data (bench/peers/mcd_robustbase.R).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"

namespace {

std::vector<std::size_t> parse_list(const std::string& text) {
  std::vector<std::size_t> values;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) values.push_back(static_cast<std::size_t>(std::stod(item)));
  return values;
}

// The first `shifted` rows are moved by `shift` in every variable.
Eigen::MatrixXd sample(std::size_t n, std::size_t p, std::size_t shifted, double shift, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i) X(i, j) = normal(random) + (static_cast<std::size_t>(i) < shifted ? shift : 0);
  return X;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ns = "1e5,1e6", backend = "cpu", write_dir;
  std::size_t p = 10;
  double fraction = 0.2, shift = 4;
  int runs = 3;
  const auto usage = [] {
    std::cerr << "usage: bench_mcd [--n 1e5,1e6] [--p 10] [--shifted 0.2] [--shift 4] [--runs 3] [--backend cpu|cuda]\n"
                 "                 [--write-data DIR]\n";
    return 2;
  };
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[i + 1];
    if (key == "--n") ns = value;
    else if (key == "--p") p = std::stoul(value);
    else if (key == "--shifted") fraction = std::stod(value);
    else if (key == "--shift") shift = std::stod(value);
    else if (key == "--runs") runs = std::stoi(value);
    else if (key == "--backend") backend = value;
    else if (key == "--write-data") write_dir = value;
    else return usage();
  }
  robustfit::regression::McdOptions options;
  options.backend = robustfit::regression::parse_backend(backend);
  std::cout << "backend,n,p,shifted,median_s,min_s,max_s,log_det,flagged,recall\n";
  for (const std::size_t n : parse_list(ns)) {
    const auto shifted = static_cast<std::size_t>(fraction * static_cast<double>(n));
    const Eigen::MatrixXd X = sample(n, p, shifted, shift, 20261123 + n);
    if (!write_dir.empty()) {
      std::filesystem::create_directories(write_dir);
      const auto path = std::filesystem::path(write_dir) / ("mcd_n" + std::to_string(n) + "_p" + std::to_string(p) + ".bin");
      std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(X.data()), static_cast<std::streamsize>(sizeof(double) * X.size()));
    }
    std::vector<double> seconds;
    robustfit::regression::McdResult fit;
    for (int r = 0; r < runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      fit = robustfit::regression::fit_mcd(X, options);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    std::size_t found = 0;
    for (std::size_t row : fit.flagged) found += row <= shifted;
    std::printf("%s,%zu,%zu,%zu,%.4f,%.4f,%.4f,%.10g,%zu,%.4f\n", fit.backend.c_str(), n, p, shifted, seconds[seconds.size() / 2],
                seconds.front(), seconds.back(), fit.log_det, fit.flagged.size(),
                shifted ? static_cast<double>(found) / static_cast<double>(shifted) : 1.0);
    std::fflush(stdout);
  }
  return 0;
}
