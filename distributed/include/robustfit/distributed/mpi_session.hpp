#pragma once
// MPI's lifetime in a program that runs alone or under mpirun: the session initialises MPI only
// when a launcher started the process, so the same executable runs without MPI otherwise.
namespace robustfit::distributed {

// Whether an MPI launcher (mpirun / mpiexec of Open MPI, MPICH, or a PMI/PMIx resource manager)
// started this process, from the environment it sets.
bool launched_by_mpi();

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);  // MPI_Init_thread (multiple where the library has it)
  ~MpiSession();                        // MPI_Finalize
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// Ends every rank of MPI_COMM_WORLD: for a failure inside a collective algorithm, where the
// other ranks would otherwise wait for this one forever.
[[noreturn]] void abort_all_ranks(int exit_code);

}  // namespace robustfit::distributed
