#pragma once
// What the input checks, the finish (finish.cpp, design_matrix.cpp) and FAST-MCD (fast_mcd.cpp)
// need from all rows of the data when a process may hold only some of them: sums, extremes,
// stacked QR factors, a few order statistics and the univariate MCD's window. This base class is one process holding every row (each call is the
// identity or the single-process code); the distributed one (src/mpi/) reduces over the ranks
// of an MPI job, each holding a contiguous block of rows. So the estimators' statistics are
// written once, over "this part's rows plus the reductions".
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "univariate.hpp"

namespace robustfit::regression::detail {

class RowReductions {
 public:
  virtual ~RowReductions() = default;

  // Rows over all parts, given this part's count.
  virtual std::size_t total(std::size_t local) const { return local; }
  // Elementwise sums, minima and maxima over the parts, in place.
  virtual void sum(std::span<double>) const {}
  virtual void min(std::span<double>) const {}
  virtual void max(std::span<double>) const {}
  double sum(double value) const {
    sum(std::span<double>(&value, 1));
    return value;
  }
  // Runs `step`, which may throw on some parts only: then every part throws (the others a
  // failure naming the part), so that none goes on to the next reduction alone.
  virtual void agree(const std::function<void()>& step) const { step(); }
  // The rows of every part's `local` (c columns, any number of rows, the same c everywhere), one
  // part after another: stacked QR factors whose R factor is that of all rows.
  virtual Eigen::MatrixXd stacked(const Eigen::MatrixXd& local) const { return local; }
  // QR factors of this part's `rows` of [X y] (least_squares.hpp's factors_of_rows: block
  // factors of a host TSQR; a device may give the one R factor of all of them instead).
  virtual Eigen::MatrixXd local_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                        std::span<const std::size_t> rows) const;

  // This part's rows (sorted, local numbers) of the h smallest of `values` over all parts, ties
  // going to the lower row: smallest_h_parallel's rows.
  virtual std::vector<std::size_t> smallest_h(const Eigen::VectorXd& values, std::size_t h) const;
  // The sum of the h smallest of `values` over all parts: trimmed_sum_parallel.
  virtual double trimmed_sum(const Eigen::VectorXd& values, std::size_t h) const;
  // min_window_variance (univariate.hpp) of `values` over all parts.
  virtual double min_window_variance(const Eigen::VectorXd& values, std::size_t h) const;

  // Whether the parts are other processes: then every call is a collective, made by one thread.
  virtual bool spans_processes() const { return false; }
  // The rows on the parts before this one, given this part's count (0 in one process).
  virtual std::size_t before(std::size_t) const { return 0; }
  // Every part's rows of `local` (c columns, the same c everywhere), one part after another.
  virtual Eigen::MatrixXd gathered(const Eigen::MatrixXd& local) const { return local; }
  // The order statistics of ranks ks (0-based, ascending) of `values` over all parts:
  // selection::kth_smallest_many.
  virtual std::vector<double> kth_smallest_many(const Eigen::VectorXd& values, std::span<const std::size_t> ks) const;
  // univariate.hpp's shortest_window_below of `values` over all parts.
  virtual std::optional<ShortestWindow> shortest_window_below(const Eigen::VectorXd& values, std::size_t h,
                                                              double bound) const;
  // univariate.hpp's VarianceWindowScan over `values` sorted over all parts, minus `shift`, at
  // its end (FAST-MCD's univariate window; n >= h >= 1 over all parts).
  virtual VarianceWindowScan min_variance_window(const Eigen::VectorXd& values, std::size_t h, double shift) const;
};

}  // namespace robustfit::regression::detail
