#pragma once
// robust-fit mcd under mpirun (built with MPI only): docs/DISTRIBUTED.md.
#include <string>
#include <vector>

#include "options_util.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/mcd.hpp"

namespace robustfit::app {

// FAST-MCD with the rows spread over the ranks: rank r reads its part of DATA.csv, or file r of
// `shard_files` when given (`columns`, or every column when empty), the ranks fit together (fit_mcd_distributed), and rank 0 prints
// one process's table or JSON plus the ranks and bytes, the per-row parts gathered to it only
// where that output prints them. options.backend and selection are not used (the ranks' CPUs).
int run_mcd_distributed(distributed::Communicator& comm, const std::string& data_file,
                        const std::vector<std::string>& shard_files, std::vector<std::string> columns, bool drop_missing,
                        const regression::McdOptions& options, OutputFormat format, bool quiet);

}  // namespace robustfit::app
