#pragma once
// The one wrapper around an MPI communicator: the collectives the distributed algorithms use,
// each counting the bytes this rank hands to it (an all-reduce of N bytes counts N; a gather
// counts what this rank sends), so callers can report the communication of one call.
// agree() runs a step that may fail on some ranks only and makes every rank leave it together.
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace robustfit::distributed {

// Thrown by agree() on the ranks that did not fail, when another rank did.
class PeerFailure : public std::runtime_error {
 public:
  explicit PeerFailure(int failed_rank)
      : std::runtime_error("rank " + std::to_string(failed_rank) + " failed"), rank_(failed_rank) {}
  int failed_rank() const { return rank_; }

 private:
  int rank_;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);

  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm handle() const { return comm_; }

  // Payload bytes handed to collectives since construction.
  std::uint64_t bytes() const { return bytes_; }

  void all_reduce_sum(std::span<std::uint64_t> values);
  void all_reduce_sum(std::span<std::uint32_t> values);
  void all_reduce_sum(std::span<double> values);
  void all_reduce_min(std::span<std::uint64_t> values);
  void all_reduce_max(std::span<std::uint64_t> values);
  void all_reduce_min(std::span<double> values);
  void all_reduce_max(std::span<double> values);
  std::uint64_t all_reduce_sum(std::uint64_t value);
  int all_reduce_min(int value);
  int all_reduce_max(int value);
  // Sum of `value` over the ranks below this one (0 on rank 0).
  std::uint64_t exclusive_sum(std::uint64_t value);
  // The same for each element of `values`, in place (one MPI_Exscan).
  void exclusive_sum(std::span<std::uint64_t> values);
  // Every rank's `local` in rank order, on `root` only (empty elsewhere).
  std::vector<std::uint64_t> gather(std::span<const std::uint64_t> local, int root);
  // Every rank's `local` in rank order, on every rank.
  std::vector<std::uint64_t> all_gather(std::span<const std::uint64_t> local);
  // The same where every rank passes the same number of values (one MPI call instead of two).
  std::vector<std::uint64_t> all_gather_equal(std::span<const std::uint64_t> local);
  // Personalised exchange: counts[r] values of `values` (one run after another, in rank order)
  // go to rank r; returns what every rank sent to this one, in rank order. Counts what this
  // rank sends.
  std::vector<std::uint64_t> all_to_all(std::span<const std::uint64_t> values, std::span<const std::size_t> counts);
  // The same for doubles, moved bit for bit (the sample sorts' values, without a copy as bits).
  std::vector<double> all_to_all(std::span<const double> values, std::span<const std::size_t> counts);
  // `values` of `root`, resized on the other ranks.
  void broadcast(std::vector<std::uint64_t>& values, int root);

  // Runs `step` on every rank, then agrees on whether it failed anywhere: the failing rank
  // with the lowest number wins; that rank rethrows its own exception, the other failing
  // ranks too, and the ranks that did not fail throw PeerFailure naming it. So no rank goes on
  // to the next collective while another has left. Returns step's result.
  template <class Step>
  auto agree(Step&& step) -> std::invoke_result_t<Step> {
    using Result = std::invoke_result_t<Step>;
    std::exception_ptr error;
    if constexpr (std::is_void_v<Result>) {
      try {
        step();
      } catch (...) {
        error = std::current_exception();
      }
      settle(error);
    } else {
      std::optional<Result> result;
      try {
        result.emplace(step());
      } catch (...) {
        error = std::current_exception();
      }
      settle(error);
      return std::move(*result);
    }
  }

 private:
  void settle(const std::exception_ptr& error);

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  template <class T>
  std::vector<T> all_to_all_of(std::span<const T> values, std::span<const std::size_t> counts, MPI_Datatype type);

  std::uint64_t bytes_ = 0;
};

// A communicator of its own over the same ranks (MPI_Comm_dup: collective), freed with this
// object: collectives on another thread beside those of the original. Needs MPI_THREAD_MULTIPLE
// (threads_may_communicate).
class SideCommunicator {
 public:
  explicit SideCommunicator(const Communicator& original);
  ~SideCommunicator();
  SideCommunicator(const SideCommunicator&) = delete;
  SideCommunicator& operator=(const SideCommunicator&) = delete;
  Communicator& get() { return *communicator_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::optional<Communicator> communicator_;
};

// Whether MPI was started with MPI_THREAD_MULTIPLE: several threads may then run collectives at
// once, each on a communicator of its own.
bool threads_may_communicate();

}  // namespace robustfit::distributed
