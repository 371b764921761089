#pragma once
// Eigen passes over all n rows for the host phases that run once per fit (finish), spread over
// every thread in fixed row chunks (robustfit/common/parallel.hpp). Results never depend on the
// thread count. Per-candidate engine code stays serial: it runs one candidate per thread
// already. Selections over all rows are the selection module's *_parallel functions.
#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <vector>

#include "robustfit/common/parallel.hpp"

namespace robustfit::regression::detail {

// X beta and y - X beta, row chunk by row chunk; each row bit for bit as Eigen's X * beta and
// y - X * beta (one matrix-vector kernel, rows independent of each other).
struct Fit {
  Eigen::VectorXd fitted, residuals;
};
// With `squares`, also the squared residuals (squares_of's numbers) in the same pass.
Fit fit_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta,
           Eigen::VectorXd* squares = nullptr);
// fit_of into `fit`'s vectors: an earlier fit's, already in memory (fresh n-vectors cost page
// faults at large n). With `weights`, the squares are weights * residuals^2: their Eigen sum()
// is that of the expression weights.array() * residuals.array().square(), bit for bit (both
// start at the first element with a whole packet; all_rows_test), in half the reads.
void fit_into(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta, Fit& fit,
              Eigen::VectorXd* squares = nullptr, const Eigen::VectorXd* weights = nullptr);
Eigen::VectorXd residuals_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta);
// squares_of(residuals_of(X, y, beta)) in one pass: the same numbers.
Eigen::VectorXd squared_residuals_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta);

// v^2 elementwise.
Eigen::VectorXd squares_of(const Eigen::VectorXd& v);

// The vector's values as a span, for the selection module.
inline std::span<const double> values_of(const Eigen::VectorXd& v) { return {v.data(), static_cast<std::size_t>(v.size())}; }

// sum over the fixed row chunks of [0, n) of chunk_sum(begin, count) (an Eigen sum over the
// chunk's segment), chunks in parallel and added in chunk order: independent of the thread
// count, and below 2 kMinChunkRows rows (one chunk) exactly the serial Eigen sum.
template <class ChunkSum>
double sum_over_row_chunks(std::size_t n, ChunkSum&& chunk_sum) {
  std::vector<double> sums(common::row_chunk_count(n), 0.0);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    sums[c] = chunk_sum(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin));
  });
  double total = 0;
  for (const double s : sums) total += s;
  return total;
}

// Sum of values at `rows`, in the order given (an h-subset's objective: row order).
double sum_at(const Eigen::VectorXd& values, std::span<const std::size_t> rows);

}  // namespace robustfit::regression::detail
