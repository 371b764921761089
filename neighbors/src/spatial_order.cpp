#include "spatial_order.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace robustfit::neighbors::detail {

std::vector<std::size_t> spatial_order(const RowMatrix& points, std::size_t leaf) {
  const std::size_t n = static_cast<std::size_t>(points.rows()), d = static_cast<std::size_t>(points.cols());
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (d == 0 || leaf == 0) return order;
  std::vector<std::pair<std::size_t, std::size_t>> ranges{{0, n}};  // an explicit stack
  while (!ranges.empty()) {
    const auto [begin, end] = ranges.back();
    ranges.pop_back();
    if (end - begin <= leaf) continue;
    std::size_t widest = 0;
    double widest_spread = -1;
    for (std::size_t c = 0; c < d; ++c) {
      double lo = points(static_cast<Eigen::Index>(order[begin]), static_cast<Eigen::Index>(c)), hi = lo;
      for (std::size_t i = begin + 1; i < end; ++i) {
        const double v = points(static_cast<Eigen::Index>(order[i]), static_cast<Eigen::Index>(c));
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (hi - lo > widest_spread) widest_spread = hi - lo, widest = c;
    }
    const std::size_t leaves = (end - begin + leaf - 1) / leaf;
    const std::size_t middle = begin + leaves / 2 * leaf;
    const auto column = static_cast<Eigen::Index>(widest);
    std::nth_element(order.begin() + static_cast<std::ptrdiff_t>(begin), order.begin() + static_cast<std::ptrdiff_t>(middle),
                     order.begin() + static_cast<std::ptrdiff_t>(end), [&](std::size_t a, std::size_t b) {
                       const double va = points(static_cast<Eigen::Index>(a), column), vb = points(static_cast<Eigen::Index>(b), column);
                       return va < vb || (va == vb && a < b);
                     });
    ranges.emplace_back(begin, middle);
    ranges.emplace_back(middle, end);
  }
  return order;
}

}  // namespace robustfit::neighbors::detail
