#include "mpi_run.hpp"

#include <array>
#include <climits>
#include <functional>
#include <iostream>
#include <new>
#include <thread>

#include "cli_error.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/mpi_session.hpp"
#include "robustfit/distributed/sharded_csv.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::app {
namespace {

distributed::Communicator* g_world = nullptr;

}  // namespace

distributed::Communicator* mpi_world() { return g_world; }

int run_on_every_rank(distributed::Communicator& comm, const std::vector<std::string>& args, CommandFunction command) {
  g_world = &comm;
  std::streambuf* const stdout_buffer = std::cout.rdbuf();
  if (comm.rank() != 0) std::cout.rdbuf(nullptr);  // output once, from rank 0
  int code = kExitOk;
  bool failed = false;  // this rank's own failure (not a PeerFailure)
  std::string message;
  try {
    code = command(args);
  } catch (const distributed::PeerFailure&) {
    code = kExitOk;  // reported by the rank that failed
  } catch (const UsageError& e) {
    failed = true, code = kExitUsageError, message = e.what();
  } catch (const std::bad_alloc& e) {
    const std::string what = e.what();
    failed = true, code = kExitDataError, message = what == "std::bad_alloc" ? "out of memory" : what;
  } catch (const std::exception& e) {
    failed = true, code = kExitDataError, message = e.what();
  }
  // Every rank gets here: the commands agree on each step that can fail on some ranks only.
  const int first_failed = comm.all_reduce_min(failed ? comm.rank() : INT_MAX);
  const std::uint64_t failures = comm.all_reduce_sum(std::uint64_t{failed});
  const int exit_code = comm.all_reduce_max(failed ? code : kExitOk);
  // Whether every rank failed with the same message (compared by hash).
  std::array<std::uint64_t, 2> hashes{std::hash<std::string>{}(message), ~std::hash<std::string>{}(message)};
  comm.all_reduce_min(hashes);
  const bool same_message = hashes[0] == ~hashes[1];
  std::cout.rdbuf(stdout_buffer);
  g_world = nullptr;
  if (first_failed == INT_MAX) return code;
  if (failures == static_cast<std::uint64_t>(comm.size()) && same_message) {
    // The same failure everywhere (a bad option, a missing column): said once, as one process would.
    if (comm.rank() == 0) std::cerr << "robust-fit: error: " << message << '\n';
  } else if (comm.rank() == first_failed) {
    std::cerr << "robust-fit: error: rank " << comm.rank() << ": " << message << '\n';
  }
  return exit_code;
}

bool use_local_gpu(distributed::Communicator& comm, const std::string& backend) {
  if (backend == "cpu") return false;
  // cudaSetDevice may fail on some ranks only (after the collective split inside).
  const bool bound = comm.agree([&] { return distributed::bind_gpu_to_local_rank(comm) >= 0; });
  if (backend == "cuda") {
    comm.agree([&] {
      if (!bound) throw UsageError("--backend cuda: " + selection::cuda_device_description());
    });
  }
  return bound;
}

// mpirun binds each rank to one core when it starts two ranks or fewer (Open MPI's default):
// a fit's host passes (checks, finish, inference) or FAST-MCD's then run on that core alone, ~10x slower at
// 10^7 rows on a 16-core host. Said once, by rank 0; --quiet silences it.
void note_single_core_ranks(distributed::Communicator& comm, bool quiet) {
  const bool one_core = common::affinity_cpus() == 1 && std::thread::hardware_concurrency() > 1;
  const std::uint64_t ranks = comm.all_reduce_sum(std::uint64_t{one_core});
  if (ranks > 0 && comm.rank() == 0 && !quiet)
    std::cerr << "robust-fit: note: " << ranks << " of " << comm.size()
              << " ranks may run on one core only (mpirun's binding); the host passes use every core "
                 "given to a rank: mpirun --bind-to none, or --map-by slot:PE=<cores per rank>\n";
}

void require_one_file_per_rank(const distributed::Communicator& comm, const std::vector<std::string>& shard_files) {
  if (!shard_files.empty() && shard_files.size() != static_cast<std::size_t>(comm.size()))
    throw UsageError("--shard-files: " + std::to_string(shard_files.size()) + " files for " + std::to_string(comm.size()) +
                     " ranks; give one file per rank");
}

data::Table read_table_part(distributed::Communicator& comm, const std::string& data_file,
                            const std::vector<std::string>& shard_files) {
  return shard_files.empty()
             ? distributed::read_csv_shard(comm, data_file)
             : comm.agree([&] { return distributed::read_shard_file(shard_files[static_cast<std::size_t>(comm.rank())]); });
}

DistributedColumn read_distributed_column(distributed::Communicator& comm, const std::string& data_file,
                                          const std::vector<std::string>& shard_files, const std::string& column,
                                          bool drop_missing, bool cuda) {
  const data::Table table = read_table_part(comm, data_file, shard_files);
  const data::ColumnData values = comm.agree([&] { return data::numeric_column(table, column, drop_missing, /*allow_empty=*/true); });
  DistributedColumn out;
  out.shard = comm.agree([&] {
    return cuda ? distributed::make_cuda_local_shard<double>(values.values)
                : distributed::make_cpu_local_shard<double>(values.values);
  });
  std::array<std::uint64_t, 2> totals{values.values.size(), values.dropped_rows};
  comm.all_reduce_sum(totals);
  out.n = totals[0];
  out.dropped = totals[1];
  return out;
}

std::vector<double> select_distributed(distributed::Communicator& comm, distributed::LocalShard& shard,
                                       const std::vector<std::size_t>& ks, selection::Algorithm algorithm,
                                       distributed::SelectionReport& report) {
  try {
    if (algorithm == selection::Algorithm::cutting_plane) {
      std::vector<double> values;
      distributed::SelectionReport total;
      for (std::size_t k : ks) {
        values.push_back(distributed::cutting_plane_select(comm, shard, k, {}, &report));
        total.n = report.n;
        total.bytes += report.bytes;
        total.iterations += report.iterations;
        total.gathered += report.gathered;
      }
      report = total;
      return values;
    }
    const std::vector<std::uint64_t> ranks(ks.begin(), ks.end());
    return distributed::dibms_select(comm, shard, ranks, {}, &report);
  } catch (const std::exception& e) {
    std::cerr << "robust-fit: error: rank " << comm.rank() << ": " << e.what() << '\n';
    distributed::abort_all_ranks(kExitDataError);
  }
}

}  // namespace robustfit::app
