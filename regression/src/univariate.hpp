#pragma once
// Exact univariate location problems on sorted values, used for the LMS intercept
// adjustment and the robust R^2 of LTS and LMS.
#include <cstddef>
#include <span>

namespace robustfit::regression::detail {

// The shortest window holding h of the values (sorted in place): its center minimises the
// h-th smallest |v - c|, which is then half_width (the univariate LMS location and objective).
struct ShortestWindow {
  double center = 0;
  double half_width = 0;
};
ShortestWindow shortest_window_inplace(std::span<double> values, std::size_t h);
// The same for values already sorted.
ShortestWindow shortest_window_sorted(std::span<const double> sorted, std::size_t h);

// The smallest variance (divisor h) of h consecutive sorted values: the raw univariate
// MCD / LTS variance that robustbase's robust R^2 divides by.
double min_window_variance(std::span<const double> values, std::size_t h);

}  // namespace robustfit::regression::detail
