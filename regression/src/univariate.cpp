#include "univariate.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "parallel.hpp"

namespace robustfit::regression::detail {

ShortestWindow shortest_window_inplace(std::span<double> values, std::size_t h) {
  std::sort(values.begin(), values.end());
  ShortestWindow best{0, std::numeric_limits<double>::infinity()};
  for (std::size_t j = 0; j + h <= values.size(); ++j) {
    const double half = (values[j + h - 1] - values[j]) / 2;
    if (half < best.half_width) best = {values[j] + half, half};
  }
  return best;
}

double min_window_variance(std::span<const double> values, std::size_t h) {
  std::vector<double> sorted(values.begin(), values.end());
  parallel_sort(sorted);
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
