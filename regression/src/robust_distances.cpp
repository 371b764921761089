#include "robust_distances.hpp"

#include "robustfit/regression/mcd.hpp"

namespace robustfit::regression::detail {

void fill_robust_distances(const ModelData& data, const RowReductions& all, const LtsOptions& options, double alpha,
                           const McdParts& parts, FitResult& result) {
  const Eigen::Index first = data.intercept ? 1 : 0;
  const Eigen::Index q = data.X.cols() - first;
  result.robust_distances.clear();
  result.rd_cutoff = 0;
  if (q == 0 || all.total(data.n()) <= static_cast<std::size_t>(q) + 1) return;
  McdOptions mcd;
  mcd.alpha = alpha;
  mcd.seed = options.seed;
  mcd.backend = options.backend;
  mcd.selection = options.selection;
  const McdResult fit = fit_mcd_on(data.X.rightCols(q), all, mcd, parts);
  result.rd_cutoff = fit.cutoff;
  if (fit.exact_fit) return;
  result.robust_distances.assign(fit.distances.data(), fit.distances.data() + fit.distances.size());
}

}  // namespace robustfit::regression::detail
