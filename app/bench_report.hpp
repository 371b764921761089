#pragma once
// The HTML report of `robust-fit bench --report DIR`: DIR/index.html with tables and <img>
// elements that reference PNG charts written beside it (each also as SVG, linked under it).
// The folder is self-contained: no scripts, styles or images from elsewhere.
#include <filesystem>
#include <string>
#include <vector>

#include "bench_runner.hpp"

namespace robustfit::app {

inline constexpr int kReportImageWidth = 960;
inline constexpr int kReportImageHeight = 540;  // per row of panels

// Writes the charts and index.html; returns the image files written (PNG and SVG names).
std::vector<std::string> write_bench_report(const std::filesystem::path& folder, const BenchGrid& grid,
                                            const BenchResults& results, const std::string& command_line);

}  // namespace robustfit::app
