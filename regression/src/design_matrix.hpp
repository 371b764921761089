#pragma once
// Validation of the estimator inputs and the design matrix with its intercept column.
#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <string>

namespace robustfit::regression::detail {

struct ModelData {
  Eigen::MatrixXd X;  // n x p; column 0 is the intercept (ones) when `intercept`
  Eigen::VectorXd y;
  bool intercept = true;
  std::size_t n() const { return static_cast<std::size_t>(X.rows()); }
  std::size_t p() const { return static_cast<std::size_t>(X.cols()); }
};

// Throws std::invalid_argument with a clear message: X/y size mismatch, non-finite values
// (naming the first row/column, 1-based), no coefficients to fit, n <= p, a constant predictor
// together with an intercept, collinear predictors (rank-deficient design; names the column).
// Messages name predictors by `names` when given, else "predictor j" (1-based).
ModelData make_model_data(Eigen::Ref<const Eigen::MatrixXd> predictors, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                          std::span<const std::string> names = {});

}  // namespace robustfit::regression::detail
