#pragma once
// Passes over all n rows for the host phases that run once per fit (finish), spread over every
// thread in fixed row chunks (parallel.hpp). Results never depend on the thread count, and are
// the serial code's bit for bit (trimmed_sum_parallel: up to summation order). Per-candidate
// engine code stays serial: it runs one candidate per thread already.
#include <Eigen/Core>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include "parallel.hpp"

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

// The k-th smallest value (0-based), exact: a regular sample brackets it, one pass counts the
// values below and inside the bracket, a selection among those inside finishes. Falls back to
// one selection over all values when the bracket misses (or for NaN, which it rejects alike).
double kth_smallest_parallel(std::span<const double> values, std::size_t k);

// The h rows with the smallest squares (ties by row order, as smallest_h), sorted, and the
// h-th smallest square.
struct SmallestRows {
  std::vector<std::size_t> rows;
  double threshold = 0;
};
SmallestRows smallest_h_rows(const Eigen::VectorXd& squares, std::size_t h);

// Sum of the h smallest values (as trimmed_sum_inplace, up to summation order), input kept.
double trimmed_sum_parallel(const Eigen::VectorXd& values, std::size_t h);

// The rows chunk c keeps, counts[c] of them, written in row order by fill(c, begin, end, out).
template <class Fill>
std::vector<std::size_t> gather_rows(std::size_t n, std::span<const std::size_t> counts, Fill&& fill) {
  std::vector<std::size_t> offsets(counts.size() + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  std::vector<std::size_t> rows(offsets.back());
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) { fill(c, begin, end, rows.data() + offsets[c]); });
  return rows;
}

// The rows i in [0, n) with keep(i), sorted.
template <class Keep>
std::vector<std::size_t> rows_where(std::size_t n, Keep&& keep) {
  std::vector<std::size_t> counts(row_chunk_count(n));
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i) count += keep(i) ? 1 : 0;
    counts[c] = count;
  });
  return gather_rows(n, counts, [&](std::size_t, std::size_t begin, std::size_t end, std::size_t* out) {
    for (std::size_t i = begin; i < end; ++i)
      if (keep(i)) *out++ = i;
  });
}

}  // namespace robustfit::regression::detail
