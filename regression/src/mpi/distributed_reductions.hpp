#pragma once
// RowReductions (../row_reductions.hpp) over the ranks of an MPI job, each holding a contiguous
// block of rows in rank order: the input checks and the LTS finish then see all rows.
//   sums, extremes       all-reduce;
//   stacked QR factors   each rank's factors made one triangle, all-gathered ((p+1)^2 numbers per
//                        rank), one more QR when several ranks have rows;
//   smallest_h           the h-th smallest by DIBMS, ties to the lower global row (an exclusive
//                        prefix sum of tie counts), as the CPU engine breaks them; DIBMS over
//                        the rank's GPU where select_on_gpu(true) (the host's shard if the GPU
//                        cannot take the values);
//   trimmed_sum          the same threshold, the sum below it and its count all-reduced;
//   min_window_variance  one rank: its values sorted (on its GPU where select_on_gpu) and one
//                        process's scan. Several: the values sorted across the ranks (an exact
//                        sample sort: the splitters are DIBMS order statistics, the local sorts
//                        on the GPUs where select_on_gpu, one all-to-all, the runs merged), then
//                        every window of h consecutive values from prefix sums: a second
//                        all-to-all moves each value h positions on, each run headed by the
//                        prefix sums before it. It moves each value twice: 16 n / q bytes per
//                        rank;
//   min_variance_window  one rank: as min_window_variance. Several: the same sample sort, each
//                        value moved h positions on, then the scan rank after rank (a broadcast
//                        of its state per rank): one process's sums;
//   kth_smallest_many    DIBMS;
//   shortest_window_below  the exact shortest window over all ranks (distributed_window.hpp:
//                        a sample sort, 16 n / q bytes per rank), then the bound;
//   before, gathered     an exclusive prefix sum; an all-gather of the rows.
#include <memory>

#include "../row_reductions.hpp"
#include "robustfit/distributed/communicator.hpp"

namespace robustfit::regression::detail {

class DistributedReductions final : public RowReductions {
 public:
  explicit DistributedReductions(distributed::Communicator& comm) : comm_(comm) {}

  // Whether DIBMS runs over CUDA LocalShards (the fit's search runs on the ranks' GPUs): a
  // host shard's passes over 10^7 values take ~0.1 s each, a GPU's ~1 ms after the upload.
  void select_on_gpu(bool on) { select_on_gpu_ = on; }
  // This rank's QR factors (local_factors) from `local` instead of the host's TSQR: a
  // DeviceRowReductions over the GPU passes' copy of [X y] (DeviceRowFactors; the host's TSQR
  // below its threshold or where the device fails). The stacking across the ranks stays the same.
  void factor_locally_with(std::unique_ptr<RowReductions> local) { local_ = std::move(local); }

  std::size_t total(std::size_t local) const override;
  void sum(std::span<double> values) const override;
  void min(std::span<double> values) const override;
  void max(std::span<double> values) const override;
  using RowReductions::sum;
  void agree(const std::function<void()>& step) const override;
  Eigen::MatrixXd stacked(const Eigen::MatrixXd& local) const override;
  Eigen::MatrixXd local_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                std::span<const std::size_t> rows) const override;
  std::vector<std::size_t> smallest_h(const Eigen::VectorXd& values, std::size_t h) const override;
  double trimmed_sum(const Eigen::VectorXd& values, std::size_t h) const override;
  double min_window_variance(const Eigen::VectorXd& values, std::size_t h) const override;
  bool spans_processes() const override { return true; }
  std::size_t before(std::size_t local) const override;
  Eigen::MatrixXd gathered(const Eigen::MatrixXd& local) const override;
  std::vector<double> kth_smallest_many(const Eigen::VectorXd& values, std::span<const std::size_t> ks) const override;
  std::optional<ShortestWindow> shortest_window_below(const Eigen::VectorXd& values, std::size_t h,
                                                      double bound) const override;
  VarianceWindowScan min_variance_window(const Eigen::VectorXd& values, std::size_t h, double shift) const override;

 private:
  // The order statistics of ranks ks (0-based, over all ranks) of the values, by DIBMS.
  std::vector<double> select(const Eigen::VectorXd& values, const std::vector<std::uint64_t>& ks) const;
  // This rank's values sorted (on its GPU where select_on_gpu: local_sort.hpp).
  std::vector<double> sorted_here(const Eigen::VectorXd& values) const;
  // The values sorted across the ranks (an exact sample sort, one all-to-all): this rank's
  // sorted positions [first[rank], first[rank + 1]), given splitters[r - 1], the value at
  // position first[r] (r = 1 .. q - 1).
  std::vector<double> sorted_block(const Eigen::VectorXd& values, const std::vector<std::size_t>& first,
                                   const std::vector<double>& splitters) const;
  // The values of this rank's sorted block moved h positions on (one all-to-all): what this
  // rank receives, those of positions max(first[rank], h) - h on.
  std::vector<double> shifted(std::span<const double> block, const std::vector<std::size_t>& first, std::size_t h) const;

  distributed::Communicator& comm_;
  bool select_on_gpu_ = false;
  std::unique_ptr<RowReductions> local_;  // local_factors' source, where set
};

}  // namespace robustfit::regression::detail
