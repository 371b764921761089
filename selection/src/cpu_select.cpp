#include "robustfit/selection/cpu_select.hpp"

#include <algorithm>
#include <cmath>
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

namespace {

// Places the ranks in [first, last) (offset: the rank of *first; ranks sorted, distinct) by
// selecting the middle rank, then recursing on either side: O(n log m) for m ranks.
template <class It>
void place_ranks(It first, It last, std::size_t offset, std::span<const std::size_t> ranks) {
  if (ranks.empty()) return;
  const std::size_t middle = ranks.size() / 2, k = ranks[middle];
  const It kth = first + static_cast<std::ptrdiff_t>(k - offset);
  std::nth_element(first, kth, last);
  place_ranks(first, kth, offset, ranks.first(middle));
  place_ranks(kth + 1, last, k + 1, ranks.subspan(middle + 1));
}

}  // namespace

template <class T>
std::vector<T> kth_smallest_many(std::span<const T> values, std::span<const std::size_t> ks) {
  for (std::size_t k : ks) require_rank(values.size(), k);
  require_no_nan(values);
  std::vector<T> work(values.begin(), values.end());
  std::vector<std::size_t> ranks(ks.begin(), ks.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  place_ranks(work.begin(), work.end(), 0, ranks);
  std::vector<T> result;
  result.reserve(ks.size());
  for (std::size_t k : ks) result.push_back(work[k]);
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
