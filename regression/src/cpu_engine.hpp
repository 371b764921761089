#pragma once
// The CPU engine: Eigen linear algebra and the CPU selection module, candidates spread
// over all hardware threads.
#include <Eigen/Core>
#include <optional>

#include "cpu_lts_c_step.hpp"
#include "design_matrix.hpp"
#include "engine.hpp"
#include "robustfit/selection/algorithm.hpp"

namespace robustfit::regression::detail {

class CpuEngine final : public Engine {
 public:
  // `selection` picks how each candidate's order statistic is found: std::nth_element
  // (automatic, nth_element) or a full sort (sort & choose); the capability table's CPU cell.
  // Any other algorithm throws std::invalid_argument with the table's message.
  // Owns its data (FAST-LTS subsamples).
  CpuEngine(Eigen::MatrixXd X, Eigen::VectorXd y, selection::Algorithm selection = selection::Algorithm::automatic);
  // Refers to data.X and data.y without copying them: `data` must outlive the engine.
  explicit CpuEngine(const ModelData& data, selection::Algorithm selection = selection::Algorithm::automatic);
  explicit CpuEngine(const ModelData&& data, selection::Algorithm selection = selection::Algorithm::automatic) = delete;
  CpuEngine(const CpuEngine&) = delete;
  CpuEngine& operator=(const CpuEngine&) = delete;

  std::string backend_name() const override { return "cpu"; }
  std::string selection_name() const override { return sort_ ? "sort" : "nth-element"; }
  std::size_t rows() const override { return static_cast<std::size_t>(X_.rows()); }
  std::size_t cols() const override { return static_cast<std::size_t>(X_.cols()); }

  void solve_elemental(const SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                       std::vector<std::uint8_t>& ok) override;
  void lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) override;
  void c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) override;
  void lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                      std::span<double> out, std::size_t needed) override;
  std::unique_ptr<Engine> restrict_to(std::span<const std::size_t> rows) const override;
  void subset_grams(const SubsetMatrix& rows, Eigen::MatrixXd& grams) override;
  void mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                  Eigen::MatrixXd& grams) override;

 private:
  // LS on an h-subset for a C-step: normal equations (Cholesky) from its Gram matrix, falling
  // back to QR on its rows when that is not safely positive definite. nullopt when rank deficient.
  std::optional<Eigen::VectorXd> refit(std::span<const double> squares, const HSubset& subset, std::size_t h) const;
  // Calls body(candidate, its n squared residuals, all_threads, scratch) for every column of
  // betas: candidates in parallel (on large data with their residuals kGroup at a time) unless
  // one candidate's row chunks keep more threads busy, then one after the other on all threads.
  // The numbers are the same on every path.
  template <class Body>
  void for_candidates(const Eigen::MatrixXd& betas, Body&& body);
  static constexpr std::size_t kGroupRows = 16384, kGroup = 8;

  // One MCD C-step of candidate j (mcd_c_step); `parallel_chunks` spreads its row chunks
  // over the threads (one candidate), else they run in turn (candidates run in parallel). The
  // arithmetic is the same either way.
  void mcd_c_step_one(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                      std::size_t j, bool parallel_chunks, Eigen::MatrixXd& grams) const;

  Eigen::MatrixXd own_X_;  // empty when the engine refers to a ModelData
  Eigen::VectorXd own_y_;
  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  RowMajorMatrix rows_;  // [X y] row-major
  bool sort_ = false;  // sort & choose instead of std::nth_element
  CpuLtsCStep lts_;
  std::vector<CStepScratch> scratch_;  // one per worker
  std::vector<double> group_squares_;  // kGroup candidates' squared residuals
  // The h-subsets behind the coefficients that the last c_step produced: a C-step on those
  // coefficients updates their Gram matrices instead of computing them afresh.
  struct LastSubset {
    Eigen::VectorXd beta;
    SubsetState state;
  };
  std::vector<LastSubset> last_subsets_;
};

}  // namespace robustfit::regression::detail
