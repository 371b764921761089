#pragma once
// The distributed regression engine: rows spread over the ranks of a communicator (rank r owns
// a contiguous block of rows, in rank order), the same Engine calls as one process, so the
// FAST-LTS search runs unchanged on it (lts_search). Every rank calls every method with the
// same arguments (the drivers draw the same subsets from the same seed on every rank). The
// passes over this rank's rows for LTS (squares, counts below a threshold, h-subset Gram
// matrices) run on the rank's CPU or GPU (local_passes.hpp), in batches of candidates.
//   solve_elemental  the subsets' rows are fetched from their owners (one all-gather), then
//                    solved as the CPU engine solves them: the same coefficients as one process;
//   lts_objectives   residuals stay local (on the rank's GPU with CUDA passes); the h-th
//                    smallest square by DIBMS over them; the trimmed sums are all-reduced;
//   c_step           the h-subset is the squares below the DIBMS threshold plus ties in global
//                    row order (a prefix sum of tie counts); its normal equations [X y]^T [X y]
//                    are all-reduced and solved on every rank (QR on the gathered h rows when
//                    they are ill-conditioned, as the CPU engine falls back);
//   restrict_to      the subsample's rows are fetched to every rank: a CpuEngine (at most the
//                    nested search's 1500 rows);
//   lms_objectives   the h-th smallest square by batched DIBMS (the passes' squares); with the
//                    intercept adjusted, on the host: the exact shortest window of h residuals
//                    over all ranks per candidate
//                    (distributed_window.hpp: a sample sort, 16 n / q bytes per rank and candidate);
//   subset_grams     (FAST-MCD) the starts' rows fetched from their owners, then the CPU
//                    engine's Gram matrices of them: bit for bit one process's;
//   mcd_c_step       (FAST-MCD, on the host whatever the passes) distances stay local; the h-th
//                    smallest by batched DIBMS, ties in global row order as c_step's; the h
//                    rows' Gram matrices all-reduced.
#include <Eigen/Core>
#include <memory>
#include <optional>
#include <vector>

#include "../engine.hpp"
#include "local_passes.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/selection.hpp"

namespace robustfit::regression::detail {

class DistributedEngine final : public Engine {
 public:
  // X_local, y_local: this rank's rows (X with its intercept column, as ModelData's X); the LTS
  // passes on this rank's CPU, or with gpu on its current CUDA device (a rank may differ from
  // another). max_batch > 0 bounds the candidates per batch (tests). Collective.
  // X_local and y_local are referred to, not copied (a copy of 10^7 x 11 doubles cost ~0.3 s):
  // they must outlive the engine.
  DistributedEngine(distributed::Communicator& comm, const Eigen::MatrixXd& X_local, const Eigen::VectorXd& y_local,
                    bool gpu = false, std::size_t max_batch = 0);
  // Temporaries (a block of rows, say) would be gone before the engine: refused.
  DistributedEngine(distributed::Communicator&, Eigen::MatrixXd&&, const Eigen::VectorXd&, bool = false, std::size_t = 0) = delete;
  DistributedEngine(distributed::Communicator&, const Eigen::MatrixXd&, Eigen::VectorXd&&, bool = false, std::size_t = 0) = delete;

  // "mpi+cpu" | "mpi+cuda": this rank's passes.
  std::string backend_name() const override { return "mpi+" + passes_->backend_name(); }
  std::string selection_name() const override { return "dibms"; }
  // This rank's X and y on its GPU, where the passes run there (the finish's QR factors).
  std::optional<DeviceDesign> local_device_design() const { return passes_->device_design(); }
  std::size_t rows() const override { return n_; }
  std::size_t cols() const override { return static_cast<std::size_t>(X_.cols()); }

  void solve_elemental(const SubsetMatrix& subsets, Eigen::MatrixXd& betas, std::vector<std::uint8_t>& ok) override;
  void lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) override;
  void c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) override;
  void lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept, std::span<double> out,
                      std::size_t needed) override;
  std::unique_ptr<Engine> restrict_to(std::span<const std::size_t> rows) const override;
  void subset_grams(const SubsetMatrix& rows, Eigen::MatrixXd& grams) override;
  void mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                  Eigen::MatrixXd& grams) override;

  // Rows of the whole design (global numbers, any order, repeats allowed) on every rank.
  // Collective, the same rows on every rank.
  void fetch_rows(std::span<const std::size_t> rows, Eigen::MatrixXd& X, Eigen::VectorXd& y) const;

 private:
  // The rows of every subset (column) fetched from their owners, as a CPU engine whose row
  // j * subsets.rows() + r is row r of subset j; `local` receives those row numbers.
  std::unique_ptr<Engine> subsets_engine(const SubsetMatrix& subsets, SubsetMatrix& local) const;
  // For each batch of batch_ candidates of betas: this rank's squares (passes_->squares), their
  // h-th smallest over all ranks (one batched DIBMS), then each(first, thresholds) while the
  // passes hold that batch's squares.
  // brackets (c_step's), when given, start DIBMS for the candidates that have one.
  template <class Each>
  void for_each_batch(const Eigen::MatrixXd& betas, std::size_t h, Each&& each,
                      const std::vector<std::optional<distributed::DibmsBracket>>* brackets = nullptr);
  // For each candidate of betas that the last c_step produced: a bracket around its last
  // threshold (into last_t; < 0 for the others), as wide as that threshold's last relative
  // change allows.
  std::vector<std::optional<distributed::DibmsBracket>> brackets_of(const Eigen::MatrixXd& betas, std::vector<double>& last_t) const;
  // The h-th smallest of each candidate's values over all ranks (batched DIBMS).
  std::vector<double> hth_smallest(const std::vector<Eigen::VectorXd>& values, std::size_t h) const;
  // Each candidate's h-subset on this rank (local rows, ascending): the values below its
  // threshold, then the ties in global row order until h over all ranks (smallest_h's rows).
  std::vector<std::vector<Eigen::Index>> h_subsets(const std::vector<Eigen::VectorXd>& values,
                                                   const std::vector<double>& thresholds, std::size_t h) const;

  distributed::Communicator& comm_;
  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  std::size_t n_ = 0;
  std::vector<std::size_t> first_row_;  // first global row of each rank, and n last
  std::size_t batch_ = 1;       // candidates of the passes whose thresholds are selected together
  std::size_t host_batch_ = 1;  // the same for the host's values (FAST-MCD, LMS windows)
  distributed::DibmsOptions dibms_;
  std::unique_ptr<LocalPasses> passes_;  // over X_ and y_
  // The candidates the last c_step produced, with the thresholds of the h-subsets they were fit
  // to and those thresholds' relative change (< 0: unknown): the next C-step's DIBMS starts
  // from a bracket around them.
  struct LastThreshold {
    Eigen::VectorXd beta;
    double t = 0, step = -1;
  };
  std::vector<LastThreshold> last_thresholds_;
};

}  // namespace robustfit::regression::detail
