#pragma once
// Least-squares building blocks shared by every estimator and backend driver.
#include <Eigen/Core>
#include <cstddef>
#include <optional>
#include <span>

namespace robustfit::regression::detail {

// LS coefficients of the rows `rows` of (X, y) by Householder QR; nullopt if those rows are
// rank deficient. Empty `rows` means all rows.
std::optional<Eigen::VectorXd> ls_on_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                          std::span<const std::size_t> rows);

// Solves the normal equations G beta = rhs (G symmetric, lower triangle used) by Cholesky;
// nullopt when G is not safely positive definite (then callers refit by QR instead). Shared by
// the C-step refits of every engine so that they decide alike.
std::optional<Eigen::VectorXd> solve_normal_equations(const Eigen::MatrixXd& gram, const Eigen::VectorXd& rhs);

// The h rows with the smallest squared residuals (ties broken by row order), sorted, and
// the sum of those h squared residuals. Goes through the selection module (no full sort).
struct HSubset {
  std::vector<std::size_t> rows;
  double objective = 0;
};
HSubset smallest_h(const Eigen::VectorXd& residuals, std::size_t h);

// Sum of the h smallest values of `squares` (reordered in place): the h-th order statistic t
// then sum_{v<t} v + (h - #{v<t}) t, exact with ties.
double trimmed_sum_inplace(std::span<double> squares, std::size_t h);

}  // namespace robustfit::regression::detail
