#pragma once
// Drawing a Figure with Cairo. Throws std::runtime_error when the file cannot be written and
// std::invalid_argument for a malformed figure (no panels, size < 1, series of unequal lengths).
// save() writes a temporary file beside `path` and renames it: a failure leaves no partial file.
#include <filesystem>

#include "robustfit/plot/figure.hpp"

namespace robustfit::plot {

void save_png(const Figure& figure, const std::filesystem::path& path);  // width x height pixels
void save_svg(const Figure& figure, const std::filesystem::path& path);  // width x height points
void save_pdf(const Figure& figure, const std::filesystem::path& path);  // width x height points

enum class FileFormat { png, svg, pdf };
// The format named by the path's extension (.png, .svg, .pdf, any case); std::invalid_argument
// naming the extension otherwise.
FileFormat file_format(const std::filesystem::path& path);
// By extension, atomically (temporary file + rename).
void save(const Figure& figure, const std::filesystem::path& path);

}  // namespace robustfit::plot
