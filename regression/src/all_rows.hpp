#pragma once
// Eigen passes over all n rows for the host phases that run once per fit (finish), spread over
// every thread in fixed row chunks (robustfit/common/parallel.hpp). Results never depend on the
// thread count. Per-candidate engine code stays serial: it runs one candidate per thread
// already. Selections over all rows are the selection module's *_parallel functions.
#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <vector>

namespace robustfit::regression::detail {

// X beta and y - X beta, row chunk by row chunk; each row bit for bit as Eigen's X * beta and
// y - X * beta (one matrix-vector kernel, rows independent of each other).
struct Fit {
  Eigen::VectorXd fitted, residuals;
};
Fit fit_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta);
Eigen::VectorXd residuals_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta);

// v^2 elementwise.
Eigen::VectorXd squares_of(const Eigen::VectorXd& v);

// The vector's values as a span, for the selection module.
inline std::span<const double> values_of(const Eigen::VectorXd& v) { return {v.data(), static_cast<std::size_t>(v.size())}; }

// Sum of values at `rows`, in the order given (an h-subset's objective: row order).
double sum_at(const Eigen::VectorXd& values, std::span<const std::size_t> rows);

}  // namespace robustfit::regression::detail
