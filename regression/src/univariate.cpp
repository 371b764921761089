#include "univariate.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cpu_sort.hpp"

namespace robustfit::regression::detail {

ShortestWindow shortest_window_inplace(std::span<double> values, std::size_t h) {
  std::sort(values.begin(), values.end());
  return shortest_window_sorted(values, h);
}

ShortestWindow shortest_window_sorted(std::span<const double> sorted, std::size_t h) {
  ShortestWindow best{0, std::numeric_limits<double>::infinity()};
  for (std::size_t j = 0; j + h <= sorted.size(); ++j) {
    const double half = (sorted[j + h - 1] - sorted[j]) / 2;
    if (half < best.half_width) best = {sorted[j] + half, half};
  }
  return best;
}

std::optional<ShortestWindow> shortest_window_below(std::span<double> values, std::size_t h, double bound) {
  const std::size_t n = values.size();
  if (!(bound > 0) || h == 0 || h > n) return std::nullopt;
  const auto below = [&](ShortestWindow w) { return w.half_width < bound ? std::optional(w) : std::nullopt; };
  if (2 * h <= n || !std::isfinite(bound)) return below(shortest_window_inplace(values, h));
  // Every window of h consecutive order statistics holds rank n - h (ranks n-h .. h-1 are
  // common to all when 2h > n); one narrower than 2 bound lies within 2 bound of its value.
  const double anchor = selection::kth_smallest_inplace(values, n - h);
  // Widened by a few ulps so that rounding in anchor -/+ reach never drops a window's value.
  const double reach = 2 * bound + 4 * std::numeric_limits<double>::epsilon() * (std::abs(anchor) + 2 * bound);
  std::size_t lower = 0;  // values below the kept range: the global rank of the first kept one
  std::vector<double> near;
  for (const double v : values) {
    if (v < anchor - reach) ++lower;
    else if (v <= anchor + reach) near.push_back(v);
  }
  std::sort(near.begin(), near.end());
  // Windows j .. j+h-1 with j <= n - h, in the order of j, as shortest_window_sorted scans.
  ShortestWindow best{0, std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i + h <= near.size() && lower + i <= n - h; ++i) {
    const double half = (near[i + h - 1] - near[i]) / 2;
    if (half < best.half_width) best = {near[i] + half, half};
  }
  return below(best);
}

double min_window_variance(std::span<const double> values, std::size_t h) {
  Eigen::VectorXd buffer(static_cast<Eigen::Index>(values.size()));  // uninitialised
  const std::span<double> sorted(buffer.data(), values.size());
  selection::sort_parallel(values, sorted);
  return min_window_variance_sorted(sorted, h);
}

double min_window_variance_sorted(std::span<const double> sorted, std::size_t h) {
  // Running sums about a shift (the median) keep the cancellation in sum(x^2) - sum(x)^2/h small.
  const double shift = sorted[sorted.size() / 2];
  double sum = 0, sum_sq = 0;
  for (std::size_t i = 0; i < h; ++i) {
    const double d = sorted[i] - shift;
    sum += d;
    sum_sq += d * d;
  }
  const double hd = static_cast<double>(h);
  double best = sum_sq / hd - (sum / hd) * (sum / hd);
  for (std::size_t j = 1; j + h <= sorted.size(); ++j) {
    const double out = sorted[j - 1] - shift, in = sorted[j + h - 1] - shift;
    sum += in - out;
    sum_sq += in * in - out * out;
    best = std::min(best, sum_sq / hd - (sum / hd) * (sum / hd));
  }
  return std::max(best, 0.0);
}

VarianceWindowScan scan_variance_windows(std::span<const double> sorted, std::size_t h, double shift) {
  VarianceWindowScan scan{.h = h};
  for (std::size_t e = 0; e < sorted.size(); ++e) scan.add(e, sorted[e] - shift, e >= h ? sorted[e - h] - shift : 0.0);
  return scan;
}

}  // namespace robustfit::regression::detail
