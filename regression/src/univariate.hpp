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
// The same answer as shortest_window_below (the same window, or nullopt) without reordering or
// copying `values` and, from `binned_from` values, without sorting them: a strided sample of
// 4096 values places 4096 bins; one pass counts each bin's values and their exact minimum and
// maximum; those bound every window's width (the first and the last value of window j lie in
// the bins holding ranks j and j + h - 1), so only the windows whose lower bound reaches the
// least upper bound (and lies below 2 bound) can be the first shortest one, and a second pass
// sorts just the bins holding their ends. Falls back to copying and shortest_window_below when
// that would keep more than a quarter of the values, or with NaN or infinite values.
inline constexpr std::size_t kBinnedWindowRows = 1 << 15;
std::optional<ShortestWindow> shortest_window_below_unsorted(std::span<const double> values, std::size_t h, double bound,
                                                             std::size_t binned_from = kBinnedWindowRows);

// The smallest variance (divisor h) of h consecutive sorted values: the raw univariate
// MCD / LTS variance that robustbase's robust R^2 divides by.
double min_window_variance(std::span<const double> values, std::size_t h);
// The same for values already sorted ascending (the scan after the sort).
double min_window_variance_sorted(std::span<const double> sorted, std::size_t h);

// FAST-MCD's univariate scan (robustbase's rfmcduni): running sums over windows of h
// consecutive sorted values (minus a shift), fed one sorted position at a time, so that a scan
// of values sorted across processes goes on where the previous part stopped. The first window
// of smallest variance wins: it starts at best_start, best_sum is its running sum.
struct VarianceWindowScan {
  std::size_t h = 1;
  double sum = 0, squares = 0;
  double best_ss = 0, best_sum = 0;
  std::size_t best_start = 0;
  // Sorted position e: x is its value minus the shift, leaving the value of position e - h
  // (used when e >= h).
  void add(std::size_t e, double x, double leaving) {
    const double hd = static_cast<double>(h);
    if (e < h) {
      sum += x;
      squares += x * x;
      if (e + 1 == h) best_ss = squares - sum * sum / hd, best_sum = sum, best_start = 0;
      return;
    }
    sum += x - leaving;
    squares += x * x - leaving * leaving;
    const double ss = squares - sum * sum / hd;
    if (ss < best_ss) best_ss = ss, best_sum = sum, best_start = e + 1 - h;
  }
};

// The scan over all of `sorted` (ascending) minus `shift`, at its end (n >= h >= 1).
VarianceWindowScan scan_variance_windows(std::span<const double> sorted, std::size_t h, double shift);

}  // namespace robustfit::regression::detail
