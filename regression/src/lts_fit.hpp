#pragma once
// fit_lts after the data are in place, written once for one process (fit_lts) and for rows
// spread over MPI ranks (src/mpi/distributed_fit.cpp): the coverage h, the search on an engine,
// the finish over all rows (row_reductions.hpp), the robust distances.
#include <Eigen/Core>
#include <cstddef>
#include <functional>
#include <memory>

#include "backend_cost.hpp"
#include "design_matrix.hpp"
#include "engine.hpp"
#include "robustfit/regression/options.hpp"
#include "row_reductions.hpp"
#include "stopwatch.hpp"

namespace robustfit::regression::detail {

// Throws std::invalid_argument for alpha outside [0.5, 1] and zero subsets.
void check_lts_options(const LtsOptions& options);

// What differs between one process and many: the engine the search runs on, and the
// deterministic starts of the default search for coverage h.
struct LtsParts {
  std::function<std::unique_ptr<Engine>(const SearchSize&)> engine;
  std::function<Eigen::MatrixXd(std::size_t h)> deterministic_starts;
};

// `data`: this part's rows (all of them in one process); `total` started with the call.
FitResult fit_lts_on(const ModelData& data, const RowReductions& all, const LtsOptions& options, const LtsParts& parts,
                     Stopwatch& total);

}  // namespace robustfit::regression::detail
