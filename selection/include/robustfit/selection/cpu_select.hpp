#pragma once
// k-th order statistics on the CPU: the reference every GPU algorithm is tested against.
// Ranks are 0-based: k = 0 is the minimum, k = n-1 the maximum.
// Errors (std::invalid_argument): empty input, k >= n, NaN anywhere in the input.
// Instantiated for float and double. The h smallest values' rows, trimmed sums: cpu_smallest_h.hpp;
// sorting on every thread: cpu_sort.hpp.
#include <cstddef>
#include <span>
#include <vector>

namespace robustfit::selection {

// The k-th smallest value; the input is not modified (one copy is made).
template <class T>
T kth_smallest(std::span<const T> values, std::size_t k);

// Same, reordering `values` in place (no copy): std::nth_element semantics afterwards.
template <class T>
T kth_smallest_inplace(std::span<T> values, std::size_t k);

// Same value as kth_smallest, on every hardware thread in fixed row chunks (the result never
// depends on the thread count): a regular sample brackets rank k, one pass counts the values
// below and inside the bracket, a selection among those inside finishes. Falls back to
// kth_smallest when the bracket misses, for NaN (same error) and below two row chunks.
template <class T>
T kth_smallest_parallel(std::span<const T> values, std::size_t k);

// Same value as kth_smallest, serial, input kept, and allocation-free once `scratch` has grown
// (one scratch vector per worker of a parallel loop over many vectors): a regular sample of
// about 2 n^(2/3) values brackets rank k, one pass copies the values inside the bracket
// (a few per cent of n) to `scratch`, a selection among them finishes. About one pass over the
// values instead of std::nth_element's several; falls back to a full copy when the bracket
// misses and for small inputs. Errors as kth_smallest (NaN: its message and position).
template <class T>
T kth_smallest_bracketed(std::span<const T> values, std::size_t k, std::vector<T>& scratch);

// The same with a guess [guess_low, guess_high] of where the k-th smallest lies (an iteration's
// last value, widened): when it brackets rank k with at most n / 8 values inside, no sample is
// drawn; else the sampled bracket follows (one counting pass lost). Any guess gives the same value.
template <class T>
T kth_smallest_bracketed(std::span<const T> values, std::size_t k, std::vector<T>& scratch, T guess_low, T guess_high);

// Many order statistics of one vector; result[i] is the ks[i]-th smallest.
// Ranks may come in any order and repeat.
template <class T>
std::vector<T> kth_smallest_many(std::span<const T> values, std::span<const std::size_t> ks);

// The same values as kth_smallest_many, input kept, in about two passes (for ranks close
// together): a regular sample of about 2 n^(2/3) values brackets all the ranks, one pass counts
// the values outside the bracket, one copies those inside (a few per cent of n), and
// kth_smallest_many among them finishes. Falls back to kth_smallest_many when the bracket
// misses, for small inputs and for NaN (its errors).
template <class T>
std::vector<T> kth_smallest_many_bracketed(std::span<const T> values, std::span<const std::size_t> ks);

// Order statistics of several columns of n values at once, on every hardware thread:
// result[j][i] is the ks[i]-th smallest of columns[j] or, given one centre per column, of
// |columns[j] - centres[j]| (a MAD's absolute deviations, never stored); the values of
// kth_smallest_many of each. For a few ranks: a regular sample of each column brackets them
// all, one parallel loop over every (column, fixed row chunk) counts the values outside the
// bracket and copies the few inside (about one pass over the data for all columns, on all
// threads however few the columns), and a quickselect among those inside finds each rank. Falls
// back to kth_smallest_many when a bracket misses, for small columns and for NaN (its errors, the
// first failing column's).
template <class T>
std::vector<std::vector<T>> kth_smallest_many_columns(std::span<const std::span<const T>> columns,
                                                     std::span<const std::size_t> ks, std::span<const T> centres = {});

// Throws std::invalid_argument naming the position of the first NaN, if any.
template <class T>
void require_no_nan(std::span<const T> values);

}  // namespace robustfit::selection
