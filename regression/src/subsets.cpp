#include "subsets.hpp"

#include "robustfit/common/parallel.hpp"
#include "robustfit/regression/options.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace robustfit::regression {

double elemental_subset_count(std::size_t n, std::size_t p) { return detail::binomial(n, p); }

}  // namespace robustfit::regression

namespace robustfit::regression::detail {

double binomial(std::size_t n, std::size_t p) {
  if (p > n) return 0;
  p = std::min(p, n - p);
  double value = 1;
  for (std::size_t i = 1; i <= p; ++i) value = value * static_cast<double>(n - p + i) / static_cast<double>(i);
  return value;
}

SubsetMatrix draw_subsets(Random& random, std::size_t n, std::size_t p, std::size_t count) {
  SubsetMatrix subsets(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(count));
  std::vector<std::int64_t> chosen;
  chosen.reserve(p);
  for (std::size_t j = 0; j < count; ++j) {
    chosen.clear();
    // Floyd: for i in [n-p, n) pick t in [0, i]; take t unless already chosen, else i.
    for (std::size_t i = n - p; i < n; ++i) {
      const auto t = static_cast<std::int64_t>(random.below(i + 1));
      const bool taken = std::find(chosen.begin(), chosen.end(), t) != chosen.end();
      chosen.push_back(taken ? static_cast<std::int64_t>(i) : t);
    }
    std::sort(chosen.begin(), chosen.end());
    for (std::size_t r = 0; r < p; ++r) subsets(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)) = chosen[r];
  }
  return subsets;
}

SubsetMatrix enumerate_subsets(std::size_t n, std::size_t p) {
  SubsetEnumerator all(n, p);
  return all.next(static_cast<std::size_t>(all.total()));
}

namespace {

// C(n, p) exactly: each partial product C(n - p + i, i) is an integer. Only called for counts
// below max_all_subsets (require_enumerable), far from overflow.
std::uint64_t exact_binomial(std::size_t n, std::size_t p) {
  if (p > n) return 0;
  p = std::min(p, n - p);
  std::uint64_t value = 1;
  for (std::size_t i = 1; i <= p; ++i) value = value * (n - p + i) / i;
  return value;
}

}  // namespace

SubsetEnumerator::SubsetEnumerator(std::size_t n, std::size_t p)
    : n_(n), p_(p), total_(exact_binomial(n, p)), current_(p) {
  for (std::size_t r = 0; r < p; ++r) current_[r] = static_cast<std::int64_t>(r);
}

SubsetMatrix SubsetEnumerator::next(std::size_t count) {
  const auto m = static_cast<std::size_t>(std::min<std::uint64_t>(count, remaining()));
  SubsetMatrix subsets(static_cast<Eigen::Index>(p_), static_cast<Eigen::Index>(m));
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t r = 0; r < p_; ++r) subsets(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(j)) = current_[r];
    ++visited_;
    // Next combination: bump the rightmost index that can still move, reset those after it.
    std::size_t r = p_;
    while (r > 0 && current_[r - 1] == static_cast<std::int64_t>(n_ - p_ + r - 1)) --r;
    if (r == 0) continue;  // the last subset: only reached when visited_ == total_
    ++current_[r - 1];
    for (std::size_t s = r; s < p_; ++s) current_[s] = current_[s - 1] + 1;
  }
  return subsets;
}

void require_enumerable(std::size_t n, std::size_t p) {
  const double count = binomial(n, p);
  if (count > max_all_subsets) {
    std::ostringstream text;
    text << "every elemental subset (subsets = all) is C(n, p) = C(" << n << ", " << p << ") = " << std::setprecision(4)
         << count << " subsets, more than the limit of " << max_all_subsets
         << ": give a number of random subsets instead";
    throw std::invalid_argument(text.str());
  }
}

void solve_elemental_systems(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const SubsetMatrix& subsets,
                             Eigen::MatrixXd& betas, std::vector<std::uint8_t>& ok) {
  const Eigen::Index p = X.cols();
  betas.resize(p, subsets.cols());
  ok.assign(static_cast<std::size_t>(subsets.cols()), 0);
  common::parallel_for(static_cast<std::size_t>(subsets.cols()), [&](unsigned, std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    Eigen::MatrixXd A(p, p);
    Eigen::VectorXd b(p);
    for (Eigen::Index r = 0; r < p; ++r) {
      const auto row = static_cast<Eigen::Index>(subsets(r, col));
      A.row(r) = X.row(row);
      b(r) = y(row);
    }
    // Full pivoting gives a reliable rank decision for these small systems.
    Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
    lu.setThreshold(1e-12);
    if (lu.isInvertible()) {
      betas.col(col) = lu.solve(b);
      ok[j] = betas.col(col).allFinite() ? 1 : 0;
    }
  });
}

namespace {

// Appends the regular candidates of one solved batch.
void keep_regular(const Eigen::MatrixXd& betas, const std::vector<std::uint8_t>& ok,
                  std::vector<Eigen::VectorXd>& kept, std::size_t limit) {
  for (std::size_t j = 0; j < ok.size() && kept.size() < limit; ++j)
    if (ok[j]) kept.emplace_back(betas.col(static_cast<Eigen::Index>(j)));
}

Eigen::MatrixXd as_matrix(const std::vector<Eigen::VectorXd>& columns, std::size_t p) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(columns.size()));
  for (std::size_t j = 0; j < columns.size(); ++j) m.col(static_cast<Eigen::Index>(j)) = columns[j];
  return m;
}

[[noreturn]] void no_regular_subset(std::size_t tried, std::size_t p) {
  throw std::invalid_argument("no non-singular elemental subset found among " + std::to_string(tried) +
                              " subsets of " + std::to_string(p) +
                              " rows: the design matrix is (nearly) degenerate on most subsets");
}

}  // namespace

Candidates random_elemental_fits(Engine& engine, Random& random, std::size_t count) {
  const std::size_t n = engine.rows(), p = engine.cols();
  // Singular draws are redrawn; on designs that are singular on most subsets (e.g. dummy
  // columns) give up after 50x the requested number and use what was found.
  const std::size_t max_tries = 50 * count + 1000;
  Candidates result;
  std::vector<Eigen::VectorXd> kept;
  Eigen::MatrixXd betas;
  std::vector<std::uint8_t> ok;
  while (kept.size() < count && result.tried < max_tries) {
    const std::size_t batch = std::min(count - kept.size(), max_tries - result.tried);
    engine.solve_elemental(draw_subsets(random, n, p, batch), betas, ok);
    result.tried += batch;
    keep_regular(betas, ok, kept, count);
  }
  result.singular = result.tried - kept.size();
  if (kept.empty()) no_regular_subset(result.tried, p);
  result.betas = as_matrix(kept, p);
  return result;
}

Candidates exhaustive_elemental_fits(Engine& engine) {
  Candidates result;
  const SubsetMatrix all = enumerate_subsets(engine.rows(), engine.cols());
  std::vector<std::uint8_t> ok;
  engine.solve_elemental(all, result.betas, ok);
  std::vector<Eigen::VectorXd> kept;
  keep_regular(result.betas, ok, kept, ok.size());
  result.tried = ok.size();
  result.singular = ok.size() - kept.size();
  if (kept.empty()) no_regular_subset(result.tried, engine.cols());
  result.betas = as_matrix(kept, engine.cols());
  return result;
}

}  // namespace robustfit::regression::detail
