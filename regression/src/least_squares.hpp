#pragma once
// Least-squares building blocks shared by every estimator and backend driver. (The h smallest
// squares and trimmed sums are the selection module's: robustfit/selection/cpu_smallest_h.hpp.)
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

}  // namespace robustfit::regression::detail
