#pragma once
// Validation of the estimator inputs and the design matrix with its intercept column.
#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <string>

#include "row_reductions.hpp"

namespace robustfit::regression::detail {

struct ModelData {
  Eigen::MatrixXd X;  // n x p; column 0 is the intercept (ones) when `intercept`
  Eigen::VectorXd y;
  bool intercept = true;
  // Column j of X holds the caller's column divided by column_scale(j), a power of two (exact):
  // columns far from unit size (beyond 2^+-20) are brought near 1 so that the rank decisions
  // (relative pivot thresholds) see an intercept beside predictors of size 1e150. Coefficients
  // found on X are divided by it to return to the caller's units (to_original_scale).
  Eigen::VectorXd column_scale;
  std::size_t n() const { return static_cast<std::size_t>(X.rows()); }
  std::size_t p() const { return static_cast<std::size_t>(X.cols()); }
};

// Throws std::invalid_argument with a clear message: X/y size mismatch, non-finite values
// (naming the first row/column, 1-based), no coefficients to fit, n <= p, a constant predictor
// together with an intercept, collinear predictors (rank-deficient design; names the column).
// Messages name predictors by `names` when given, else "predictor j" (1-based).
// With `all` reducing over the parts of a distributed data set (row_reductions.hpp): the checks,
// the column scales and n are those of all rows; X and y hold this part's rows.
ModelData make_model_data(Eigen::Ref<const Eigen::MatrixXd> predictors, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                          std::span<const std::string> names = {}, const RowReductions& all = RowReductions{});

// make_model_data's checks (the same errors), without storing the design.
void check_model_data(Eigen::Ref<const Eigen::MatrixXd> predictors, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                      std::span<const std::string> names = {}, const RowReductions& all = RowReductions{});

// Coefficients of the stored X -> coefficients of the caller's X (in place).
void to_original_scale(const ModelData& data, Eigen::VectorXd& coefficients);

}  // namespace robustfit::regression::detail
