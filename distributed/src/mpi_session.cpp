#include "robustfit/distributed/mpi_session.hpp"

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "robustfit/common/parallel.hpp"

namespace robustfit::distributed {
namespace {

// The ranks of this host whose CPU sets overlap this rank's (itself included): the parallel
// loops then split the CPUs among them (common::share_cpus_with).
void share_host_cpus() {
#if defined(__linux__)
  MPI_Comm host;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) != MPI_SUCCESS) return;
  int size = 1;
  MPI_Comm_size(host, &size);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);  // unknown: shares with nobody
  std::vector<cpu_set_t> all(static_cast<std::size_t>(size));
  const bool gathered = MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, host) == MPI_SUCCESS;
  MPI_Comm_free(&host);
  if (!gathered) return;
  unsigned sharing = 0;
  for (cpu_set_t& other : all) {
    cpu_set_t both;
    CPU_AND(&both, &mine, &other);
    sharing += CPU_COUNT(&both) > 0 ? 1 : 0;
  }
  common::share_cpus_with(sharing);
#endif
}

}  // namespace

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  int provided = 0;
  // Multiple: the distributed LTS fit takes the robust R^2's scale of y on a thread beside the
  // search (each on a communicator of its own); with less, it takes it after the search.
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    throw std::runtime_error("MPI_Init_thread failed");
  }
  share_host_cpus();
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void abort_all_ranks(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this satisfies [[noreturn]]
}

}  // namespace robustfit::distributed
