// The distributed engine's passes over a rank's rows on its CPU (local_passes.hpp): Eigen, the
// sums in row order.
#include <algorithm>

#include "../all_rows.hpp"
#include "local_passes.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"

namespace robustfit::regression::detail {

namespace {

class CpuLocalPasses final : public LocalPasses {
 public:
  CpuLocalPasses(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) : X_(X), y_(y) {}

  std::string backend_name() const override { return "cpu"; }

  // A batch's squares and their shards' keys: about 2^24 values of this rank at once.
  std::size_t batch_limit() const override {
    return std::max<std::size_t>(1, (std::size_t{1} << 24) / std::max<std::size_t>(1, static_cast<std::size_t>(X_.rows())));
  }

  std::vector<std::unique_ptr<distributed::LocalShard>> squares(const Eigen::MatrixXd& betas) override {
    const auto m = static_cast<std::size_t>(betas.cols());
    squares_.resize(m);
    std::vector<std::unique_ptr<distributed::LocalShard>> shards;
    for (std::size_t j = 0; j < m; ++j) {
      squares_[j] = (y_ - X_ * betas.col(static_cast<Eigen::Index>(j))).array().square();
      shards.push_back(distributed::make_cpu_local_shard<double>(
          std::span<const double>(squares_[j].data(), static_cast<std::size_t>(squares_[j].size()))));
    }
    return shards;
  }

  std::vector<BelowThreshold> below(std::span<const double> t) override {
    std::vector<BelowThreshold> out(squares_.size());
    for (std::size_t j = 0; j < squares_.size(); ++j) {
      // Branch-free (about half the comparisons go either way): adding 0 to a sum of squares
      // changes nothing, so the sum is the one of the rows below t in row order.
      double sum = 0;
      std::uint64_t below = 0, ties = 0;
      for (const double s : squares_[j]) {
        const bool under = s < t[j];
        sum += under ? s : 0.0;
        below += under ? 1 : 0;
        ties += s == t[j] ? 1 : 0;
      }
      out[j] = {below, ties, sum};
    }
    return out;
  }

  void subset_grams(std::span<const double> t, std::span<const std::uint64_t> take, Eigen::MatrixXd& grams) override {
    const Eigen::Index q = X_.cols() + 1;
    grams.resize(q * q, static_cast<Eigen::Index>(squares_.size()));
    for (std::size_t j = 0; j < squares_.size(); ++j) {
      const std::vector<std::size_t> rows = subset_rows(j, t[j], 0, take[j]);
      Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), q);
      A.leftCols(q - 1) = X_(rows, Eigen::all);  // column by column: reads down each column
      A.col(q - 1) = y_(rows);
      Eigen::Map<Eigen::MatrixXd> gram(grams.col(static_cast<Eigen::Index>(j)).data(), q, q);
      gram.noalias() = A.transpose() * A;
    }
  }

  std::vector<std::size_t> subset_rows(std::size_t j, double t, std::uint64_t, std::uint64_t take) override {
    const std::span<const double> squares = values_of(squares_[j]);
    return selection::rows_below_and_ties_parallel(squares, t, selection::threshold_counts_parallel(squares, t), take);
  }

 private:
  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  std::vector<Eigen::VectorXd> squares_;
};

}  // namespace

std::unique_ptr<LocalPasses> make_cpu_local_passes(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  return std::make_unique<CpuLocalPasses>(X, y);
}

}  // namespace robustfit::regression::detail
