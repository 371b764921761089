#include "robust_distances.hpp"

#include <utility>

#include "robustfit/regression/mcd.hpp"

namespace robustfit::regression::detail {

RobustDistances robust_distances(const ModelData& data, const RowReductions& all, const LtsOptions& options, double alpha,
                                 const McdParts& parts) {
  const Eigen::Index first = data.intercept ? 1 : 0;
  const Eigen::Index q = data.X.cols() - first;
  if (q == 0 || all.total(data.n()) <= static_cast<std::size_t>(q) + 1) return {};
  McdOptions mcd;
  mcd.alpha = alpha;
  mcd.seed = options.seed;
  mcd.backend = options.backend;
  mcd.selection = options.selection;
  const McdResult fit = fit_mcd_on(data.X.rightCols(q), all, mcd, parts);
  RobustDistances out;
  out.cutoff = fit.cutoff;
  if (!fit.exact_fit) out.distances.assign(fit.distances.data(), fit.distances.data() + fit.distances.size());
  return out;
}

void fill_robust_distances(RobustDistances distances, FitResult& result) {
  result.robust_distances = std::move(distances.distances);
  result.rd_cutoff = distances.cutoff;
}

void fill_robust_distances(const ModelData& data, const RowReductions& all, const LtsOptions& options, double alpha,
                           const McdParts& parts, FitResult& result) {
  fill_robust_distances(robust_distances(data, all, options, alpha, parts), result);
}

}  // namespace robustfit::regression::detail
