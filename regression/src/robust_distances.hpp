#pragma once
// Robust distances of an LTS fit's predictors, as robustbase::ltsReg(mcd = TRUE).
#include <vector>

#include "design_matrix.hpp"
#include "mcd_fit.hpp"
#include "robustfit/regression/fit_result.hpp"
#include "robustfit/regression/options.hpp"
#include "row_reductions.hpp"

namespace robustfit::regression::detail {

// FAST-MCD (fit_mcd_on, over `all` and on `parts`' engine) on the predictors (X without its
// intercept column) with the fit's alpha, seed, backend and selection: result.robust_distances =
// sqrt(mah) from the reweighted MCD (this part's rows), result.rd_cutoff =
// sqrt(qchisq(0.975, predictors)). Left empty without predictors, with n <= predictors + 1 (MCD
// undefined) and at an MCD exact fit (a singular scatter: robustbase's RD = "singularity").
void fill_robust_distances(const ModelData& data, const RowReductions& all, const LtsOptions& options, double alpha,
                           const McdParts& parts, FitResult& result);

// The same, computed apart from a result (FitResult's robust_distances and rd_cutoff), so that it
// may run beside the search: it depends on the predictors alone.
struct RobustDistances {
  std::vector<double> distances;
  double cutoff = 0;
};
RobustDistances robust_distances(const ModelData& data, const RowReductions& all, const LtsOptions& options, double alpha,
                                 const McdParts& parts);
void fill_robust_distances(RobustDistances distances, FitResult& result);

}  // namespace robustfit::regression::detail
