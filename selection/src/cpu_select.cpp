#include "robustfit/selection/cpu_select.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace robustfit::selection {
namespace {

void require_rank(std::size_t n, std::size_t k) {
  if (n == 0) throw std::invalid_argument("cannot select from an empty input");
  if (k >= n)
    throw std::invalid_argument("rank k = " + std::to_string(k) + " is out of range for n = " +
                                std::to_string(n) + " values (0-based, expected 0.." +
                                std::to_string(n - 1) + ")");
}

}  // namespace

template <class T>
void require_no_nan(std::span<const T> values) {
  const auto it = std::find_if(values.begin(), values.end(), [](T v) { return std::isnan(v); });
  if (it != values.end())
    throw std::invalid_argument("input holds NaN (at 0-based position " +
                                std::to_string(it - values.begin()) + ")");
}

template <class T>
T kth_smallest_inplace(std::span<T> values, std::size_t k) {
  require_rank(values.size(), k);
  require_no_nan(std::span<const T>(values));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

template <class T>
T kth_smallest(std::span<const T> values, std::size_t k) {
  std::vector<T> copy(values.begin(), values.end());
  return kth_smallest_inplace(std::span<T>(copy), k);
}

template <class T>
std::vector<T> kth_smallest_many(std::span<const T> values, std::span<const std::size_t> ks) {
  for (std::size_t k : ks) require_rank(values.size(), k);
  require_no_nan(values);
  std::vector<T> work(values.begin(), values.end());
  // Distinct ranks in increasing order; each nth_element only touches the part right of the
  // previous rank, so m ranks cost O(n log m) in expectation rather than O(n m).
  std::vector<std::size_t> order(ks.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ks[a] < ks[b]; });
  std::vector<T> result(ks.size());
  auto lo = work.begin();
  std::size_t previous = 0;
  bool first = true;
  for (std::size_t i : order) {
    const std::size_t k = ks[i];
    if (first || k != previous) {
      auto kth = work.begin() + static_cast<std::ptrdiff_t>(k);
      std::nth_element(lo, kth, work.end());
      lo = kth;  // everything left of kth is <= it: later (larger) ranks lie to the right
      previous = k;
      first = false;
    }
    result[i] = work[k];
  }
  return result;
}

#define ROBUSTFIT_INSTANTIATE(T)                                                         \
  template void require_no_nan<T>(std::span<const T>);                                   \
  template T kth_smallest<T>(std::span<const T>, std::size_t);                           \
  template T kth_smallest_inplace<T>(std::span<T>, std::size_t);                         \
  template std::vector<T> kth_smallest_many<T>(std::span<const T>, std::span<const std::size_t>);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection
