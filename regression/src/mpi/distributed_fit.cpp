#include "distributed_fit.hpp"

#include <future>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "../deterministic_starts.hpp"
#include "../finish.hpp"
#include "../lms_fit.hpp"
#include "../lts_fit.hpp"
#include "../mcd_fit.hpp"
#include "distributed_engine.hpp"
#include "distributed_reductions.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::regression {

void check_design_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local, bool intercept,
                              std::span<const std::string> names) {
  detail::check_model_data(X_local, y_local, intercept, names, detail::DistributedReductions(comm));
}

namespace {

// FAST-MCD's search on the DistributedEngine over the ranks' standardized rows.
detail::McdParts distributed_mcd_parts(distributed::Communicator& comm) {
  detail::McdParts parts;
  parts.backend = "mpi+cpu";
  parts.engine = [&comm](const detail::ModelData& data, const McdOptions&, const detail::SearchSize&) {
    return std::make_unique<detail::DistributedEngine>(comm, data.X, data.y);
  };
  return parts;
}

// Rows per rank (on average) from which `automatic` puts the passes on the ranks' GPUs (below, the
// per-candidate cost of a GPU shard outweighs its passes; a guess after one process's
// DeviceRowReductions threshold, not measured across ranks).
constexpr std::uint64_t kGpuPassesRowsPerRank = std::uint64_t{1} << 16;

// Whether the ranks run the search's passes on their GPUs: cpu no, cuda yes (every rank must
// have a device: said by the lowest rank without one, the others stop with PeerFailure),
// automatic when every rank has one and the data are large enough.
bool passes_on_gpus(distributed::Communicator& comm, Backend backend, std::uint64_t n_local) {
  if (backend == Backend::cpu) return false;
  const bool have = cuda_backend_available();
  if (backend == Backend::cuda) {
    comm.agree([&] {
      if (!have) throw std::invalid_argument("the CUDA backend is not available: " + selection::cuda_device_description());
    });
    return true;
  }
  const std::uint64_t n = comm.all_reduce_sum(n_local);
  return comm.all_reduce_min(have ? 1 : 0) == 1 && n >= kGpuPassesRowsPerRank * static_cast<std::uint64_t>(comm.size());
}

// Rows x (p + 1)^2 of a rank's row set from which its QR factors run on its GPU (DeviceRowFactors:
// CholeskyQR2 over the passes' copy of [X y]) rather than by the host's TSQR. Ranks share the
// host's cores: on 4 H200s of a 64-core host (16 cores a rank) the finish's three TSQRs of
// 5-8 x 10^6 rows x 11 took 80-107 ms each, 16-35 ms at one rank with all 64 cores; on the GPU
// 5-7 ms each, the first 60-70 ms (handles, buffers, the kernels' first load) (2026-11-28). Not
// measured below 10^7 rows a rank.
constexpr std::size_t kRankFactorsMinWork = std::size_t{1} << 28;

// The search's pieces on the ranks: the DistributedEngine (its passes on the GPUs with gpu), and
// the deterministic starts from the rows one process reads (all n <= 20000, else the strided
// subsample), fetched to every rank.
detail::LtsParts distributed_parts(distributed::Communicator& comm, const detail::ModelData& data,
                                   detail::DistributedEngine*& engine, bool gpu = false) {
  detail::LtsParts parts;
  parts.engine = [&comm, &data, &engine, gpu](const detail::SearchSize&) {
    auto made = std::make_unique<detail::DistributedEngine>(comm, data.X, data.y, gpu);
    engine = made.get();
    return made;
  };
  parts.deterministic_starts = [&data, &engine](std::size_t h) {
    const std::size_t n = engine->rows();
    std::vector<std::size_t> rows = detail::deterministic_sample_rows(n);
    if (rows.empty()) {
      rows.resize(n);
      std::iota(rows.begin(), rows.end(), std::size_t{0});
    }
    detail::ModelData sample;
    sample.intercept = data.intercept;
    engine->fetch_rows(rows, sample.X, sample.y);
    return detail::deterministic_starts_of_sample(sample, h, n);
  };
  parts.mcd = distributed_mcd_parts(comm);
  // The finish's reductions: the fit's (its order statistics on the GPUs), with each rank's QR
  // factors of the large row sets on its GPU, over the passes' device copy of [X y].
  if (gpu)
    parts.reductions = [&comm, &engine](const detail::Engine&) -> std::unique_ptr<detail::RowReductions> {
      auto all = std::make_unique<detail::DistributedReductions>(comm);
      all->select_on_gpu(true);
      if (const std::optional<detail::DeviceDesign> design = engine->local_device_design())
        all->factor_locally_with(detail::device_reductions(*design, kRankFactorsMinWork));
      return all;
    };
  // With the search on the GPUs the hosts mostly wait: the robust R^2's scale of y (a sample sort
  // across the ranks) runs meanwhile on a thread of each rank, over a communicator of its own.
  if (gpu && comm.all_reduce_min(distributed::threads_may_communicate() ? 1 : 0) == 1)
    parts.y_window_variance_beside = [&comm](const Eigen::VectorXd& y, std::size_t h) {
      auto side = std::make_shared<distributed::SideCommunicator>(comm);  // collective: here, on every rank
      return std::async(std::launch::async, [side, &y, h, device = distributed::current_gpu()] {
        distributed::use_gpu(device);
        detail::DistributedReductions reductions(side->get());
        reductions.select_on_gpu(true);
        return reductions.min_window_variance(y, h);
      });
    };
  return parts;
}

}  // namespace

FitResult fit_lts_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local,
                              const LtsOptions& options) {
  detail::Stopwatch total;
  detail::check_lts_options(options);
  detail::DistributedReductions all(comm);
  const detail::ModelData data = detail::make_model_data(X_local, y_local, options.intercept, {}, all);
  const bool gpu = passes_on_gpus(comm, options.backend, static_cast<std::uint64_t>(data.n()));
  all.select_on_gpu(gpu);  // the finish's order statistics on the GPUs the search uses
  detail::DistributedEngine* engine = nullptr;  // the search's engine, alive while the fit runs
  return detail::fit_lts_on(data, all, options, distributed_parts(comm, data, engine, gpu), total);
}

FitResult fit_lms_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local,
                              const LmsOptions& options) {
  detail::Stopwatch total;
  detail::check_lms_options(options);
  const detail::DistributedReductions all(comm);
  const detail::ModelData data = detail::make_model_data(X_local, y_local, options.intercept, {}, all);
  detail::DistributedEngine* engine = nullptr;
  return detail::fit_lms_on(data, all, options, distributed_parts(comm, data, engine), total);
}

McdResult fit_mcd_distributed(distributed::Communicator& comm, MatrixRef X_local, const McdOptions& options) {
  return detail::fit_mcd_on(X_local, detail::DistributedReductions(comm), options, distributed_mcd_parts(comm));
}

FitResult fit_ls_distributed(distributed::Communicator& comm, MatrixRef X_local, VectorRef y_local, bool intercept) {
  return detail::fit_ls_on(X_local, y_local, intercept, detail::DistributedReductions(comm), "mpi+cpu");
}

}  // namespace robustfit::regression
