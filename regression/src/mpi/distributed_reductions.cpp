#include "distributed_reductions.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>
#include <utility>

#include "../all_rows.hpp"
#include "distributed_window.hpp"
#include "local_sort.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/common/stopwatch.hpp"
#include "robustfit/distributed/selection.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"

namespace robustfit::regression::detail {
namespace {

// The positions of rank `from`'s sorted block [first[from], first[from + 1]) whose position
// k + h lies in rank `to`'s block: [lo, hi), lo == hi for none. The window scans move these
// values h positions on, from `from` to `to`.
std::pair<std::size_t, std::size_t> moved_on(const std::vector<std::size_t>& first, std::size_t h, std::size_t from,
                                             std::size_t to) {
  const std::size_t lo = std::max(first[from], first[to] >= h ? first[to] - h : 0);
  const std::size_t hi = std::min(first[from + 1], first[to + 1] >= h ? first[to + 1] - h : 0);
  return {lo, std::max(lo, hi)};
}

std::vector<std::uint64_t> bits_of(std::span<const double> values) {
  std::vector<std::uint64_t> bits(values.size());
  std::transform(values.begin(), values.end(), bits.begin(), [](double v) { return std::bit_cast<std::uint64_t>(v); });
  return bits;
}

double value_of(std::uint64_t bits) { return std::bit_cast<double>(bits); }

}  // namespace

std::size_t DistributedReductions::total(std::size_t local) const { return comm_.all_reduce_sum(std::uint64_t{local}); }

void DistributedReductions::sum(std::span<double> values) const { comm_.all_reduce_sum(values); }
void DistributedReductions::min(std::span<double> values) const { comm_.all_reduce_min(values); }
void DistributedReductions::max(std::span<double> values) const { comm_.all_reduce_max(values); }

void DistributedReductions::agree(const std::function<void()>& step) const { comm_.agree(step); }

Eigen::MatrixXd DistributedReductions::local_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                                     std::span<const std::size_t> rows) const {
  return local_ ? local_->local_factors(X, y, rows) : RowReductions::local_factors(X, y, rows);
}

Eigen::MatrixXd DistributedReductions::stacked(const Eigen::MatrixXd& local) const {
  const Eigen::Index c = local.cols();
  // Several blocks' triangles become one first (as ls_of_factors would make them): at most c^2
  // numbers per rank, whatever its number of rows. Row by row, so that each rank's rows arrive
  // as one run.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = local;
  if (local.rows() > c) rows = Eigen::HouseholderQR<Eigen::MatrixXd>(local).matrixQR().topRows(c).triangularView<Eigen::Upper>();
  const std::vector<std::uint64_t> all =
      comm_.all_gather(bits_of(std::span<const double>(rows.data(), static_cast<std::size_t>(rows.size()))));
  const std::uint64_t mine = static_cast<std::uint64_t>(local.rows() > 0);
  const std::uint64_t parts = comm_.all_reduce_sum(mine);
  Eigen::MatrixXd stack(static_cast<Eigen::Index>(all.size()) / std::max<Eigen::Index>(c, 1), c);
  for (Eigen::Index i = 0; i < stack.rows(); ++i)
    for (Eigen::Index j = 0; j < c; ++j) stack(i, j) = value_of(all[static_cast<std::size_t>(i * c + j)]);
  if (parts <= 1) return stack;  // one rank's factors: as one process has them
  // Several ranks' triangles stacked: one more QR makes them one triangle (R of all rows).
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(stack);
  const Eigen::Index k = std::min(stack.rows(), c);
  return qr.matrixQR().topRows(k).triangularView<Eigen::Upper>();
}

std::vector<double> DistributedReductions::select(const Eigen::VectorXd& values, const std::vector<std::uint64_t>& ks) const {
  // A NaN on this rank fails here only: agreed, so that no rank waits for it in DIBMS. Each
  // rank's shard may be on its GPU or its host: the answers are the same.
  const auto shard = comm_.agree([&]() -> std::unique_ptr<distributed::LocalShard> {
    const std::span<const double> mine(values.data(), static_cast<std::size_t>(values.size()));
    if (select_on_gpu_) {
      try {
        return distributed::make_cuda_local_shard<double>(mine);
      } catch (const std::invalid_argument&) {
        throw;  // a NaN: the same error as the host's shard
      } catch (const std::exception&) {
        // No room or no device: the host's shard below.
      }
    }
    return distributed::make_cpu_local_shard<double>(mine);
  });
  return distributed::dibms_select(comm_, *shard, ks);
}

std::vector<std::size_t> DistributedReductions::smallest_h(const Eigen::VectorXd& values, std::size_t h) const {
  const double t = select(values, {h - 1})[0];
  const std::span<const double> mine = values_of(values);
  const selection::ThresholdCounts counts = selection::threshold_counts_parallel(mine, t);
  const std::uint64_t ties = counts.total_equal();
  const std::uint64_t ties_before = comm_.exclusive_sum(ties);  // global row order
  const std::uint64_t needed = h - comm_.all_reduce_sum(std::uint64_t{counts.total_below()});
  const std::uint64_t take = needed > ties_before ? std::min(needed - ties_before, ties) : 0;
  return selection::rows_below_and_ties_parallel(mine, t, counts, take);
}

std::size_t DistributedReductions::before(std::size_t local) const { return comm_.exclusive_sum(std::uint64_t{local}); }

Eigen::MatrixXd DistributedReductions::gathered(const Eigen::MatrixXd& local) const {
  const Eigen::Index c = local.cols();
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = local;
  const std::vector<std::uint64_t> all =
      comm_.all_gather(bits_of(std::span<const double>(rows.data(), static_cast<std::size_t>(rows.size()))));
  Eigen::MatrixXd out(c > 0 ? static_cast<Eigen::Index>(all.size()) / c : 0, c);
  for (Eigen::Index i = 0; i < out.rows(); ++i)
    for (Eigen::Index j = 0; j < c; ++j) out(i, j) = value_of(all[static_cast<std::size_t>(i * c + j)]);
  return out;
}

std::vector<double> DistributedReductions::kth_smallest_many(const Eigen::VectorXd& values,
                                                             std::span<const std::size_t> ks) const {
  return select(values, std::vector<std::uint64_t>(ks.begin(), ks.end()));
}

std::optional<ShortestWindow> DistributedReductions::shortest_window_below(const Eigen::VectorXd& values, std::size_t h,
                                                                           double bound) const {
  // As univariate.hpp's: nothing when the bound is not positive or there is no window.
  if (!(bound > 0) || h == 0 || h > total(static_cast<std::size_t>(values.size()))) return std::nullopt;
  const ShortestWindow best = shortest_windows(comm_, std::span<const Eigen::VectorXd>(&values, 1), h, select_on_gpu_)[0];
  return best.half_width < bound ? std::optional(best) : std::nullopt;
}

double DistributedReductions::trimmed_sum(const Eigen::VectorXd& values, std::size_t h) const {
  const double t = select(values, {h - 1})[0];
  const selection::SumBelowThreshold below = selection::sum_below_parallel(values_of(values), t);
  double sums[2] = {below.sum, static_cast<double>(below.count)};  // sum and count below t
  comm_.all_reduce_sum(sums);
  return sums[0] + (static_cast<double>(h) - sums[1]) * t;
}

std::vector<double> DistributedReductions::sorted_here(const Eigen::VectorXd& values) const {
  std::vector<double> sorted(static_cast<std::size_t>(values.size()));
  sort_local(std::span<const double>(values.data(), sorted.size()), sorted, select_on_gpu_);
  return sorted;
}

std::vector<double> DistributedReductions::sorted_block(const Eigen::VectorXd& values, const std::vector<std::size_t>& first,
                                                        const std::vector<double>& splitters) const {
  const auto q = static_cast<std::size_t>(comm_.size());
  // This rank's values sorted; cut[r]: how many of them lie before position first[r] (values
  // below the splitter, then equal ones in global rank order, as smallest_h takes them).
  common::Stopwatch watch;
  const std::vector<double> mine = sorted_here(values);
  common::trace("sample sort local", watch.lap());
  std::vector<std::uint64_t> below(q + 1, 0), ties(q + 1, 0);
  for (std::size_t r = 1; r < q; ++r) {
    const double t = splitters[r - 1];
    below[r] = static_cast<std::uint64_t>(std::lower_bound(mine.begin(), mine.end(), t) - mine.begin());
    ties[r] = static_cast<std::uint64_t>(std::upper_bound(mine.begin(), mine.end(), t) - mine.begin()) - below[r];
  }
  std::vector<std::uint64_t> ties_before = ties, below_all = below;
  comm_.exclusive_sum(ties_before);
  comm_.all_reduce_sum(below_all);
  std::vector<std::size_t> cut(q + 1, 0);
  cut[q] = mine.size();
  for (std::size_t r = 1; r < q; ++r) {
    const std::uint64_t needed = first[r] - std::min<std::uint64_t>(first[r], below_all[r]);
    const std::uint64_t take = needed > ties_before[r] ? std::min(needed - ties_before[r], ties[r]) : 0;
    cut[r] = std::max(cut[r - 1], static_cast<std::size_t>(below[r] + take));
  }
  std::vector<std::size_t> counts(q);
  for (std::size_t r = 0; r < q; ++r) counts[r] = cut[r + 1] - cut[r];
  std::vector<double> received = comm_.all_to_all(std::span<const double>(mine), counts);
  common::trace("sample sort exchange", watch.lap());
  std::vector<double> sorted = merge_sorted_runs(std::move(received));  // positions first[rank] ...
  common::trace("sample sort merge", watch.lap());
  return sorted;
}

std::vector<double> DistributedReductions::shifted(std::span<const double> block, const std::vector<std::size_t>& first,
                                                   std::size_t h) const {
  // Position k's value goes to the owner of k + h (k + h < n): one run per rank, this rank's
  // first positions in order; the owner receives those of positions max(begin, h) - h on, in order.
  const auto q = static_cast<std::size_t>(comm_.size()), rank = static_cast<std::size_t>(comm_.rank());
  std::vector<std::size_t> send(q, 0);
  for (std::size_t r = 0; r < q; ++r) {
    const auto [lo, hi] = moved_on(first, h, rank, r);
    send[r] = hi - lo;
  }
  const std::size_t sent = std::accumulate(send.begin(), send.end(), std::size_t{0});
  return comm_.all_to_all(block.first(sent), send);
}

double DistributedReductions::min_window_variance(const Eigen::VectorXd& values, std::size_t h) const {
  const auto q = static_cast<std::size_t>(comm_.size()), rank = static_cast<std::size_t>(comm_.rank());
  if (q == 1) return min_window_variance_sorted(sorted_here(values), h);  // one process's code
  const std::size_t n = total(static_cast<std::size_t>(values.size()));
  // Rank r receives sorted positions [first[r], first[r + 1]); the splitters are the values at
  // those positions, and the median (position n / 2) is the shift of the sums, as one process.
  std::vector<std::size_t> first(q + 1);
  for (std::size_t r = 0; r <= q; ++r) first[r] = r * n / q;
  std::vector<std::uint64_t> ks{n / 2};
  for (std::size_t r = 1; r < q; ++r) ks.push_back(std::min(first[r], n - 1));
  common::Stopwatch watch;
  const std::vector<double> selected = select(values, ks);
  const double shift = selected[0];
  common::trace("window select", watch.lap());
  const std::vector<double> sorted = sorted_block(values, first, std::vector<double>(selected.begin() + 1, selected.end()));
  common::trace("window sorted block", watch.lap());
  const std::size_t begin = first[rank], m = sorted.size();

  // This block's sums of (x - shift) and its square; the ranks' totals in rank order give the
  // prefix sums P(begin - 1) before it.
  double s = 0, s2 = 0;
  for (const double x : sorted) {
    const double d = x - shift;
    s += d, s2 += d * d;
  }
  const std::vector<std::uint64_t> totals = comm_.all_gather(bits_of(std::vector<double>{s, s2}));
  double offset = 0, offset2 = 0;
  for (std::size_t r = 0; r < rank; ++r) offset += value_of(totals[2 * r]), offset2 += value_of(totals[2 * r + 1]);

  // The window ending at position e needs P(e - h): position k's value goes to the owner of
  // k + h, each run headed by the prefix sums before its first position (one all-to-all, 8 bytes
  // a value).
  const auto run = [&](std::size_t from, std::size_t to) { return moved_on(first, h, from, to); };
  std::vector<double> send;
  std::vector<std::size_t> counts(q, 0);
  double before = offset, before2 = offset2;  // P(at - 1)
  for (std::size_t r = 0, at = begin; r < q; ++r) {
    const auto [lo, hi] = run(rank, r);
    if (lo == hi) continue;
    for (; at < lo; ++at) {
      const double d = sorted[at - begin] - shift;
      before += d, before2 += d * d;
    }
    send.push_back(before), send.push_back(before2);
    send.insert(send.end(), sorted.begin() + static_cast<std::ptrdiff_t>(lo - begin), sorted.begin() + static_cast<std::ptrdiff_t>(hi - begin));
    counts[r] = 2 + hi - lo;
  }
  const std::vector<double> received = comm_.all_to_all(std::span<const double>(send), counts);

  // Windows ending here (e >= h - 1): sums P(e) - P(e - h), with P(-1) = 0.
  const double hd = static_cast<double>(h);
  double best = std::numeric_limits<double>::infinity();
  double at_end = offset, at_end2 = offset2, at_start = 0, at_start2 = 0;  // P(e), P(e - h)
  std::size_t next = 0, left = 0, source = 0;  // in received; values left in the current run
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t e = begin + i;
    const double d = sorted[i] - shift;
    at_end += d, at_end2 += d * d;
    if (e + 1 < h) continue;
    if (e >= h) {
      for (; left == 0; ++source) {  // the next source's run: its header, then its values
        const auto [lo, hi] = run(source, rank);
        if (lo == hi) continue;
        at_start = received[next], at_start2 = received[next + 1], next += 2, left = hi - lo;
      }
      const double x = received[next++] - shift;
      at_start += x, at_start2 += x * x, --left;
    }
    const double sum = at_end - at_start, sum_sq = at_end2 - at_start2;
    best = std::min(best, sum_sq / hd - (sum / hd) * (sum / hd));
  }
  double result[] = {best};
  comm_.all_reduce_min(result);
  common::trace("window scan", watch.lap());
  return std::max(result[0], 0.0);
}

VarianceWindowScan DistributedReductions::min_variance_window(const Eigen::VectorXd& values, std::size_t h,
                                                              double shift) const {
  const auto q = static_cast<std::size_t>(comm_.size()), rank = static_cast<std::size_t>(comm_.rank());
  if (q == 1) return scan_variance_windows(sorted_here(values), h, shift);  // one process's code
  const std::size_t n = total(static_cast<std::size_t>(values.size()));
  std::vector<std::size_t> first(q + 1);
  for (std::size_t r = 0; r <= q; ++r) first[r] = r * n / q;
  std::vector<std::uint64_t> ks;
  for (std::size_t r = 1; r < q; ++r) ks.push_back(std::min(first[r], n - 1));
  const std::vector<double> splitters = ks.empty() ? std::vector<double>{} : select(values, ks);
  std::vector<double> x = sorted_block(values, first, splitters);
  for (double& v : x) v -= shift;
  const std::vector<double> leaving = shifted(x, first, h);
  // The scan runs over the positions in order: rank r goes on from the state rank r - 1 left
  // (a broadcast per rank), so its sums are one process's, bit for bit.
  VarianceWindowScan scan{.h = h};
  std::vector<std::uint64_t> state(5);
  for (int turn = 0; turn < comm_.size(); ++turn) {
    if (comm_.rank() == turn) {
      std::size_t next = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const std::size_t e = first[rank] + i;
        scan.add(e, x[i], e >= h ? leaving[next++] : 0.0);
      }
      state = bits_of(std::vector<double>{scan.sum, scan.squares, scan.best_ss, scan.best_sum});
      state.push_back(scan.best_start);
    }
    comm_.broadcast(state, turn);
    scan.sum = value_of(state[0]), scan.squares = value_of(state[1]);
    scan.best_ss = value_of(state[2]), scan.best_sum = value_of(state[3]);
    scan.best_start = static_cast<std::size_t>(state[4]);
  }
  return scan;
}

}  // namespace robustfit::regression::detail
