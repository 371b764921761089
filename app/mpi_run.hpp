#pragma once
// robust-fit under mpirun (built with MPI only): every rank runs the command; stdout is rank
// 0's alone; errors are agreed on so that each is printed once, with the rank that hit it.
#include <memory>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/distributed/selection.hpp"
#include "robustfit/selection/algorithm.hpp"

namespace robustfit::app {

// The world communicator while main runs under mpirun with more than one rank; else nullptr.
distributed::Communicator* mpi_world();

using CommandFunction = int (*)(const std::vector<std::string>&);
// Runs `command` on every rank and returns the agreed exit code (see the file comment).
int run_on_every_rank(distributed::Communicator& comm, const std::vector<std::string>& args, CommandFunction command);

// Whether this rank selects on a GPU for --backend `backend` (auto, cpu or cuda): for auto and
// cuda every rank binds one GPU of its host (local rank modulo the GPUs; a collective call);
// auto uses it where there is one, cuda fails on the ranks without one (agreed, so every rank
// leaves together).
bool use_local_gpu(distributed::Communicator& comm, const std::string& backend);

// A note on stderr (rank 0, unless quiet) when some ranks may run on one core only: Open MPI
// binds each rank to a core when it starts two ranks or fewer, and the host passes of a fit or
// of FAST-MCD then run ~10x slower on a 16-core host. Collective.
void note_single_core_ranks(distributed::Communicator& comm, bool quiet);

// --shard-files under mpirun: one file per rank, or a usage error naming both counts.
void require_one_file_per_rank(const distributed::Communicator& comm, const std::vector<std::string>& shard_files);

// This rank's rows of the input: its part of `data_file` (split at line ends), or its own file
// of `shard_files` (rank r reads file r) when that list is given. Errors are agreed on.
data::Table read_table_part(distributed::Communicator& comm, const std::string& data_file,
                            const std::vector<std::string>& shard_files);

// select's data under mpirun: this rank's values of `column`, read from its part of
// `data_file` or from its own file (shard_files, one per rank), and the totals over the ranks;
// the shard on this rank's GPU when `cuda`.
struct DistributedColumn {
  std::unique_ptr<distributed::LocalShard> shard;
  std::uint64_t n = 0, dropped = 0;
};
DistributedColumn read_distributed_column(distributed::Communicator& comm, const std::string& data_file,
                                          const std::vector<std::string>& shard_files, const std::string& column,
                                          bool drop_missing, bool cuda);

// The order statistics (0-based ranks) by DIBMS, or by the cutting plane for one rank when
// asked for; a failure here (inside the collectives) ends every rank.
std::vector<double> select_distributed(distributed::Communicator& comm, distributed::LocalShard& shard,
                                       const std::vector<std::size_t>& ks, selection::Algorithm algorithm,
                                       distributed::SelectionReport& report);

}  // namespace robustfit::app
