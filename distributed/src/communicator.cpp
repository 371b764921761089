#include "robustfit/distributed/communicator.hpp"

#include <algorithm>
#include <numeric>

namespace robustfit::distributed {
namespace {

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

int as_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw std::length_error("MPI: a message of more than INT_MAX elements");
  return static_cast<int>(n);
}

}  // namespace

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void Communicator::all_reduce_sum(std::span<std::uint64_t> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_UINT64_T, MPI_SUM, comm_), "MPI_Allreduce");
}

void Communicator::all_reduce_sum(std::span<std::uint32_t> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_UINT32_T, MPI_SUM, comm_), "MPI_Allreduce");
}

void Communicator::all_reduce_sum(std::span<double> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
}

void Communicator::all_reduce_min(std::span<std::uint64_t> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_UINT64_T, MPI_MIN, comm_), "MPI_Allreduce");
}

void Communicator::all_reduce_max(std::span<std::uint64_t> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_UINT64_T, MPI_MAX, comm_), "MPI_Allreduce");
}

void Communicator::all_reduce_min(std::span<double> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_DOUBLE, MPI_MIN, comm_), "MPI_Allreduce");
}

void Communicator::all_reduce_max(std::span<double> values) {
  bytes_ += values.size_bytes();
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size()), MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
}

std::uint64_t Communicator::all_reduce_sum(std::uint64_t value) {
  all_reduce_sum(std::span<std::uint64_t>(&value, 1));
  return value;
}

int Communicator::all_reduce_min(int value) {
  bytes_ += sizeof value;
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  return value;
}

int Communicator::all_reduce_max(int value) {
  bytes_ += sizeof value;
  check(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  return value;
}

std::uint64_t Communicator::exclusive_sum(std::uint64_t value) {
  bytes_ += sizeof value;
  std::uint64_t before = 0;
  check(MPI_Exscan(&value, &before, 1, MPI_UINT64_T, MPI_SUM, comm_), "MPI_Exscan");
  return rank_ == 0 ? 0 : before;  // MPI leaves rank 0's result undefined
}

void Communicator::exclusive_sum(std::span<std::uint64_t> values) {
  bytes_ += values.size_bytes();
  std::vector<std::uint64_t> before(values.size(), 0);
  check(MPI_Exscan(values.data(), before.data(), as_count(values.size()), MPI_UINT64_T, MPI_SUM, comm_), "MPI_Exscan");
  if (rank_ == 0) std::fill(before.begin(), before.end(), 0);  // undefined on rank 0
  std::copy(before.begin(), before.end(), values.begin());
}

std::vector<std::uint64_t> Communicator::gather(std::span<const std::uint64_t> local, int root) {
  const int count = as_count(local.size());
  std::vector<int> counts(rank_ == root ? static_cast<std::size_t>(size_) : 0);
  bytes_ += sizeof count + local.size_bytes();
  check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm_), "MPI_Gather");
  std::vector<int> offsets(counts.size());
  std::vector<std::uint64_t> all;
  if (rank_ == root) {
    std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
    all.resize(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0L)));
  }
  check(MPI_Gatherv(local.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(), MPI_UINT64_T,
                    root, comm_), "MPI_Gatherv");
  return all;
}

std::vector<std::uint64_t> Communicator::all_gather(std::span<const std::uint64_t> local) {
  const int count = as_count(local.size());
  std::vector<int> counts(static_cast<std::size_t>(size_));
  bytes_ += sizeof count + local.size_bytes();
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  std::vector<int> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0L)));
  check(MPI_Allgatherv(local.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(), MPI_UINT64_T,
                       comm_), "MPI_Allgatherv");
  return all;
}

std::vector<std::uint64_t> Communicator::all_gather_equal(std::span<const std::uint64_t> local) {
  const int count = as_count(local.size());
  bytes_ += local.size_bytes();
  std::vector<std::uint64_t> all(local.size() * static_cast<std::size_t>(size_));
  check(MPI_Allgather(local.data(), count, MPI_UINT64_T, all.data(), count, MPI_UINT64_T, comm_), "MPI_Allgather");
  return all;
}

std::vector<std::uint64_t> Communicator::all_to_all(std::span<const std::uint64_t> values,
                                                    std::span<const std::size_t> counts) {
  return all_to_all_of(values, counts, MPI_UINT64_T);
}

std::vector<double> Communicator::all_to_all(std::span<const double> values, std::span<const std::size_t> counts) {
  return all_to_all_of(values, counts, MPI_DOUBLE);
}

template <class T>
std::vector<T> Communicator::all_to_all_of(std::span<const T> values, std::span<const std::size_t> counts, MPI_Datatype type) {
  const auto q = static_cast<std::size_t>(size_);
  if (counts.size() != q) throw std::invalid_argument("all_to_all: one count per rank is needed");
  std::vector<int> send_counts(q), receive_counts(q), send_offsets(q), receive_offsets(q);
  for (std::size_t r = 0; r < q; ++r) send_counts[r] = as_count(counts[r]);
  bytes_ += q * sizeof(int) + values.size_bytes();
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm_), "MPI_Alltoall");
  std::exclusive_scan(send_counts.begin(), send_counts.end(), send_offsets.begin(), 0);
  std::exclusive_scan(receive_counts.begin(), receive_counts.end(), receive_offsets.begin(), 0);
  std::vector<T> received(static_cast<std::size_t>(std::accumulate(receive_counts.begin(), receive_counts.end(), 0L)));
  check(MPI_Alltoallv(values.data(), send_counts.data(), send_offsets.data(), type, received.data(), receive_counts.data(),
                      receive_offsets.data(), type, comm_), "MPI_Alltoallv");
  return received;
}

void Communicator::broadcast(std::vector<std::uint64_t>& values, int root) {
  std::uint64_t size = values.size();
  bytes_ += sizeof size;
  check(MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm_), "MPI_Bcast");
  values.resize(size);
  bytes_ += size * sizeof(std::uint64_t);
  check(MPI_Bcast(values.data(), as_count(values.size()), MPI_UINT64_T, root, comm_), "MPI_Bcast");
}

void Communicator::settle(const std::exception_ptr& error) {
  const int first_failed = all_reduce_min(error ? rank_ : INT_MAX);
  if (first_failed == INT_MAX) return;
  if (error) std::rethrow_exception(error);
  throw PeerFailure(first_failed);
}

SideCommunicator::SideCommunicator(const Communicator& original) {
  check(MPI_Comm_dup(original.handle(), &comm_), "MPI_Comm_dup");
  communicator_.emplace(comm_);
}

SideCommunicator::~SideCommunicator() {
  communicator_.reset();
  MPI_Comm_free(&comm_);
}

bool threads_may_communicate() {
  int level = MPI_THREAD_SINGLE;
  return MPI_Query_thread(&level) == MPI_SUCCESS && level == MPI_THREAD_MULTIPLE;
}

}  // namespace robustfit::distributed
