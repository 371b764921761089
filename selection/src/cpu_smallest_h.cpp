// The h smallest values' rows and trimmed sums, serial and over fixed row chunks.
#include "robustfit/selection/cpu_smallest_h.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::selection {
namespace {

void require_h(std::size_t n, std::size_t h) {
  if (n == 0) throw std::invalid_argument("cannot select from an empty input");
  if (h == 0 || h > n)
    throw std::invalid_argument("h = " + std::to_string(h) + " is out of range for n = " + std::to_string(n) +
                                " values (expected 1.." + std::to_string(n) + ")");
}

}  // namespace

template <class T>
T smallest_h(std::span<const T> values, std::size_t h, std::span<std::size_t> rows, std::vector<T>& scratch) {
  require_h(values.size(), h);
  if (rows.size() != h)
    throw std::invalid_argument("smallest_h: the output holds " + std::to_string(rows.size()) + " rows, expected h = " +
                                std::to_string(h));
  const T t = kth_smallest_bracketed<T>(values, h - 1, scratch);
  // Rows below t, plus the first (h - #below) rows equal to t, collected in row order.
  std::size_t ties = h - static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [t](T v) { return v < t; }));
  std::size_t* out = rows.data();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] < t || (values[i] == t && ties > 0 && ties--)) *out++ = i;
  return t;
}

template <class T>
SmallestH<T> smallest_h(std::span<const T> values, std::size_t h) {
  require_h(values.size(), h);
  SmallestH<T> result;
  result.rows.resize(h);
  std::vector<T> scratch;
  result.threshold = smallest_h<T>(values, h, result.rows, scratch);
  return result;
}

std::size_t ThresholdCounts::total_below() const { return std::accumulate(below.begin(), below.end(), std::size_t{0}); }
std::size_t ThresholdCounts::total_equal() const { return std::accumulate(equal.begin(), equal.end(), std::size_t{0}); }

template <class T>
ThresholdCounts threshold_counts_parallel(std::span<const T> values, T t) {
  const std::size_t n = values.size(), chunks = common::row_chunk_count(n);
  ThresholdCounts counts{std::vector<std::size_t>(chunks), std::vector<std::size_t>(chunks)};
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t low = 0, tied = 0;
    for (std::size_t i = begin; i < end; ++i) {
      low += values[i] < t;
      tied += values[i] == t;
    }
    counts.below[c] = low;
    counts.equal[c] = tied;
  });
  return counts;
}

template <class T>
std::vector<std::size_t> rows_below_and_ties_parallel(std::span<const T> values, T t, const ThresholdCounts& counts,
                                                      std::size_t ties) {
  const std::size_t n = values.size(), chunks = common::row_chunk_count(n);
  // Rows below t, plus the first `ties` rows equal to t in row order: hand the ties out to the
  // chunks in order.
  std::vector<std::size_t> kept(chunks), chunk_ties(chunks);
  for (std::size_t c = 0; c < chunks; ++c) {
    chunk_ties[c] = std::min(ties, counts.equal[c]);
    ties -= chunk_ties[c];
    kept[c] = counts.below[c] + chunk_ties[c];
  }
  return common::gather_rows(n, kept, [&](std::size_t c, std::size_t begin, std::size_t end, std::size_t* out) {
    // Branch-free (about half the rows are taken, in no order a predictor could learn): every
    // row is written and the next slot taken only for a row of the subset; the loop stops at
    // the chunk's last one, so nothing is written past the chunk's share.
    std::size_t left = chunk_ties[c], wanted = kept[c];
    for (std::size_t i = begin; i < end && wanted > 0; ++i) {
      const T v = values[i];
      const bool tie = (v == t) & (left > 0);
      const bool take = (v < t) | tie;
      *out = i;
      out += take;
      wanted -= take;
      left -= tie;
    }
  });
}

template <class T>
SmallestH<T> smallest_h_parallel(std::span<const T> values, std::size_t h) {
  require_h(values.size(), h);
  SmallestH<T> result;
  result.threshold = kth_smallest_parallel<T>(values, h - 1);
  const ThresholdCounts counts = threshold_counts_parallel(values, result.threshold);
  result.rows = rows_below_and_ties_parallel(values, result.threshold, counts, h - counts.total_below());
  return result;
}

template <class T>
SumBelowThreshold sum_below_parallel(std::span<const T> values, T t) {
  const std::size_t n = values.size(), chunks = common::row_chunk_count(n);
  std::vector<double> sums(chunks);
  std::vector<std::size_t> counts(chunks);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i)
      if (values[i] < t) {
        sum += static_cast<double>(values[i]);
        ++count;
      }
    sums[c] = sum;
    counts[c] = count;
  });
  SumBelowThreshold below;
  for (std::size_t c = 0; c < chunks; ++c) below.sum += sums[c], below.count += counts[c];
  return below;
}

template <class T>
double trimmed_sum_inplace(std::span<T> values, std::size_t h) {
  require_h(values.size(), h);
  const T t = kth_smallest_inplace<T>(values, h - 1);
  double below = 0;
  std::size_t count = 0;
  for (T v : values)
    if (v < t) {
      below += static_cast<double>(v);
      ++count;
    }
  return below + static_cast<double>(h - count) * static_cast<double>(t);
}

template <class T>
double trimmed_sum_parallel(std::span<const T> values, std::size_t h) {
  require_h(values.size(), h);
  const T t = kth_smallest_parallel<T>(values, h - 1);
  const SumBelowThreshold below = sum_below_parallel(values, t);
  return below.sum + static_cast<double>(h - below.count) * static_cast<double>(t);
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                   \
  template T smallest_h<T>(std::span<const T>, std::size_t, std::span<std::size_t>, std::vector<T>&); \
  template SmallestH<T> smallest_h<T>(std::span<const T>, std::size_t);                            \
  template SmallestH<T> smallest_h_parallel<T>(std::span<const T>, std::size_t);                   \
  template ThresholdCounts threshold_counts_parallel<T>(std::span<const T>, T);                     \
  template std::vector<std::size_t> rows_below_and_ties_parallel<T>(std::span<const T>, T, const ThresholdCounts&, \
                                                                    std::size_t);                   \
  template SumBelowThreshold sum_below_parallel<T>(std::span<const T>, T);                          \
  template double trimmed_sum_inplace<T>(std::span<T>, std::size_t);                               \
  template double trimmed_sum_parallel<T>(std::span<const T>, std::size_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection
