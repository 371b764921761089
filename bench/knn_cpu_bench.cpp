// CPU kNN benchmark (bench/results/KNN_CPU.md): knn_search on uniform random data in [0, 1)^d,
// the same data scikit-learn is timed on (bench/peers/knn_sklearn.py reads --write-data DIR).
// Usage: bench_knn_cpu [--n N] [--m M] [--d D] [--k K] [--runs R] [--metric euclidean|manhattan]
//                      [--write-data DIR] [--kernel avx512|avx2|baseline]
// --kernel: the filter kernel variant (default: the best this CPU runs).
// Prints one CSV row: n,m,d,k,metric,threads,kernel,median_s,min_s,max_s; with --write-data also writes
// DIR/train.csv, DIR/query.csv and DIR/neighbors_robustfit.csv (0-based rows, ordered).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "filter_kernel.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/neighbors/knn.hpp"

namespace {

Eigen::MatrixXd uniform_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  robustfit::common::Random random(seed);
  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j) X(i, j) = random.uniform();
  return X;
}

void write_matrix(const std::filesystem::path& path, const Eigen::MatrixXd& X) {
  std::ofstream out(path);
  out.precision(17);
  for (Eigen::Index j = 0; j < X.cols(); ++j) out << (j ? "," : "") << 'x' << j + 1;
  out << '\n';
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < X.cols(); ++j) out << (j ? "," : "") << X(i, j);
    out << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = 1 << 16, m = 1 << 14, d = 8, k = 10, runs = 3;
  std::string metric = "euclidean", data_dir;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string key = argv[a], value = argv[a + 1];
    if (key == "--n") n = std::stoul(value);
    else if (key == "--m") m = std::stoul(value);
    else if (key == "--d") d = std::stoul(value);
    else if (key == "--k") k = std::stoul(value);
    else if (key == "--runs") runs = std::stoul(value);
    else if (key == "--metric") metric = value;
    else if (key == "--write-data") data_dir = value;
    else if (key == "--kernel") {
      if (!robustfit::neighbors::detail::use_scan_block_variant(value)) {
        std::cerr << "kernel " << value << " is not available on this CPU\n";
        return 2;
      }
    }
    else {
      std::cerr << "unknown option " << key << '\n';
      return 2;
    }
  }
  const Eigen::MatrixXd train = uniform_matrix(n, d, 1), queries = uniform_matrix(m, d, 2);
  robustfit::neighbors::KnnOptions options;
  options.k = k;
  options.metric = robustfit::neighbors::parse_metric(metric);
  options.backend = robustfit::selection::Backend::cpu;
  std::vector<double> seconds;
  robustfit::neighbors::NeighborResult result;
  for (std::size_t r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    result = robustfit::neighbors::knn_search(train, queries, options);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("n,m,d,k,metric,threads,kernel,median_s,min_s,max_s\n%zu,%zu,%zu,%zu,%s,%u,%s,%.4f,%.4f,%.4f\n", n, m, d,
              k, metric.c_str(), std::thread::hardware_concurrency(), robustfit::neighbors::detail::scan_block_variant(),
              seconds[seconds.size() / 2], seconds.front(), seconds.back());
  if (!data_dir.empty()) {
    std::filesystem::create_directories(data_dir);
    write_matrix(std::filesystem::path(data_dir) / "train.csv", train);
    write_matrix(std::filesystem::path(data_dir) / "query.csv", queries);
    std::ofstream out(std::filesystem::path(data_dir) / "neighbors_robustfit.csv");
    for (Eigen::Index i = 0; i < result.rows.rows(); ++i)
      for (Eigen::Index j = 0; j < result.rows.cols(); ++j) out << result.rows(i, j) << (j + 1 < result.rows.cols() ? ',' : '\n');
  }
}
