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

namespace {

constexpr std::size_t kWindowSample = 4096;  // strided sample that places the bins
constexpr std::size_t kWindowBins = 4096;    // regular bins; one below and one above them

std::optional<ShortestWindow> copied_window_below(std::span<const double> values, std::size_t h, double bound) {
  std::vector<double> copy(values.begin(), values.end());
  return shortest_window_below(copy, h, bound);
}

}  // namespace

std::optional<ShortestWindow> shortest_window_below_unsorted(std::span<const double> values, std::size_t h, double bound,
                                                             std::size_t binned_from) {
  const std::size_t n = values.size();
  if (!(bound > 0) || h == 0 || h > n) return std::nullopt;
  if (n < binned_from || h < 2 || n < 4) return copied_window_below(values, h, bound);
  constexpr double kInfinity = std::numeric_limits<double>::infinity();

  // Where the shortest window probably is: the sample's shortest window of as large a share,
  // widened by its width on either side. Only the speed depends on this guess.
  const std::size_t m = std::min(n, kWindowSample), stride = n / m;
  std::vector<double> sample(m);
  for (std::size_t i = 0; i < m; ++i) sample[i] = values[i * stride];
  if (!std::all_of(sample.begin(), sample.end(), [](double v) { return std::isfinite(v); }))
    return copied_window_below(values, h, bound);
  std::sort(sample.begin(), sample.end());
  const auto share = static_cast<std::size_t>(std::ceil(static_cast<double>(h) / static_cast<double>(n) * static_cast<double>(m)));
  const std::size_t hs = std::clamp<std::size_t>(share, 2, m);
  std::size_t start = 0;
  for (std::size_t j = 1; j + hs <= m; ++j)
    if (sample[j + hs - 1] - sample[j] < sample[start + hs - 1] - sample[start]) start = j;
  const double span = sample[start + hs - 1] - sample[start];
  const double lo = sample[start] - span, hi = sample[start + hs - 1] + span;
  const double scale = static_cast<double>(kWindowBins) / (hi - lo);
  if (!(span > 0) || !std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(scale) || !(scale > 0))
    return copied_window_below(values, h, bound);

  // Bin 0: below lo; 1 .. kWindowBins: [lo, hi) in equal parts; kWindowBins + 1: from hi. The
  // bin is a nondecreasing function of the value (every step rounds monotonically), so each
  // bin holds a run of consecutive ranks: those from first[b] to first[b + 1] - 1.
  constexpr std::size_t kBins = kWindowBins + 2;
  bool nan = false;
  const auto bin_of = [&](double v) -> std::size_t {
    if (v < lo) return 0;
    if (v >= hi) return kBins - 1;
    const double t = (v - lo) * scale;  // >= 0
    if (t < static_cast<double>(kWindowBins)) return 1 + static_cast<std::size_t>(t);
    if (std::isnan(t)) nan = true;
    return kWindowBins;
  };
  std::vector<std::size_t> count(kBins, 0);
  std::vector<double> low(kBins, kInfinity), high(kBins, -kInfinity);  // each bin's exact extremes
  for (const double v : values) {
    const std::size_t b = bin_of(v);
    ++count[b];
    low[b] = std::min(low[b], v);
    high[b] = std::max(high[b], v);
  }
  if (nan || (count[0] > 0 && !std::isfinite(low[0])) || (count[kBins - 1] > 0 && !std::isfinite(high[kBins - 1])))
    return copied_window_below(values, h, bound);
  std::vector<std::size_t> first(kBins + 1, 0);
  for (std::size_t b = 0; b < kBins; ++b) first[b + 1] = first[b] + count[b];

  // Windows j = 0 .. n - h in runs whose first value (rank j) lies in one bin and last value
  // (rank j + h - 1) in one bin: their rounded widths lie in [low[right] - high[left],
  // high[right] - low[left]] (subtraction rounds monotonically). A run holding the first
  // shortest window has a lower bound at most the least upper bound, and, if that window's
  // half width is below `bound`, half its lower bound is below it too.
  struct Run {
    std::size_t begin, end, left, right;
    double lower;
  };
  std::vector<Run> runs;
  double least_upper = kInfinity;
  std::size_t left = 0, right = 0;
  for (std::size_t j = 0; j <= n - h;) {
    while (first[left + 1] <= j) ++left;
    while (first[right + 1] <= j + h - 1) ++right;
    const std::size_t end = std::min({first[left + 1], first[right + 1] - (h - 1), n - h + 1});
    runs.push_back({j, end, left, right, low[right] - high[left]});
    least_upper = std::min(least_upper, high[right] - low[left]);
    j = end;
  }
  std::vector<unsigned char> needed(kBins, 0);
  std::size_t kept = 0;
  std::erase_if(runs, [&](const Run& r) { return !(r.lower <= least_upper && r.lower / 2 < bound); });
  if (runs.empty()) return std::nullopt;
  for (const Run& r : runs)
    for (const std::size_t b : {r.left, r.right})
      if (!needed[b]) needed[b] = 1, kept += count[b];
  if (kept > n / 4) return copied_window_below(values, h, bound);

  // The needed bins' values, each bin sorted in place: rank r of bin b is at offset[b] + r - first[b].
  std::vector<std::size_t> offset(kBins, 0), at(kBins, 0);
  for (std::size_t b = 0, o = 0; b < kBins; ++b)
    if (needed[b]) offset[b] = at[b] = o, o += count[b];
  std::vector<double> near(kept);
  for (const double v : values) {
    const std::size_t b = bin_of(v);
    if (needed[b]) near[at[b]++] = v;
  }
  for (std::size_t b = 0; b < kBins; ++b)
    if (needed[b]) std::sort(near.begin() + static_cast<std::ptrdiff_t>(offset[b]), near.begin() + static_cast<std::ptrdiff_t>(at[b]));
  // The runs' windows in the order of j, as shortest_window_sorted scans them all.
  ShortestWindow best{0, kInfinity};
  for (const Run& r : runs) {
    for (std::size_t j = r.begin; j < r.end; ++j) {
      const double v = near[offset[r.left] + (j - first[r.left])];
      const double half = (near[offset[r.right] + (j + h - 1 - first[r.right])] - v) / 2;
      if (half < best.half_width) best = {v + half, half};
    }
  }
  return best.half_width < bound ? std::optional(best) : std::nullopt;
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
