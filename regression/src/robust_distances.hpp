#pragma once
// Robust distances of an LTS fit's predictors, as robustbase::ltsReg(mcd = TRUE).
#include "design_matrix.hpp"
#include "robustfit/regression/fit_result.hpp"
#include "robustfit/regression/options.hpp"

namespace robustfit::regression::detail {

// FAST-MCD (fit_mcd) on the predictors (X without its intercept column) with the fit's alpha,
// seed, backend and selection: result.robust_distances = sqrt(mah) from the reweighted MCD,
// result.rd_cutoff = sqrt(qchisq(0.975, predictors)). Left empty without predictors, with
// n <= predictors + 1 (MCD undefined) and at an MCD exact fit (a singular scatter: robustbase's
// RD = "singularity").
void fill_robust_distances(const ModelData& data, const LtsOptions& options, double alpha, FitResult& result);

}  // namespace robustfit::regression::detail
