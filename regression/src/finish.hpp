#pragma once
// After the search: the raw fit, its scale, reweighting and per-row diagnostics. Runs on the
// host for every backend (O(n p^2) once), so both backends report identically.
#include <Eigen/Core>
#include <cstddef>
#include <optional>

#include "design_matrix.hpp"
#include "row_reductions.hpp"
#include "robustfit/regression/fit_result.hpp"

namespace robustfit::regression::detail {

// LTS as robustbase::ltsReg: raw coefficients = LS on the h-subset of `beta`; raw scale with
// the consistency factor and small-sample correction; 0/1 weights |r/s| <= qnorm(0.9875);
// reweighted LS, its scale (corrected), standardized residuals, outlier flags, robust R^2.
void finish_lts(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, double alpha,
                bool reweight, FitResult& result);
// The same when `data` is one part of the rows and `all` reduces over the parts (an MPI rank's
// block: row_reductions.hpp): the statistics are those of all rows; the per-row results
// (fitted, residuals, weights, outlier flags, best_subset in local row numbers) are this part's.
// y_window_variance: all.min_window_variance(data.y, h) where the caller already has it.
void finish_lts(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& beta, std::size_t h,
                double alpha, bool reweight, FitResult& result,
                std::optional<double> y_window_variance = std::nullopt);

// LMS as Rousseeuw & Leroy (1987): raw scale (1 + 5/(n-p)) sqrt(objective) / qnorm((n+h)/(2n)),
// weights |r/s0| <= 2.5, reweighted LS and scale sqrt(sum w r^2 / (sum w - p)), outliers
// |r/scale| > 2.5.
void finish_lms(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, FitResult& result);
// The same over parts (as finish_lts above).
void finish_lms(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& beta, std::size_t h,
                FitResult& result);

// Ordinary least squares; with `all`, over all parts (as finish_lts above).
void finish_ls(const ModelData& data, FitResult& result);
void finish_ls(const ModelData& data, const RowReductions& all, FitResult& result);

// fit_ls (one process: all = RowReductions{}) and fit_ls_distributed (MPI) in one: the design
// checks, LS and its inference over all parts, in the caller's scale; `backend` names the engine.
FitResult fit_ls_on(Eigen::Ref<const Eigen::MatrixXd> X, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                    const RowReductions& all, const char* backend);

}  // namespace robustfit::regression::detail
