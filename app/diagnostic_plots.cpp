#include "diagnostic_plots.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "robustfit/plot/render.hpp"
#include "robustfit/regression/outlier_map.hpp"

namespace robustfit::app {

namespace {

using regression::FitResult;
using regression::OutlierClass;

constexpr std::size_t kMaxLabels = 12;      // per panel: more only overprint each other
constexpr std::size_t kQqTail = 1000;       // large n: every order statistic this far from either end
constexpr std::size_t kQqInterior = 20000;  // large n: this many evenly spaced order statistics between
constexpr double kResidualCutoff = regression::kOutlierMapResidualCutoff;

// One colour per group of rows: the outlier map's classes when there are robust distances,
// else rows of weight 1 and the flagged outliers.
struct Groups {
  std::vector<std::string> names;
  std::vector<plot::Color> colors;
  std::vector<std::size_t> of_row;
};

Groups groups_of(const FitResult& fit) {
  const auto classes = regression::outlier_map(fit);
  Groups g;
  if (!classes.empty()) {
    g.names = {"regular", "vertical outlier", "good leverage", "bad leverage"};
    g.colors = {plot::palette(0), plot::palette(4), plot::palette(2), plot::palette(1)};
    for (auto c : classes) g.of_row.push_back(static_cast<std::size_t>(c));
  } else {
    g.names = {"weight 1", "outlier (weight 0)"};
    g.colors = {plot::palette(0), plot::palette(1)};
    for (std::size_t i = 0; i < fit.n; ++i) g.of_row.push_back(fit.outlier[i] ? 1 : 0);
  }
  return g;
}

struct PointStyle {
  double radius, alpha;
};
PointStyle style_for(std::size_t n) {
  if (n <= 1000) return {3.5, 0.85};
  if (n <= 10000) return {2.5, 0.6};
  return {1.5, 0.5};  // drawn binned above 10^5 points: cells of k points get 1 - 0.5^k
}

// Points (x_i, y_i) for the given rows, one series per group (empty groups left out).
void add_grouped_points(plot::Axes& axes, const Groups& g, const std::vector<std::size_t>& rows,
                        const std::vector<double>& x, const std::vector<double>& y, PointStyle style) {
  std::vector<std::vector<double>> xs(g.names.size()), ys(g.names.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    xs[g.of_row[rows[k]]].push_back(x[k]);
    ys[g.of_row[rows[k]]].push_back(y[k]);
  }
  for (std::size_t c = 0; c < g.names.size(); ++c) {
    if (xs[c].empty()) continue;
    auto& s = axes.add_points(g.names[c], std::move(xs[c]), std::move(ys[c]), g.colors[c].with_alpha(style.alpha));
    s.point_radius = style.radius;
  }
}

double span_of(const std::vector<double>& v) {
  double low = INFINITY, high = -INFINITY;
  for (double x : v)
    if (std::isfinite(x)) low = std::min(low, x), high = std::max(high, x);
  return high > low ? high - low : 1.0;
}

// Of the `count` positions of largest `score`, up to kMaxLabels labelled with their data-row numbers; a label
// is skipped where it would overprint one already placed (closer than about a label's width
// and height), so dense clusters and large n stay readable.
void label_extremes(plot::Axes& axes, const std::vector<double>& score, std::size_t count,
                    const std::vector<double>& x, const std::vector<double>& y, const std::vector<std::size_t>& rows,
                    const data::Design& design) {
  // Candidates: the `count` most extreme (ltsPlot's id.n), of which the first 600 are looked at.
  const std::size_t candidates = std::min({count, score.size(), 50 * kMaxLabels});
  if (candidates == 0) return;
  std::vector<std::size_t> order(score.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(candidates), order.end(),
                    [&](std::size_t a, std::size_t b) { return score[a] > score[b] || (score[a] == score[b] && a < b); });
  const double min_dx = 0.05 * span_of(x), min_dy = 0.035 * span_of(y);
  std::vector<std::size_t> placed;
  for (std::size_t k = 0; k < candidates && placed.size() < kMaxLabels; ++k) {
    const std::size_t at = order[k];
    const bool clear = std::all_of(placed.begin(), placed.end(), [&](std::size_t other) {
      return std::abs(x[at] - x[other]) > min_dx || std::abs(y[at] - y[other]) > min_dy;
    });
    if (!clear) continue;
    placed.push_back(at);
    axes.labels.push_back({x[at], y[at], std::to_string(design.data_rows[rows[at]]), {0.15, 0.15, 0.15, 1}, 5});
  }
}

void add_band(plot::Axes& axes) {
  axes.reference_lines.push_back({kResidualCutoff, "±2.5", {0.3, 0.3, 0.3, 1}, true});
  axes.reference_lines.push_back({-kResidualCutoff, "", {0.3, 0.3, 0.3, 1}, true});
  axes.reference_lines.push_back({0, "", {0.6, 0.6, 0.6, 1}, false});
}

std::vector<double> absolute(const std::vector<double>& v) {
  std::vector<double> a(v.size());
  std::transform(v.begin(), v.end(), a.begin(), [](double x) { return std::abs(x); });
  return a;
}

// R's quantile(type = 7) of sorted values.
double quantile_sorted(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1) * p;
  const auto low = static_cast<std::size_t>(std::floor(h));
  const std::size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (h - std::floor(h)) * (sorted[high] - sorted[low]);
}

// The order statistics the Q-Q panel draws: all of them up to ~10^5 rows, else both tails in
// full and evenly spaced ones between (the curve looks the same; the plot stays fast).
std::vector<std::size_t> qq_ranks(std::size_t n) {
  std::vector<std::size_t> ranks;
  if (n <= 2 * kQqTail + kQqInterior) {
    ranks.resize(n);
    std::iota(ranks.begin(), ranks.end(), std::size_t{0});
    return ranks;
  }
  for (std::size_t i = 0; i < kQqTail; ++i) ranks.push_back(i);
  const double step = static_cast<double>(n - 2 * kQqTail) / kQqInterior;
  for (std::size_t k = 0; k < kQqInterior; ++k) ranks.push_back(kQqTail + static_cast<std::size_t>(double(k) * step));
  for (std::size_t i = n - kQqTail; i < n; ++i) ranks.push_back(i);
  return ranks;
}

}  // namespace

plot::Figure diagnostic_figure(const FitResult& fit, const FitContext& context) {
  const data::Design& design = *context.design;
  const std::size_t n = fit.n;
  const Groups groups = groups_of(fit);
  const PointStyle style = style_for(n);
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), std::size_t{0});
  const std::vector<double> sr(fit.standardized_residuals.data(), fit.standardized_residuals.data() + n);
  const std::vector<double> fitted(fit.fitted.data(), fit.fitted.data() + n);
  std::vector<double> row_numbers(n);
  for (std::size_t i = 0; i < n; ++i) row_numbers[i] = static_cast<double>(design.data_rows[i]);
  const std::size_t flagged = static_cast<std::size_t>(std::count(fit.outlier.begin(), fit.outlier.end(), true));
  const std::string method = fit.method == regression::Method::lts ? "LTS" : fit.method == regression::Method::lms ? "LMS" : "LS";
  const std::string y_label = "standardized " + method + " residual";

  plot::Figure figure;
  figure.width = 1200;
  figure.height = 1000;
  figure.columns = 2;
  figure.title = method + " diagnostics: " + design.response + " in " + std::filesystem::path(context.data_file).filename().string() +
                 " (n = " + std::to_string(n) + ")";

  if (!(fit.scale > 0)) {  // as plot.lts: nothing to standardize by
    for (const char* title : {"Residuals vs index", "Residuals vs fitted", "Normal Q-Q", "Outlier map"}) {
      plot::Axes& panel = figure.add_panel();
      panel.title = title;
      panel.message = "exact fit (scale 0): standardized residuals are undefined";
    }
    return figure;
  }

  plot::Axes& index = figure.add_panel();
  index.title = "Residuals vs index";
  index.x_label = "data row";
  index.y_label = y_label;
  add_band(index);
  add_grouped_points(index, groups, all, row_numbers, sr, style);
  label_extremes(index, absolute(sr), flagged, row_numbers, sr, all, design);

  plot::Axes& versus_fitted = figure.add_panel();
  versus_fitted.title = "Residuals vs fitted";
  versus_fitted.x_label = "fitted " + design.response;
  versus_fitted.y_label = y_label;
  add_band(versus_fitted);
  add_grouped_points(versus_fitted, groups, all, fitted, sr, style);
  label_extremes(versus_fitted, absolute(sr), flagged, fitted, sr, all, design);
  versus_fitted.legend = false;

  // Normal Q-Q (R's qqnorm: ppoints with a = 3/8 for n <= 10, else 1/2) and qqline through the
  // quartiles.
  plot::Axes& qq = figure.add_panel();
  qq.title = "Normal Q-Q";
  qq.x_label = "quantiles of the standard normal distribution";
  qq.y_label = y_label;
  {
    std::vector<std::size_t> by_value(all);
    std::sort(by_value.begin(), by_value.end(), [&](std::size_t a, std::size_t b) { return sr[a] < sr[b] || (sr[a] == sr[b] && a < b); });
    std::vector<double> sorted(n);
    for (std::size_t k = 0; k < n; ++k) sorted[k] = sr[by_value[k]];
    const boost::math::normal_distribution<double> normal;
    const double a = n <= 10 ? 3.0 / 8 : 0.5, nd = static_cast<double>(n);
    std::vector<std::size_t> rows;
    std::vector<double> theoretical, observed;
    for (std::size_t k : qq_ranks(n)) {
      rows.push_back(by_value[k]);
      theoretical.push_back(boost::math::quantile(normal, (static_cast<double>(k) + 1 - a) / (nd + 1 - 2 * a)));
      observed.push_back(sorted[k]);
    }
    const double q1 = quantile_sorted(sorted, 0.25), q3 = quantile_sorted(sorted, 0.75);
    const double z1 = boost::math::quantile(normal, 0.25), z3 = boost::math::quantile(normal, 0.75);
    const double slope = (q3 - q1) / (z3 - z1), intercept = q1 - slope * z1;
    const double lo = theoretical.front(), hi = theoretical.back();
    auto& line = qq.add_line("line through the quartiles", {lo, hi}, {intercept + slope * lo, intercept + slope * hi},
                             {0.3, 0.3, 0.3, 1});
    line.mark = plot::Mark::line;
    line.dashed = true;
    line.line_width = 1.5;
    add_grouped_points(qq, groups, rows, theoretical, observed, style);
    std::vector<double> distance(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) distance[k] = std::abs(observed[k] - intercept - slope * theoretical[k]);
    label_extremes(qq, distance, flagged, theoretical, observed, rows, design);
    qq.legend = false;
  }

  plot::Axes& map = figure.add_panel();
  map.title = "Outlier map";
  if (fit.robust_distances.empty()) {
    map.message = "robust distances not computed (FAST-MCD runs for LTS unless --no-mcd)";
    return figure;
  }
  map.x_label = "robust distance (MCD)";
  map.y_label = y_label;
  add_band(map);
  map.vertical_lines.push_back({fit.rd_cutoff, "sqrt(qchisq(0.975, q))", {0.3, 0.3, 0.3, 1}, true});
  add_grouped_points(map, groups, all, fit.robust_distances, sr, style);
  // As ltsPlot: label the rows beyond either cut-off, the most extreme first.
  std::vector<double> extremity(n);
  std::size_t beyond = 0;
  for (std::size_t i = 0; i < n; ++i) {
    extremity[i] = std::max(fit.robust_distances[i] / fit.rd_cutoff, std::abs(sr[i]) / kResidualCutoff);
    beyond += fit.robust_distances[i] > fit.rd_cutoff || fit.outlier[i];
  }
  label_extremes(map, extremity, beyond, fit.robust_distances, sr, all, design);
  return figure;
}

void check_plot_path(const std::filesystem::path& path) {
  try {
    plot::file_format(path);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--plot: ") + e.what());
  }
  const std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  if (!std::filesystem::is_directory(folder))
    throw UsageError("--plot: folder '" + folder.string() + "' does not exist (for '" + path.string() + "')");
}

void save_diagnostic_plots(const std::filesystem::path& path, const FitResult& fit, const FitContext& context) {
  plot::save(diagnostic_figure(fit, context), path);
}

}  // namespace robustfit::app
