// Benchmark of CSV ingestion: read_csv + make_design on a numeric file, as `robust-fit fit`
// does before it fits. Prints one CSV row: file size, rows, columns, times, MB/s (of the file,
// 10^6 bytes) and the peak resident size (VmHWM of /proc/self/status) against the file size.
// `bench_csv --generate FILE --rows N [--cols 11]` writes the file first (in its own process,
// so that the generator's memory does not count in the measured peak).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"

namespace {

// Peak resident size in bytes, from the kernel's high-water mark.
std::size_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

int generate(const std::filesystem::path& path, std::size_t rows, std::size_t cols) {
  std::mt19937_64 rng(20261121);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::string> header;
  std::vector<std::vector<double>> columns(cols, std::vector<double>(rows));
  for (std::size_t j = 0; j < cols; ++j) header.push_back(j + 1 == cols ? std::string("y") : std::string("x").append(std::to_string(j + 1)));
  for (std::size_t i = 0; i < rows; ++i) {
    double y = normal(rng);
    for (std::size_t j = 0; j + 1 < cols; ++j) {
      columns[j][i] = normal(rng);
      y += static_cast<double>(j + 1) * columns[j][i];
    }
    columns[cols - 1][i] = y;
  }
  robustfit::data::write_csv(path, header, columns);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const auto usage = [] {
    std::cerr << "usage: bench_csv FILE [--response y]\n"
                 "       bench_csv --generate FILE --rows N [--cols 11]\n";
    return 2;
  };
  std::string file, response = "y", generate_path;
  std::size_t rows = 1000000, cols = 11;
  for (int i = 1; i < argc; ++i) {
    const std::string key = argv[i];
    const bool has_value = i + 1 < argc;
    if (key == "--generate" && has_value) generate_path = argv[++i];
    else if (key == "--rows" && has_value) rows = static_cast<std::size_t>(std::stod(argv[++i]));
    else if (key == "--cols" && has_value) cols = std::stoul(argv[++i]);
    else if (key == "--response" && has_value) response = argv[++i];
    else if (key.rfind("--", 0) != 0 && file.empty()) file = key;
    else return usage();
  }
  if (!generate_path.empty()) return cols < 1 ? usage() : generate(generate_path, rows, cols);
  if (file.empty()) return usage();

  const double file_bytes = static_cast<double>(std::filesystem::file_size(file));
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const robustfit::data::Table table = robustfit::data::read_csv(file);
  const auto read_done = clock::now();
  robustfit::data::DesignOptions options;
  options.response = response;
  const robustfit::data::Design design = robustfit::data::make_design(table, options);
  const auto design_done = clock::now();
  const double read_s = std::chrono::duration<double>(read_done - start).count();
  const double design_s = std::chrono::duration<double>(design_done - read_done).count();
  const double peak = static_cast<double>(peak_resident_bytes());
  std::printf("file_mb,rows,cols,read_s,design_s,total_s,mb_per_s,peak_rss_mb,peak_over_file\n");
  std::printf("%.1f,%zu,%zu,%.3f,%.3f,%.3f,%.0f,%.1f,%.2f\n", file_bytes / 1e6, table.rows(),
              table.columns.size(), read_s, design_s, read_s + design_s,
              file_bytes / 1e6 / (read_s + design_s), peak / 1e6, peak / file_bytes);
  return design.y.size() > 0 ? 0 : 1;
}
