#pragma once
// Presenting a fit: a table for people, JSON for programs, a per-row residuals CSV.
// A library of its own (robustfit_fit_report) that the CLI and the Python module link.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "robustfit/data/design.hpp"
#include "robustfit/regression/fit_result.hpp"

namespace robustfit::app {

struct FitContext {
  std::string data_file;
  const data::Design* design = nullptr;
  double alpha = 0.5;        // LTS only
  std::uint64_t seed = 0;
};

void print_fit_table(std::ostream& out, const regression::FitResult& fit, const FitContext& context);
// The JSON object `--output json` prints; the Python module builds its results from it too.
nlohmann::ordered_json fit_json(const regression::FitResult& fit, const FitContext& context);
void print_fit_json(std::ostream& out, const regression::FitResult& fit, const FitContext& context);
// Columns: row (1-based data row), fitted, residual, std_residual, weight, outlier (0/1), and
// when the fit has robust distances, robust_distance and class (the outlier map's, as text).
void write_residuals_csv(const std::filesystem::path& path, const regression::FitResult& fit,
                         const FitContext& context);

}  // namespace robustfit::app
