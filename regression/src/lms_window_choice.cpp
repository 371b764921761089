#include "lms_window_choice.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace robustfit::regression::detail {

std::vector<std::size_t> lms_window_choice(const Eigen::Ref<const Eigen::MatrixXd>& betas, std::span<const double> lower,
                                           std::span<const double> upper, std::size_t needed) {
  const std::size_t m = upper.size();
  std::vector<std::size_t> all(m);
  std::iota(all.begin(), all.end(), std::size_t{0});
  if (needed == 0 || needed >= m) return all;
  std::vector<std::size_t> order = all;
  auto key = [&](std::size_t j) { return std::isnan(upper[j]) ? INFINITY : upper[j]; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  const Eigen::Index slopes = betas.rows() - 1;
  std::vector<std::size_t> references;
  double cut = 0;
  for (const std::size_t j : order) {
    if (!std::isfinite(upper[j])) break;  // infinite (no bounds) sort last
    const bool repeated = std::any_of(references.begin(), references.end(), [&](std::size_t r) {
      return betas.col(static_cast<Eigen::Index>(r)).tail(slopes) == betas.col(static_cast<Eigen::Index>(j)).tail(slopes);
    });
    if (repeated) continue;
    references.push_back(j);
    if (references.size() == needed) {
      cut = upper[j];
      break;
    }
  }
  if (references.size() < needed) return all;
  std::vector<std::size_t> chosen;
  for (std::size_t j = 0; j < m; ++j)
    if (!(lower[j] > cut)) chosen.push_back(j);  // a NaN bound is never a reason to skip
  return chosen;
}

}  // namespace robustfit::regression::detail
