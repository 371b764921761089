#pragma once
// Inference for the final least-squares fit of every estimator, written once for all backends
// (it reads only the finished FitResult and the host copy of the design).
#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "design_matrix.hpp"
#include "robustfit/common/parallel.hpp"
#include "row_reductions.hpp"
#include "robustfit/regression/fit_result.hpp"

namespace robustfit::regression::detail {

// Rows of [X y] (this part's, sorted; or with `all` every row of this part) and their QR
// factors over all parts as the finish's last LS fit stacked them (stacked_factors_of_rows,
// least_squares.hpp).
struct FactoredRows {
  common::RowList rows;
  bool all = false;
  Eigen::MatrixXd stacked;
};

// robustbase's summary.lts (0.95): with w = result.weights (0/1), n_w = sum w, df = n_w - p,
// sigma^2 = sum w r^2 / df, std errors sqrt(diag((X_w' X_w)^-1) sigma^2) from the R factor of
// the kept rows, t = estimate / se, p = 2 P(T_df > |t|); mss = sum w (f - weighted mean f)^2
// with an intercept (sum w f^2 without), R^2 = mss / (mss + rss), adjusted
// 1 - (1 - R^2)(n_w - intercept) / df, F = (mss / (p - intercept)) / sigma^2.
// Needs result.coefficients, fitted, residuals and weights; fills result.inference.
void add_inference(const ModelData& data, FitResult& result);
// The same over all parts of the data (row_reductions.hpp): `data` and the result's per-row
// vectors are this part's rows. `factored`, when its rows are the kept rows on every part, saves
// factoring them again (the same factors, so the same numbers); else its row list's memory is
// reused to list the kept rows (its rows are gone on return).
void add_inference(const ModelData& data, const RowReductions& all, FitResult& result,
                   FactoredRows* factored = nullptr);

}  // namespace robustfit::regression::detail
