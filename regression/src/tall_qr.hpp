#pragma once
// QR of tall, skinny matrices by blocks (TSQR): each block of rows is factored by Householder
// QR on its own thread, then the stacked triangular factors are factored once more. The result
// is the R factor of the whole matrix (up to row signs), as backward stable as one Householder
// QR, but parallel and cache-friendly. Used for the final LS fits and the rank check of large
// designs.
#include <Eigen/Core>
#include <cstddef>
#include <span>

namespace robustfit::regression::detail {

// The stacked R factors of the row blocks of [X y] restricted to `rows` (all rows when empty):
// an (at most blocks * (p+1)) x (p+1) matrix with the same R factor (and column norms) as the
// restricted [X y].
Eigen::MatrixXd stacked_block_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                      std::span<const std::size_t> rows);

}  // namespace robustfit::regression::detail
