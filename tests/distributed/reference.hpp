#pragma once
// The independent reference of the distributed selection tests: std::nth_element on all values
// gathered in one process, at the ranks the tests ask for.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace robustfit::distributed::testing {

template <class T>
std::vector<double> nth_element_reference(std::vector<T> all, const std::vector<std::uint64_t>& ks) {
  std::vector<double> out;
  for (std::uint64_t k : ks) {
    std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end());
    out.push_back(static_cast<double>(all[k]));
  }
  return out;
}

// The 101 percentiles, the median, the extremes and their neighbours.
inline std::vector<std::uint64_t> test_ranks(std::uint64_t n) {
  std::vector<std::uint64_t> ks{0, 1, n / 2, n - 2, n - 1};
  for (std::uint64_t i = 0; i <= 100; ++i) ks.push_back(std::min<std::uint64_t>(n - 1, (i * n) / 100));
  return ks;
}

}  // namespace robustfit::distributed::testing
