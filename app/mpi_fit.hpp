#pragma once
// robust-fit fit under mpirun (built with MPI only): docs/DISTRIBUTED.md.
#include "commands.hpp"
#include "fit_arguments.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/options.hpp"

namespace robustfit::app {

// LTS (or LS) with the rows spread over the ranks: rank r reads its part of DATA.csv (or file r of
// --shard-files); output once from rank 0, as one process prints it plus the ranks and bytes;
// --residuals written by the ranks in turn into one file (the one-process file).
int run_fit_distributed(distributed::Communicator& comm, const FitArguments& a, regression::Method method,
                        regression::Precision precision, Stage stage);

}  // namespace robustfit::app
