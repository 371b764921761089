#include "univariate.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <limits>
#include <vector>

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

double min_window_variance(std::span<const double> values, std::size_t h) {
  Eigen::VectorXd buffer(static_cast<Eigen::Index>(values.size()));  // uninitialised
  const std::span<double> sorted(buffer.data(), values.size());
  selection::sort_parallel(values, sorted);
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

}  // namespace robustfit::regression::detail
