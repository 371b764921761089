#pragma once
// `robust-fit fit --plot FILE`: the four diagnostic panels robustbase's plot.lts draws, in one
// 2 x 2 figure (PNG, SVG or PDF by the extension).
#include <filesystem>

#include "fit_report.hpp"
#include "robustfit/plot/figure.hpp"

namespace robustfit::app {

// Standardized residuals (residual / final scale) against the data row with the +-2.5 band;
// against the fitted values; their normal Q-Q plot with the line through the quartiles; the
// outlier map (standardized residuals against robust distances, both cut-offs, points coloured
// by class) when the fit has robust distances, else a panel that says they were not computed.
// The most extreme rows carry their 1-based data-row numbers (as ltsPlot's id.n: the rows of
// weight 0, on the map also those beyond the distance cut-off; at most 12 per panel, none
// overprinting another).
plot::Figure diagnostic_figure(const regression::FitResult& fit, const FitContext& context);

// Checks the extension before any work: UsageError (exit 2) unless .png, .svg or .pdf, or when
// the folder does not exist.
void check_plot_path(const std::filesystem::path& path);
// Draws and writes atomically (no partial file on failure: std::runtime_error, exit 1).
void save_diagnostic_plots(const std::filesystem::path& path, const regression::FitResult& fit,
                           const FitContext& context);

}  // namespace robustfit::app
