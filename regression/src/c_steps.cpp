#include "c_steps.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace robustfit::regression::detail {

std::vector<std::size_t> best_indices(const std::vector<double>& objectives, std::size_t count) {
  std::vector<std::size_t> order(objectives.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return objectives[a] < objectives[b]; });
  order.resize(std::min(count, order.size()));
  return order;
}

Eigen::MatrixXd best_columns(const Eigen::MatrixXd& betas, const std::vector<double>& objectives,
                             std::size_t count) {
  const std::vector<std::size_t> order = best_indices(objectives, count);
  Eigen::MatrixXd best(betas.rows(), static_cast<Eigen::Index>(order.size()));
  for (std::size_t i = 0; i < order.size(); ++i) best.col(static_cast<Eigen::Index>(i)) = betas.col(static_cast<Eigen::Index>(order[i]));
  return best;
}

}  // namespace robustfit::regression::detail
