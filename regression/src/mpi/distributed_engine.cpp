#include "distributed_engine.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "../cpu_engine.hpp"
#include "../least_squares.hpp"
#include "distributed_window.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/common/stopwatch.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/distributed/selection.hpp"

namespace robustfit::regression::detail {

DistributedEngine::DistributedEngine(distributed::Communicator& comm, const Eigen::MatrixXd& X_local,
                                     const Eigen::VectorXd& y_local, bool gpu, std::size_t max_batch)
    : comm_(comm), X_(X_local), y_(y_local) {
  const std::uint64_t mine = static_cast<std::uint64_t>(X_.rows());
  const std::vector<std::uint64_t> sizes = comm_.all_gather(std::span<const std::uint64_t>(&mine, 1));
  first_row_.assign(1, 0);
  for (std::uint64_t size : sizes) first_row_.push_back(first_row_.back() + size);
  n_ = first_row_.back();
  // The host's own batches (FAST-MCD's distances, LMS windows): about 2^24 keys of the largest shard.
  std::size_t largest = 1;
  for (std::uint64_t size : sizes) largest = std::max<std::size_t>(largest, size);
  host_batch_ = std::max<std::size_t>(1, (std::size_t{1} << 24) / largest);
  // A rank that cannot use its GPU (no memory for X) fails here; the others stop with it.
  passes_ = comm_.agree([&] { return gpu ? make_cuda_local_passes(X_, y_) : make_cpu_local_passes(X_, y_); });
  // Thresholds of several candidates share DIBMS's collectives; every rank runs the same
  // batches: the smallest of the ranks' limits (on the CPU about 2^24 keys of the largest shard).
  std::uint64_t batch = std::min(passes_->batch_limit(), max_batch > 0 ? max_batch : passes_->batch_limit());
  comm_.all_reduce_min(std::span<std::uint64_t>(&batch, 1));
  batch_ = std::max<std::size_t>(1, batch);
  // Each candidate's bucket counts cross the network every DIBMS iteration: below 8192 rows, 2 n
  // buckets (at least 64) answer as exactly in as few iterations for far fewer bytes.
  dibms_.buckets = std::clamp<std::uint64_t>(std::bit_ceil(std::uint64_t{2} * n_), 64, dibms_.buckets);
}

void DistributedEngine::fetch_rows(std::span<const std::size_t> rows, Eigen::MatrixXd& X, Eigen::VectorXd& y) const {
  // Each rank sends its own requested rows in request order; the all-gather puts them in rank
  // order, so every rank knows where each row's values are. Bits travel unchanged (-0 stays -0).
  const auto rank = static_cast<std::size_t>(comm_.rank());
  const Eigen::Index p = X_.cols();
  std::vector<std::uint64_t> mine;
  for (std::size_t row : rows) {
    if (row < first_row_[rank] || row >= first_row_[rank + 1]) continue;
    const auto local = static_cast<Eigen::Index>(row - first_row_[rank]);
    for (Eigen::Index c = 0; c < p; ++c) mine.push_back(std::bit_cast<std::uint64_t>(X_(local, c)));
    mine.push_back(std::bit_cast<std::uint64_t>(y_(local)));
  }
  const std::vector<std::uint64_t> all = comm_.all_gather(mine);
  // Where rank r's rows start in `all`: the requested rows owned by the ranks before it.
  std::vector<std::size_t> start(first_row_.size(), 0);
  for (std::size_t row : rows) {
    const auto owner = static_cast<std::size_t>(std::upper_bound(first_row_.begin(), first_row_.end(), row) - first_row_.begin() - 1);
    ++start[owner + 1];
  }
  for (std::size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
  X.resize(static_cast<Eigen::Index>(rows.size()), p);
  y.resize(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto owner = static_cast<std::size_t>(std::upper_bound(first_row_.begin(), first_row_.end(), rows[i]) - first_row_.begin() - 1);
    const std::size_t at = start[owner]++ * static_cast<std::size_t>(p + 1);
    for (Eigen::Index c = 0; c < p; ++c) X(static_cast<Eigen::Index>(i), c) = std::bit_cast<double>(all[at + static_cast<std::size_t>(c)]);
    y(static_cast<Eigen::Index>(i)) = std::bit_cast<double>(all[at + static_cast<std::size_t>(p)]);
  }
}

template <class Each>
void DistributedEngine::for_each_batch(const Eigen::MatrixXd& betas, std::size_t h, Each&& each,
                                       const std::vector<std::optional<distributed::DibmsBracket>>* brackets) {
  const auto m = static_cast<std::size_t>(betas.cols());
  for (std::size_t first = 0; first < m; first += batch_) {
    const std::size_t count = std::min(batch_, m - first);
    // A NaN (an overflow on this rank's rows) fails the shard here only: agreed, so that no
    // rank waits in DIBMS's collectives for one that left.
    common::Stopwatch watch;
    const std::vector<std::unique_ptr<distributed::LocalShard>> owned = comm_.agree(
        [&] { return passes_->squares(betas.middleCols(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(count))); });
    common::trace("batch squares", watch.lap(), static_cast<long long>(count));
    std::vector<distributed::LocalShard*> shards;
    for (const auto& shard : owned) shards.push_back(shard.get());
    const std::vector<std::vector<std::uint64_t>> ks(count, std::vector<std::uint64_t>{h - 1});
    // Every candidate of the batch with a bracket (the same on every rank): DIBMS from them.
    std::vector<distributed::DibmsBracket> around;
    for (std::size_t c = 0; brackets != nullptr && c < count && (*brackets)[first + c]; ++c) around.push_back(*(*brackets)[first + c]);
    std::vector<double> t;
    for (const std::vector<double>& kth : around.size() == count ? distributed::dibms_select_bracketed(comm_, shards, ks, around, dibms_)
                                                                 : distributed::dibms_select_batched(comm_, shards, ks, dibms_))
      t.push_back(kth[0]);
    common::trace("batch dibms", watch.lap(), static_cast<long long>(count));
    each(first, t);
    common::trace("batch rest", watch.lap(), static_cast<long long>(count));
  }
}

namespace {

// Ties a candidate takes on this rank: of the needed = h - below (over all ranks) tied rows,
// those not taken by the ranks before (global row order, as one process breaks ties).
std::uint64_t ties_to_take(std::size_t h, std::uint64_t below_all, std::uint64_t ties_before, std::uint64_t ties) {
  const std::uint64_t needed = h - below_all;
  return needed > ties_before ? std::min(needed - ties_before, ties) : 0;
}

}  // namespace

std::vector<double> DistributedEngine::hth_smallest(const std::vector<Eigen::VectorXd>& values, std::size_t h) const {
  const std::size_t m = values.size();
  std::vector<double> out;
  for (std::size_t first = 0; first < m; first += host_batch_) {
    const std::size_t last = std::min(m, first + host_batch_);
    // A NaN (an overflow on this rank's rows) fails the shard here only: agreed, so that no
    // rank waits in DIBMS's collectives for one that left.
    std::vector<std::unique_ptr<distributed::LocalShard>> owned = comm_.agree([&] {
      std::vector<std::unique_ptr<distributed::LocalShard>> made(last - first);
      common::parallel_for(last - first, [&](unsigned, std::size_t i) {
        const Eigen::VectorXd& v = values[first + i];
        made[i] = distributed::make_cpu_local_shard<double>(std::span<const double>(v.data(), static_cast<std::size_t>(v.size())));
      });
      return made;
    });
    std::vector<distributed::LocalShard*> shards;
    for (const auto& shard : owned) shards.push_back(shard.get());
    const std::vector<std::vector<std::uint64_t>> ks(last - first, std::vector<std::uint64_t>{h - 1});
    for (const std::vector<double>& t : distributed::dibms_select_batched(comm_, shards, ks, dibms_)) out.push_back(t[0]);
  }
  return out;
}

std::vector<std::vector<Eigen::Index>> DistributedEngine::h_subsets(const std::vector<Eigen::VectorXd>& values,
                                                                    const std::vector<double>& thresholds,
                                                                    std::size_t h) const {
  const std::size_t m = values.size();
  std::vector<std::uint64_t> below(m, 0), ties(m, 0);
  common::parallel_for(m, [&](unsigned, std::size_t j) {
    for (double v : values[j]) below[j] += v < thresholds[j], ties[j] += v == thresholds[j];
  });
  std::vector<std::uint64_t> ties_before = ties;
  comm_.exclusive_sum(ties_before);  // ties on the ranks before: global row order
  comm_.all_reduce_sum(below);
  std::vector<std::vector<Eigen::Index>> rows(m);
  common::parallel_for(m, [&](unsigned, std::size_t j) {
    std::uint64_t take = ties_to_take(h, below[j], ties_before[j], ties[j]);
    for (Eigen::Index i = 0; i < values[j].size(); ++i) {
      const double v = values[j](i);
      if (v < thresholds[j] || (v == thresholds[j] && take > 0 && take--)) rows[j].push_back(i);
    }
  });
  return rows;
}

std::unique_ptr<Engine> DistributedEngine::subsets_engine(const SubsetMatrix& subsets, SubsetMatrix& local) const {
  std::vector<std::size_t> rows(static_cast<std::size_t>(subsets.size()));
  for (Eigen::Index j = 0; j < subsets.cols(); ++j)
    for (Eigen::Index r = 0; r < subsets.rows(); ++r)
      rows[static_cast<std::size_t>(j * subsets.rows() + r)] = static_cast<std::size_t>(subsets(r, j));
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  fetch_rows(rows, X, y);
  local.resize(subsets.rows(), subsets.cols());
  for (Eigen::Index j = 0; j < subsets.cols(); ++j)
    for (Eigen::Index r = 0; r < subsets.rows(); ++r) local(r, j) = j * subsets.rows() + r;
  return std::make_unique<CpuEngine>(std::move(X), std::move(y));
}

void DistributedEngine::solve_elemental(const SubsetMatrix& subsets, Eigen::MatrixXd& betas, std::vector<std::uint8_t>& ok) {
  // The CPU engine's solve on the subsets' rows.
  SubsetMatrix local;
  subsets_engine(subsets, local)->solve_elemental(local, betas, ok);
}

void DistributedEngine::lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) {
  // sum_{r^2 < t} r^2 + (h - #{r^2 < t}) t, with t the h-th smallest square: the sums and
  // counts of all candidates in one all-reduce.
  const auto m = static_cast<std::size_t>(betas.cols());
  std::vector<double> sums(2 * m, 0.0), t(m);
  for_each_batch(betas, h, [&](std::size_t first, const std::vector<double>& thresholds) {
    const std::vector<BelowThreshold> below = passes_->below(thresholds);
    for (std::size_t c = 0; c < thresholds.size(); ++c) {
      t[first + c] = thresholds[c];
      sums[2 * (first + c)] = below[c].sum;
      sums[2 * (first + c) + 1] = static_cast<double>(below[c].below);
    }
  });
  comm_.all_reduce_sum(sums);
  for (std::size_t j = 0; j < m; ++j) out[j] = sums[2 * j] + (static_cast<double>(h) - sums[2 * j + 1]) * t[j];
}

namespace {

std::size_t hash_of(const Eigen::VectorXd& beta) {
  return std::hash<std::string_view>{}(
      std::string_view(reinterpret_cast<const char*>(beta.data()), static_cast<std::size_t>(beta.size()) * sizeof(double)));
}

}  // namespace

std::vector<std::optional<distributed::DibmsBracket>> DistributedEngine::brackets_of(const Eigen::MatrixXd& betas,
                                                                                  std::vector<double>& last_t) const {
  std::unordered_multimap<std::size_t, std::size_t> last_by_hash;
  for (std::size_t k = 0; k < last_thresholds_.size(); ++k) last_by_hash.emplace(hash_of(last_thresholds_[k].beta), k);
  std::vector<std::optional<distributed::DibmsBracket>> brackets(static_cast<std::size_t>(betas.cols()));
  last_t.assign(brackets.size(), -1.0);
  for (std::size_t j = 0; j < brackets.size(); ++j) {
    const Eigen::VectorXd beta = betas.col(static_cast<Eigen::Index>(j));
    const auto [from, to] = last_by_hash.equal_range(hash_of(beta));
    for (auto it = from; it != to; ++it) {
      const LastThreshold& last = last_thresholds_[it->second];
      if (last.beta != beta || !(last.t > 0) || !std::isfinite(last.t)) continue;
      // A C-step moves the threshold by about what the last one did (converging: less); the
      // bracket allows four times that, at least 2 % and at most a factor of 2 (unknown: 2).
      // Missed, DIBMS goes on from the buckets below or above it: exact, a few counts more.
      const double factor = 1 + (last.step < 0 ? 1.0 : std::clamp(4 * last.step, 0.02, 1.0));
      brackets[j] = distributed::DibmsBracket{n_, last.t / factor, last.t * factor};
      last_t[j] = last.t;
      break;
    }
  }
  return brackets;
}

void DistributedEngine::c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) {
  const Eigen::Index p = X_.cols(), q = p + 1;
  const auto stride = static_cast<std::size_t>(q * q + 1);
  std::vector<double> last_t;
  const std::vector<std::optional<distributed::DibmsBracket>> brackets = brackets_of(betas, last_t);
  std::vector<LastThreshold> produced(static_cast<std::size_t>(betas.cols()));
  for_each_batch(betas, h, [&](std::size_t first, const std::vector<double>& t) {
    const std::size_t count = t.size();
    for (std::size_t c = 0; c < count; ++c) {
      const double last = last_t[first + c];
      produced[first + c].t = t[c];
      produced[first + c].step = last > 0 ? std::abs(t[c] - last) / last : -1.0;
    }
    // The h-subset: the squares below t, then the ties in global row order (an exclusive sum
    // of the ranks' tie counts) until h over all ranks.
    common::Stopwatch watch;
    const std::vector<BelowThreshold> below = passes_->below(t);
    common::trace("c_step below", watch.lap());
    std::vector<std::uint64_t> below_all(count), ties_before(count), take(count);
    for (std::size_t c = 0; c < count; ++c) below_all[c] = below[c].below, ties_before[c] = below[c].ties;
    comm_.exclusive_sum(ties_before);
    comm_.all_reduce_sum(below_all);
    common::trace("c_step tie sums", watch.lap());
    for (std::size_t c = 0; c < count; ++c) take[c] = ties_to_take(h, below_all[c], ties_before[c], below[c].ties);
    // Its augmented Gram matrices and trimmed sums, the batch's candidates in one all-reduce.
    Eigen::MatrixXd grams;
    passes_->subset_grams(t, take, grams);
    common::trace("c_step grams", watch.lap());
    std::vector<double> reduced(count * stride, 0.0);
    for (std::size_t c = 0; c < count; ++c) {
      std::copy_n(grams.col(static_cast<Eigen::Index>(c)).data(), q * q, &reduced[c * stride]);
      reduced[c * stride + static_cast<std::size_t>(q * q)] = below[c].sum + static_cast<double>(take[c]) * t[c];
    }
    comm_.all_reduce_sum(reduced);
    common::trace("c_step reduce", watch.lap());
    for (std::size_t c = 0; c < count; ++c) {
      const Eigen::Map<const Eigen::MatrixXd> gram(&reduced[c * stride], q, q);
      objective_before[first + c] = reduced[c * stride + static_cast<std::size_t>(q * q)];
      std::optional<Eigen::VectorXd> beta = solve_normal_equations(gram.topLeftCorner(p, p), gram.col(p).head(p));
      if (!beta) {  // the same decision on every rank: QR on the h rows, fetched from their owners
        std::vector<std::uint64_t> mine;
        for (std::size_t row : passes_->subset_rows(c, t[c], below[c].below, take[c]))
          mine.push_back(row + first_row_[static_cast<std::size_t>(comm_.rank())]);
        const std::vector<std::uint64_t> all = comm_.all_gather(mine);
        const std::vector<std::size_t> rows(all.begin(), all.end());
        Eigen::MatrixXd X;
        Eigen::VectorXd y;
        fetch_rows(rows, X, y);
        std::vector<std::size_t> every;
        beta = ls_on_rows(X, y, every);
      }
      if (beta) betas.col(static_cast<Eigen::Index>(first + c)) = *beta;
      produced[first + c].beta = betas.col(static_cast<Eigen::Index>(first + c));
    }
  }, &brackets);
  last_thresholds_ = std::move(produced);
}

std::unique_ptr<Engine> DistributedEngine::restrict_to(std::span<const std::size_t> rows) const {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  fetch_rows(rows, X, y);
  return std::make_unique<CpuEngine>(std::move(X), std::move(y));
}

void DistributedEngine::lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                                       std::span<double> out, std::size_t /*needed: every objective exact*/) {
  const auto m = static_cast<std::size_t>(betas.cols());
  if (!adjust_intercept) {  // the h-th smallest square, by batched DIBMS
    for_each_batch(betas, h, [&](std::size_t first, const std::vector<double>& t) { std::copy(t.begin(), t.end(), out.begin() + static_cast<std::ptrdiff_t>(first)); });
    return;
  }
  // The residuals without the intercept; the best intercept is the center of their shortest
  // window of h (distributed_window.hpp), a batch of candidates per sample sort.
  const Eigen::Index p = X_.cols();
  for (std::size_t first = 0; first < m; first += host_batch_) {
    const std::size_t last = std::min(m, first + host_batch_);
    std::vector<Eigen::VectorXd> residuals(last - first);
    for (std::size_t j = first; j < last; ++j)
      residuals[j - first].noalias() = y_ - X_.rightCols(p - 1) * betas.col(static_cast<Eigen::Index>(j)).tail(p - 1);
    const std::vector<ShortestWindow> windows = shortest_windows(comm_, residuals, h, passes_->backend_name() == "cuda");
    for (std::size_t j = first; j < last; ++j) {
      betas(0, static_cast<Eigen::Index>(j)) = windows[j - first].center;
      out[j] = windows[j - first].half_width * windows[j - first].half_width;
    }
  }
}

void DistributedEngine::subset_grams(const SubsetMatrix& subsets, Eigen::MatrixXd& grams) {
  // The CPU engine's Gram matrices of the subsets' rows: the same matrices as one process, bit
  // for bit.
  SubsetMatrix local;
  subsets_engine(subsets, local)->subset_grams(local, grams);
}

void DistributedEngine::mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                                   Eigen::MatrixXd& grams) {
  const Eigen::Index p = X_.cols(), q = p + 1;
  const auto m = static_cast<std::size_t>(centers.cols());
  // Squared distances |W x_i - W c|^2 of this rank's rows, as the CPU engine computes them.
  std::vector<Eigen::VectorXd> distances(m);
  common::parallel_for_dynamic(m, [&](unsigned, std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    const Eigen::MatrixXd W = whiteners.middleCols(col * p, p);
    const Eigen::RowVectorXd shift = (W * centers.col(col)).transpose();
    const Eigen::MatrixXd Y = X_ * W.transpose();
    distances[j].resize(X_.rows());
    auto d = distances[j].array();
    d = (Y.col(0).array() - shift(0)).square();
    for (Eigen::Index k = 1; k < p; ++k) d += (Y.col(k).array() - shift(k)).square();
  });
  // The h smallest over all ranks (ties in global row order); their Gram matrices summed over
  // the ranks, all candidates in one all-reduce.
  const std::vector<double> t = hth_smallest(distances, h);
  const std::vector<std::vector<Eigen::Index>> subsets = h_subsets(distances, t, h);
  grams.setZero(q * q, static_cast<Eigen::Index>(m));
  common::parallel_for_dynamic(m, [&](unsigned, std::size_t j) {
    Eigen::MatrixXd A(static_cast<Eigen::Index>(subsets[j].size()), q);
    for (std::size_t r = 0; r < subsets[j].size(); ++r) A.row(static_cast<Eigen::Index>(r)) << X_.row(subsets[j][r]), y_(subsets[j][r]);
    Eigen::Map<Eigen::MatrixXd> G(grams.col(static_cast<Eigen::Index>(j)).data(), q, q);
    G.selfadjointView<Eigen::Lower>().rankUpdate(A.transpose());
  });
  comm_.all_reduce_sum(std::span<double>(grams.data(), static_cast<std::size_t>(grams.size())));
}

}  // namespace robustfit::regression::detail
