#include "row_reductions.hpp"

#include <algorithm>

#include "all_rows.hpp"
#include "least_squares.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"
#include "univariate.hpp"

namespace robustfit::regression::detail {

Eigen::MatrixXd RowReductions::local_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                             std::span<const std::size_t> rows) const {
  return factors_of_rows(X, y, rows);
}

std::vector<std::size_t> RowReductions::smallest_h(const Eigen::VectorXd& values, std::size_t h) const {
  return selection::smallest_h_parallel(values_of(values), h).rows;
}

double RowReductions::trimmed_sum(const Eigen::VectorXd& values, std::size_t h) const {
  return selection::trimmed_sum_parallel(values_of(values), h);
}

double RowReductions::min_window_variance(const Eigen::VectorXd& values, std::size_t h) const {
  return detail::min_window_variance(values_of(values), h);
}

std::vector<double> RowReductions::kth_smallest_many(const Eigen::VectorXd& values, std::span<const std::size_t> ks) const {
  return selection::kth_smallest_many_bracketed<double>(values_of(values), ks);
}

std::optional<ShortestWindow> RowReductions::shortest_window_below(const Eigen::VectorXd& values, std::size_t h,
                                                                   double bound) const {
  return detail::shortest_window_below_unsorted(values_of(values), h, bound);
}

VarianceWindowScan RowReductions::min_variance_window(const Eigen::VectorXd& values, std::size_t h, double shift) const {
  std::vector<double> x(values.data(), values.data() + values.size());
  std::sort(x.begin(), x.end());  // ties have equal values: their order does not change the sums
  return scan_variance_windows(x, h, shift);
}

}  // namespace robustfit::regression::detail
