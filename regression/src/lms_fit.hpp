#pragma once
// fit_lms after the data are in place, written once for one process (fit_lms, lms.cpp) and for
// rows spread over MPI ranks (src/mpi/distributed_fit.cpp): the search on an engine, the
// refinement and the finish over all rows (row_reductions.hpp). The same two pieces differ as
// for LTS (lts_fit.hpp's LtsParts): the engine and the deterministic starts.
#include "design_matrix.hpp"
#include "lts_fit.hpp"
#include "robustfit/regression/options.hpp"
#include "row_reductions.hpp"
#include "stopwatch.hpp"

namespace robustfit::regression::detail {

// Throws std::invalid_argument for zero subsets.
void check_lms_options(const LmsOptions& options);

// `data`: this part's rows (all of them in one process); `total` started with the call.
FitResult fit_lms_on(const ModelData& data, const RowReductions& all, const LmsOptions& options, const LtsParts& parts,
                     Stopwatch& total);

}  // namespace robustfit::regression::detail
