#pragma once
// A quickselect without data-dependent branches, for the CPU selections that run many times on
// a few hundred to a few thousand values (C-steps on subsamples, the values inside a bracket).
#include <algorithm>
#include <cstddef>
#include <utility>

namespace robustfit::selection::detail {

// Below this many values the quickselect below ends with std::nth_element.
constexpr std::size_t kNthElementBelow = 32;

// The k-th smallest of a[0, n), by quickselect with branch-free three-way partitions from a into
// b and back (a and b: n values each, both overwritten): every value is written to both ends of
// the output and one end advances, so no branch depends on the data. std::nth_element's
// partition mispredicts about every other comparison on unordered values; on the few hundred
// values of a C-step on a subsample it cost 5x more. No NaN may be among the values.
template <class T>
inline T select_branch_free(T* a, T* b, std::size_t n, std::size_t k) {
  std::size_t lo = 0, hi = n;
  for (int round = 0; hi - lo > kNthElementBelow; ++round) {
    if (round == 64) break;  // pivots that keep missing (never seen): std::nth_element finishes
    const T x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi - 1];
    const T pivot = std::max(std::min(x, y), std::min(std::max(x, y), z));  // median of three
    std::size_t less = lo, greater = hi;
    // At value i, less <= i and greater - 1 - less >= hi - 1 - i: both writes stay in [lo, hi)
    // and never overwrite a placed value (they coincide only at the last free slot).
    for (std::size_t i = lo; i < hi; ++i) {
      const T v = a[i];
      b[less] = v;
      b[greater - 1] = v;
      less += v < pivot;
      greater -= v > pivot;
    }
    if (k >= less && k < greater) return pivot;  // b[less, greater) all equal the pivot
    if (k < less) hi = less;
    else lo = greater;
    std::swap(a, b);
  }
  std::nth_element(a + lo, a + k, a + hi);
  return a[k];
}

}  // namespace robustfit::selection::detail
