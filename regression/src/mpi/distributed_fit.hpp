#pragma once
// LTS over rows spread across the ranks of an MPI job (rank r holds a contiguous block of the
// rows, in rank order): the same fit as fit_lts on all rows (lts_fit.hpp written once for
// both) - the search on the DistributedEngine, the finish over DistributedReductions - the
// statistics of all rows on every rank and the per-row vectors of the result (fitted,
// residuals, weights, outlier flags; best_subset in local row numbers) of this rank's rows.
// Every rank calls with the same options. Not distributed: FAST-MCD (options.mcd must be
// false).
#include <span>
#include <string>

#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::regression {

// check_design over all ranks' rows (std::invalid_argument, the same message on every rank;
// a non-finite value names its row in the rank's block, and the other ranks stop with
// distributed::PeerFailure).
void check_design_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local, bool intercept,
                              std::span<const std::string> names = {});

FitResult fit_lts_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local,
                              const LtsOptions& options);

// fit_lms over all ranks' rows (lms_fit.hpp, written once for both): the same fit, with the same
// per-rank results as fit_lts_distributed. options.backend, selection and precision are not
// used (the ranks' CPUs, exact selection, double).
FitResult fit_lms_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local,
                              const LmsOptions& options);

// fit_ls over all ranks' rows: the QR factors of each rank's rows stacked, sums all-reduced.
FitResult fit_ls_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local, bool intercept = true);

}  // namespace robustfit::regression
