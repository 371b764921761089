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

// Sum of the h smallest values, exact with ties: with t the h-th smallest,
// sum_{v<t} v + (h - #{v<t}) t, accumulated in double. Reorders `values` (as nth_element).
template <class T>
double trimmed_sum_inplace(std::span<T> values, std::size_t h);

// The same sum on every hardware thread, input kept; equal to trimmed_sum_inplace up to the
// order of summation (chunk sums added in chunk order: independent of the thread count).
template <class T>
double trimmed_sum_parallel(std::span<const T> values, std::size_t h);

}  // namespace robustfit::selection
