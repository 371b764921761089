#pragma once
// The passes over one rank's rows that the distributed regression engine (distributed_engine.hpp)
// needs for FAST-LTS: squared residuals of a batch of candidates, the counts and sums below
// given thresholds, and the augmented Gram matrix of the rows below a threshold plus a given
// number of ties taken in row order. The engine does the collectives (the thresholds by DIBMS
// over the LocalShards these passes hand out, the prefix sums of ties, the all-reduces) and
// everything else; a backend here decides nothing statistical.
//   make_cpu_local_passes   Eigen on the host, the code the engine always ran;
//   make_cuda_local_passes  the rank's GPU: X and y uploaded once, one GEMM per batch of
//                           candidates, the squares stay on the device (DIBMS runs over them
//                           through CUDA LocalShards, exchanging only counts), the Gram matrices
//                           from the CUDA engine's h-subset kernel (cuda/subset_ops.cu).
// Both compute in double; sums and Gram matrices agree to rounding, counts exactly.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "../engine.hpp"
#include "robustfit/distributed/local_shard.hpp"

namespace robustfit::regression::detail {

// One candidate's squares on this rank against a threshold t.
struct BelowThreshold {
  std::uint64_t below = 0;  // #{r^2 < t}
  std::uint64_t ties = 0;   // #{r^2 == t}
  double sum = 0;           // sum of the r^2 < t
};

class LocalPasses {
 public:
  virtual ~LocalPasses() = default;

  virtual std::string backend_name() const = 0;  // "cpu" | "cuda"
  // Candidates whose squares this rank can hold at once (the engine batches by the smallest
  // limit over the ranks, so that every rank runs the same batches of collectives).
  virtual std::size_t batch_limit() const = 0;

  // This rank's squared residuals (y - X beta_j)^2 of the candidates (the columns of betas),
  // kept for the calls below until the next call, and one LocalShard over each candidate's
  // squares (the CUDA passes' shards refer to them: drop the shards before the next call).
  // Throws std::invalid_argument when a square is NaN (as make_*_local_shard).
  virtual std::vector<std::unique_ptr<distributed::LocalShard>> squares(const Eigen::MatrixXd& betas) = 0;

  // For each candidate j of the last squares(), against t[j].
  virtual std::vector<BelowThreshold> below(std::span<const double> t) = 0;

  // For each candidate j of the last squares(): the rows with r^2 < t[j] and the first take[j]
  // rows with r^2 == t[j] in row order; their augmented Gram matrix [X y]^T [X y] into
  // grams.col(j) ((p+1)^2 entries, column-major, both triangles). grams is resized.
  virtual void subset_grams(std::span<const double> t, std::span<const std::uint64_t> take, Eigen::MatrixXd& grams) = 0;

  // Those rows of candidate j (local numbers, ascending); `below` is its below() count.
  virtual std::vector<std::size_t> subset_rows(std::size_t j, double t, std::uint64_t below, std::uint64_t take) = 0;

  // X and y on the rank's device, where the passes keep them (the finish factors rows there).
  virtual std::optional<DeviceDesign> device_design() const { return std::nullopt; }
};

// X (with its intercept column) and y are referred to, not copied: they must outlive the passes.
std::unique_ptr<LocalPasses> make_cpu_local_passes(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);

// On the current CUDA device (distributed::bind_gpu_to_local_rank picks one per rank): X and y
// are uploaded. Throws std::runtime_error where this build has no CUDA.
std::unique_ptr<LocalPasses> make_cuda_local_passes(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);

}  // namespace robustfit::regression::detail
