#pragma once
// The h smallest values of a vector on the CPU: which rows they are and their sum. Ties at the
// threshold go to the smaller rows, so the result is one well-defined set (LTS h-subsets, the k
// nearest neighbours of a query). Instantiated for float and double.
// Errors (std::invalid_argument): h outside 1..n (naming h and n), NaN anywhere in the input
// (as kth_smallest).
#include <cstddef>
#include <span>
#include <vector>

namespace robustfit::selection {

template <class T>
struct SmallestH {
  std::vector<std::size_t> rows;  // the h rows, ascending: those below threshold, then the
                                  // smallest rows equal to it
  T threshold{};                  // the h-th smallest value
};

// Serial; allocates the result and one copy of the values.
template <class T>
SmallestH<T> smallest_h(std::span<const T> values, std::size_t h);

// Serial and allocation-free once `scratch` has grown to n: writes the h rows to `rows`
// (exactly h long) and returns the threshold. For one selection per task inside a parallel
// loop, with one scratch vector per worker.
template <class T>
T smallest_h(std::span<const T> values, std::size_t h, std::span<std::size_t> rows, std::vector<T>& scratch);

// The same rows and threshold on every hardware thread (fixed row chunks: independent of the
// thread count); input kept.
template <class T>
SmallestH<T> smallest_h_parallel(std::span<const T> values, std::size_t h);

// The pieces of smallest_h_parallel and trimmed_sum_parallel for a threshold t found elsewhere
// (DIBMS across MPI ranks), over the same fixed row chunks (any n, 0 included).
// Per row chunk: the values below t and those equal to it.
struct ThresholdCounts {
  std::vector<std::size_t> below, equal;
  std::size_t total_below() const;
  std::size_t total_equal() const;
};
template <class T>
ThresholdCounts threshold_counts_parallel(std::span<const T> values, T t);

// The rows below t and the first `ties` rows equal to t (ties <= counts.total_equal()),
// ascending, as smallest_h_parallel lists them; `counts` from threshold_counts_parallel.
template <class T>
std::vector<std::size_t> rows_below_and_ties_parallel(std::span<const T> values, T t, const ThresholdCounts& counts,
                                                      std::size_t ties);

// The sum (in double) and the number of the values below t: chunk sums added in chunk order.
struct SumBelowThreshold {
  double sum = 0;
  std::size_t count = 0;
};
template <class T>
SumBelowThreshold sum_below_parallel(std::span<const T> values, T t);

// Sum of the h smallest values, exact with ties: with t the h-th smallest,
// sum_{v<t} v + (h - #{v<t}) t, accumulated in double. Reorders `values` (as nth_element).
template <class T>
double trimmed_sum_inplace(std::span<T> values, std::size_t h);

// The same sum on every hardware thread, input kept; equal to trimmed_sum_inplace up to the
// order of summation (chunk sums added in chunk order: independent of the thread count).
template <class T>
double trimmed_sum_parallel(std::span<const T> values, std::size_t h);

}  // namespace robustfit::selection
