#pragma once
// Least-squares building blocks shared by every estimator and backend driver. (The h smallest
// squares and trimmed sums are the selection module's: robustfit/selection/cpu_smallest_h.hpp.)
#include <Eigen/Core>
#include <cstddef>
#include <optional>
#include <span>

#include "row_reductions.hpp"

namespace robustfit::regression::detail {

// LS coefficients of the rows `rows` of (X, y) by Householder QR; nullopt if those rows are
// rank deficient. Empty `rows` means all rows.
std::optional<Eigen::VectorXd> ls_on_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                          std::span<const std::size_t> rows);

// The same from stacked QR factors of [X y] over m rows (stacked_block_factors, or several
// processes' factors one after another): the last step of ls_on_rows.
std::optional<Eigen::VectorXd> ls_of_factors(const Eigen::MatrixXd& stacked, std::size_t m);

// stacked_block_factors of exactly `rows`: none gives no factor rows (not all rows).
Eigen::MatrixXd factors_of_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, std::span<const std::size_t> rows);

// reductions.stacked(reductions.local_factors(X, y, rows)): the factors ls_on_rows solves from,
// over all parts (inference reuses them for the same rows).
Eigen::MatrixXd stacked_factors_of_rows(const RowReductions& reductions, const Eigen::MatrixXd& X,
                                        const Eigen::VectorXd& y, std::span<const std::size_t> rows);

// ls_on_rows over all parts of the data (row_reductions.hpp): `rows` are this part's rows
// (any number, none included); nullopt when there are fewer than p over all parts or they are
// rank deficient.
std::optional<Eigen::VectorXd> ls_on_rows(const RowReductions& reductions, const Eigen::MatrixXd& X,
                                          const Eigen::VectorXd& y, std::span<const std::size_t> rows);

// Solves the normal equations G beta = rhs (G symmetric, lower triangle used) by Cholesky;
// nullopt when G is not safely positive definite (then callers refit by QR instead). Shared by
// the C-step refits of every engine so that they decide alike.
std::optional<Eigen::VectorXd> solve_normal_equations(const Eigen::MatrixXd& gram, const Eigen::VectorXd& rhs);

}  // namespace robustfit::regression::detail
