#pragma once
// FAST-MCD's search runs on the data standardized by column medians and MADs (as robustbase's
// does). On the host, fast_mcd.cpp takes the medians and MADs and makes the standardized copy the
// engine uploads; in one process on a GPU the data go to the device once instead, and the
// medians, MADs and standardized rows are made there (cuda/device_standardized_rows.hpp): the
// same numbers, no host copy of the standardized rows.
#include <Eigen/Core>
#include <cstddef>
#include <memory>

namespace robustfit::regression::detail {

class Engine;

class StandardizedRows {
 public:
  virtual ~StandardizedRows() = default;
  // Mean and covariance (divisor n - 1) of all rows, two passes as fast_mcd.cpp's moments: FAST-MCD
  // first asks whether the covariance is singular (an exact fit).
  virtual void moments(Eigen::VectorXd& center, Eigen::MatrixXd& covariance) = 0;
  // Column medians (the mean of the two middle values for even n, as R's median) and MADs as
  // FAST-MCD takes them: each column's h-th smallest absolute deviation from its median.
  virtual void medians_and_mads(std::size_t h, Eigen::VectorXd& median, Eigen::VectorXd& mad) = 0;
  // The search's engine over z = (x - median) / mad, y a column of ones. Call once: the rows
  // become the engine's.
  virtual std::unique_ptr<Engine> engine(const Eigen::VectorXd& median, const Eigen::VectorXd& mad) = 0;
};

}  // namespace robustfit::regression::detail
