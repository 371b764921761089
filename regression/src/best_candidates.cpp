#include "best_candidates.hpp"

#include <algorithm>
#include <cmath>

namespace robustfit::regression::detail {

void BestCandidates::offer(const Eigen::Ref<const Eigen::VectorXd>& candidate, double objective, std::uint64_t index) {
  // NaN objectives (a degenerate candidate) never rank.
  if (capacity_ == 0 || std::isnan(objective)) return;
  auto before = [](double a_objective, std::uint64_t a_index, const Kept& b) {
    return a_objective < b.objective || (a_objective == b.objective && a_index < b.index);
  };
  if (kept_.size() == capacity_ && !before(objective, index, kept_.back())) return;
  const auto at = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& k) { return before(objective, index, k); });
  // A bitwise duplicate sits among the kept ones with the same objective (before `at`: the
  // stream comes in index order).
  for (auto k = at; k != kept_.begin();) {
    --k;
    if (k->objective != objective) break;
    if (k->candidate == candidate) return;
  }
  kept_.insert(at, Kept{candidate, objective, index});
  if (kept_.size() > capacity_) kept_.pop_back();
}

Eigen::MatrixXd BestCandidates::columns() const {
  const auto rows = kept_.empty() ? Eigen::Index{0} : kept_.front().candidate.size();
  Eigen::MatrixXd out(rows, static_cast<Eigen::Index>(kept_.size()));
  for (std::size_t j = 0; j < kept_.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = kept_[j].candidate;
  return out;
}

std::vector<double> BestCandidates::objectives() const {
  std::vector<double> out;
  for (const Kept& k : kept_) out.push_back(k.objective);
  return out;
}

std::vector<std::uint64_t> BestCandidates::indices() const {
  std::vector<std::uint64_t> out;
  for (const Kept& k : kept_) out.push_back(k.index);
  return out;
}

}  // namespace robustfit::regression::detail
