#pragma once
// LTS over rows spread across the ranks of an MPI job (rank r holds a contiguous block of the
// rows, in rank order): the same fit as fit_lts on all rows (lts_fit.hpp written once for
// both) - the search on the DistributedEngine, the finish over DistributedReductions - the
// statistics of all rows on every rank and the per-row vectors of the result (fitted,
// residuals, weights, outlier flags; best_subset in local row numbers) of this rank's rows.
// Every rank calls with the same options. With options.mcd the robust distances
// (fit_mcd_distributed) are this rank's rows'.
// options.backend: where the search's passes over each rank's rows run (local_passes.hpp) -
// cpu, cuda (each rank on its current device: bind one per rank first, e.g. with
// distributed::bind_gpu_to_local_rank; a rank without one fails with std::invalid_argument, the
// others with distributed::PeerFailure) or automatic (the GPUs when every rank has one and there
// are at least 2^16 rows per rank on average, else the CPUs). The nested subsamples, the finish
// and FAST-MCD run on the ranks' CPUs whatever the backend; options.selection and precision are
// not used (DIBMS, double).
#include <span>
#include <string>

#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"

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

// fit_mcd over all ranks' rows (mcd_fit.hpp, written once for both; the search on the
// DistributedEngine): the same estimate on every rank - n, h, centers, covariances, log_det,
// the exact fit and its message - and this rank's rows of the per-row results: distances and
// raw_distances, and flagged and best_subset as 1-based numbers of this rank's rows (add the rows
// of the ranks before for the numbers one process gives). options.backend and selection are not
// used (the ranks' CPUs, exact selection). A non-finite value names its row over all ranks on
// the rank that holds it; the other ranks throw distributed::PeerFailure.
McdResult fit_mcd_distributed(distributed::Communicator& comm, MatrixRef X_local, const McdOptions& options);

// fit_ls over all ranks' rows: the QR factors of each rank's rows stacked, sums all-reduced.
FitResult fit_ls_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local, bool intercept = true);

}  // namespace robustfit::regression
