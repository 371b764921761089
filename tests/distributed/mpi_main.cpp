// GoogleTest under mpirun: every rank runs every test (the collectives need all of them); only
// rank 0 prints, and a failure on any rank fails that rank's exit code, so mpirun fails. Where
// there are GPUs, each rank takes one (its local rank modulo the device count).
#include <gtest/gtest.h>
#include <mpi.h>

#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"

int main(int argc, char** argv) {
  int provided = 0;  // as the app's MpiSession: the fits' side computations need multiple
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  {
    robustfit::distributed::Communicator world;
    robustfit::distributed::bind_gpu_to_local_rank(world);
  }
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
