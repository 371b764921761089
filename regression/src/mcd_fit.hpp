#pragma once
// fit_mcd after the data are in place, written once for one process (fit_mcd) and for rows
// spread over MPI ranks (src/mpi/distributed_fit.cpp): every pass over all rows (medians and
// MADs, moments, distances, reweighting, flags, the rows on a hyperplane) is this part's rows
// plus a reduction (row_reductions.hpp); the search runs on the engine the parts make.
#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>

#include "design_matrix.hpp"
#include "engine.hpp"
#include "engine_factory.hpp"
#include "robustfit/regression/mcd.hpp"
#include "row_reductions.hpp"
#include "standardized_rows.hpp"

namespace robustfit::regression::detail {

// What differs between one process and many: the engine of FAST-MCD's search over the
// standardized rows (`data`: this part's rows, y a column of ones), and the backend the result
// names where no search runs (h = n, p = 1).
struct McdParts {
  std::string backend = "cpu";
  std::function<std::unique_ptr<Engine>(const ModelData& data, const McdOptions&, const SearchSize&)> engine;
  // One process on a GPU: X put on the device, where the standardized rows and the search's
  // engine are made (standardized_rows.hpp); null (or returning null): the host's path above.
  std::function<std::unique_ptr<StandardizedRows>(Eigen::Ref<const Eigen::MatrixXd> X, const McdOptions&, const SearchSize&)>
      standardized_on_device;
};

// One process: the engine options.backend and options.selection ask for (engine_factory.hpp).
McdParts one_process_mcd_parts();

// X: this part's rows (all of them in one process). The result's statistics are those of all
// rows; its per-row members are this part's rows: distances and raw_distances, and flagged and
// best_subset as 1-based numbers of this part's rows (in one process, of all rows).
McdResult fit_mcd_on(Eigen::Ref<const Eigen::MatrixXd> X, const RowReductions& all, const McdOptions& options,
                     const McdParts& parts);

}  // namespace robustfit::regression::detail
