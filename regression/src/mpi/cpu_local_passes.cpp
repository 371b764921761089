// The distributed engine's passes over a rank's rows on its CPU (local_passes.hpp): the CPU
// engine's C-step kernels (cpu_lts_c_step.hpp) against the thresholds DIBMS chose over all ranks
// - the batch's squared residuals in one pass over X, the counts and sums below a threshold,
// the Gram matrices of gathered blocks of [X y] rows. Each candidate's row chunks are added in
// chunk order, so its numbers do not depend on the rank's thread count.
#include <algorithm>

#include "../cpu_lts_c_step.hpp"
#include "local_passes.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"

namespace robustfit::regression::detail {

namespace {

class CpuLocalPasses final : public LocalPasses {
 public:
  CpuLocalPasses(const Eigen::MatrixXd& X, const Eigen::VectorXd& y)
      : X_(X), y_(y), rows_(augmented_rows(X, y)), lts_(X_, y_, rows_, false) {}

  std::string backend_name() const override { return "cpu"; }

  // A batch's squares and their shards' keys: about 2^24 values of this rank at once.
  std::size_t batch_limit() const override {
    return std::max<std::size_t>(1, (std::size_t{1} << 24) / std::max<std::size_t>(1, static_cast<std::size_t>(X_.rows())));
  }

  std::vector<std::unique_ptr<distributed::LocalShard>> squares(const Eigen::MatrixXd& betas) override {
    const auto m = static_cast<std::size_t>(betas.cols()), n = rows();
    squares_.resize(m * n);
    candidates_ = m;
    // A slice of X's rows serves every candidate of the batch (the CPU engine's grouped squares).
    common::parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) { lts_.squares(betas, begin, end, squares_.data(), n); });
    std::vector<std::unique_ptr<distributed::LocalShard>> shards(m);
    common::parallel_for(m, [&](unsigned, std::size_t j) { shards[j] = distributed::make_cpu_local_shard<double>(of(j)); });
    return shards;
  }

  std::vector<BelowThreshold> below(std::span<const double> t) override {
    std::vector<BelowThreshold> out(candidates_);
    each_candidate([&](std::size_t j, bool all_threads) {
      const CountAtThreshold counted = lts_.count_at(of(j), t[j], all_threads);
      out[j] = {counted.below, counted.ties, counted.sum_below};
    });
    return out;
  }

  void subset_grams(std::span<const double> t, std::span<const std::uint64_t> take, Eigen::MatrixXd& grams) override {
    const Eigen::Index q = X_.cols() + 1;
    grams.resize(q * q, static_cast<Eigen::Index>(candidates_));
    each_candidate([&](std::size_t j, bool all_threads) {
      Eigen::Map<Eigen::MatrixXd> gram(grams.col(static_cast<Eigen::Index>(j)).data(), q, q);
      gram = lts_.gram_at(of(j), t[j], static_cast<std::size_t>(take[j]), all_threads);
      gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();  // both triangles
    });
  }

  std::vector<std::size_t> subset_rows(std::size_t j, double t, std::uint64_t, std::uint64_t take) override {
    const std::span<const double> squares = of(j);
    return selection::rows_below_and_ties_parallel(squares, t, selection::threshold_counts_parallel(squares, t), take);
  }

 private:
  std::size_t rows() const { return static_cast<std::size_t>(X_.rows()); }
  std::span<const double> of(std::size_t j) const { return std::span<const double>(squares_).subspan(j * rows(), rows()); }

  // body(j, all_threads) for every candidate of the batch: one candidate per thread, or each in
  // turn over all threads where that keeps more of them busy (candidates_in_turn, as the CPU
  // engine); the same numbers either way.
  template <class Body>
  void each_candidate(Body&& body) const {
    if (candidates_in_turn(candidates_, rows())) {
      for (std::size_t j = 0; j < candidates_; ++j) body(j, true);
      return;
    }
    common::parallel_for(candidates_, [&](unsigned, std::size_t j) { body(j, false); });
  }

  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  const RowMajorMatrix rows_;  // [X y] row-major (the Gram matrices' gathered rows)
  const CpuLtsCStep lts_;
  std::vector<double> squares_;  // the last batch's squares, candidate j's at [j n, (j + 1) n)
  std::size_t candidates_ = 0;
};

}  // namespace

std::unique_ptr<LocalPasses> make_cpu_local_passes(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  return std::make_unique<CpuLocalPasses>(X, y);
}

}  // namespace robustfit::regression::detail
