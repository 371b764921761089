#pragma once
// Presenting a fit: a table for people, JSON for programs, a per-row residuals CSV.
// A library of its own (robustfit_fit_report) that the CLI and the Python module link.
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "robustfit/data/design.hpp"
#include "robustfit/regression/fit_result.hpp"
#include "robustfit/regression/outlier_map.hpp"

namespace robustfit::app {

// A fit under mpirun, as rank 0 prints it: what rank 0's FitResult (whose per-row vectors hold
// its own rows) cannot say about the other ranks' rows.
struct DistributedRows {
  int ranks = 0;
  std::uint64_t bytes = 0;                     // payload rank 0 handed to collectives
  std::vector<std::size_t> outlier_rows;       // 1-based data rows over all ranks, ascending
  std::vector<std::size_t> best_subset_rows;   // the same for the raw fit's h-subset
  std::size_t kept_rows = 0;                   // rows of weight 1 over all ranks
  // The robust distances (FAST-MCD): whether the fit has them (rank 0 may hold no rows), the
  // outlier map's class counts over all ranks (the table), and every row's distance and class
  // in row order (JSON only).
  bool has_robust_distances = false;
  std::array<std::size_t, 4> outlier_class_counts{};
  std::vector<double> robust_distances;
  std::vector<regression::OutlierClass> outlier_classes;
};

struct FitContext {
  std::string data_file;
  const data::Design* design = nullptr;
  double alpha = 0.5;        // LTS only
  std::uint64_t seed = 0;
  const DistributedRows* distributed = nullptr;  // under mpirun
};

void print_fit_table(std::ostream& out, const regression::FitResult& fit, const FitContext& context);
// The JSON object `--output json` prints; the Python module builds its results from it too.
nlohmann::ordered_json fit_json(const regression::FitResult& fit, const FitContext& context);
void print_fit_json(std::ostream& out, const regression::FitResult& fit, const FitContext& context);
// Columns: row (1-based data row), fitted, residual, std_residual, weight, outlier (0/1), and
// when the fit has robust distances, robust_distance and class (the outlier map's, as text).
void write_residuals_csv(const std::filesystem::path& path, const regression::FitResult& fit,
                         const FitContext& context);
// The rows of that CSV (no header), for writing it in parts: with the robust distances and the
// outlier map's class when the fit has them.
std::string residuals_csv_rows(const regression::FitResult& fit, const FitContext& context);
inline constexpr const char* kResidualsCsvHeader = "row,fitted,residual,std_residual,weight,outlier\n";
inline constexpr const char* kResidualsCsvHeaderWithDistances =
    "row,fitted,residual,std_residual,weight,outlier,robust_distance,class\n";

}  // namespace robustfit::app
