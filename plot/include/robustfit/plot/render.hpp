#pragma once
// Drawing a Figure with Cairo. Throws std::runtime_error when the file cannot be written and
// std::invalid_argument for a malformed figure (no panels, size < 1, series of unequal lengths).
#include <filesystem>

#include "robustfit/plot/figure.hpp"

namespace robustfit::plot {

void save_png(const Figure& figure, const std::filesystem::path& path);  // width x height pixels
void save_svg(const Figure& figure, const std::filesystem::path& path);  // width x height points

}  // namespace robustfit::plot
