#pragma once
// Results of `robust-fit bench`: JSON or CSV files (by extension) and a summary table.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "bench_runner.hpp"

namespace robustfit::app {

// {"grid": {...}, "breakdown_rule": "...", "runs": [...], "breakdowns": [...], "notes": [...]}
nlohmann::ordered_json bench_json(const BenchGrid& grid, const BenchResults& results);
// One row per run; the run's breakdown columns repeated on every row of its group.
void write_bench_csv(const std::filesystem::path& path, const BenchResults& results);
// Medians over repeats, one line per cell and estimator; then the breakdowns.
void print_bench_summary(std::ostream& out, const BenchResults& results);

std::string breakdown_rule();

}  // namespace robustfit::app
