#pragma once
// Exact univariate location problems on sorted values, used for the LMS intercept
// adjustment and the robust R^2 of LTS and LMS.
#include <cstddef>
#include <optional>
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
// The same window as shortest_window_inplace (same center, same half width, the same one of
// equally short windows) when its half width is below `bound`; nullopt when no window is.
// With 2h > n every window holds the order statistic of rank n - h, so only the values within
// 2 bound of it are sorted: O(n) plus a sort of the few near the optimum. `values` is reordered.
std::optional<ShortestWindow> shortest_window_below(std::span<double> values, std::size_t h, double bound);

// The smallest variance (divisor h) of h consecutive sorted values: the raw univariate
// MCD / LTS variance that robustbase's robust R^2 divides by.
double min_window_variance(std::span<const double> values, std::size_t h);

}  // namespace robustfit::regression::detail
