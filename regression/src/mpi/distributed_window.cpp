#include "distributed_window.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <memory>
#include <numeric>

#include "local_sort.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/distributed/selection.hpp"

namespace robustfit::regression::detail {

std::vector<ShortestWindow> shortest_windows(distributed::Communicator& comm, std::span<const Eigen::VectorXd> values,
                                             std::size_t h, bool on_gpu) {
  const std::size_t m = values.size();
  if (m == 0) return {};
  const auto q = static_cast<std::size_t>(comm.size()), rank = static_cast<std::size_t>(comm.rank());
  if (q == 1) {  // one process's code on the sorted values
    std::vector<ShortestWindow> out;
    std::vector<double> sorted;
    for (const Eigen::VectorXd& v : values) {
      sorted.resize(static_cast<std::size_t>(v.size()));
      sort_local(std::span<const double>(v.data(), sorted.size()), sorted, on_gpu);
      out.push_back(shortest_window_sorted(sorted, h));
    }
    return out;
  }
  const std::size_t n = comm.all_reduce_sum(std::uint64_t{static_cast<std::uint64_t>(values[0].size())});
  // Rank r receives sorted positions [first[r], first[r + 1]) of every problem.
  std::vector<std::size_t> first(q + 1);
  for (std::size_t r = 0; r <= q; ++r) first[r] = r * n / q;
  const auto owner = [&](std::size_t position) {
    return static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), position) - first.begin() - 1);
  };

  // Each problem's values sorted on this rank, and its splitters (positions first[1..q-1]).
  std::vector<std::vector<double>> mine(m);
  std::vector<double> splitters;  // m * (q - 1)
  if (q > 1) {
    std::vector<std::unique_ptr<distributed::LocalShard>> owned;
    std::vector<distributed::LocalShard*> shards;
    std::vector<std::uint64_t> ks;
    for (std::size_t r = 1; r < q; ++r) ks.push_back(std::min(first[r], n - 1));
    for (std::size_t i = 0; i < m; ++i) {
      owned.push_back(distributed::make_cpu_local_shard<double>(
          std::span<const double>(values[i].data(), static_cast<std::size_t>(values[i].size()))));
      shards.push_back(owned.back().get());
    }
    const std::vector<std::vector<std::uint64_t>> all_ks(m, ks);
    for (const std::vector<double>& s : distributed::dibms_select_batched(comm, shards, all_ks)) splitters.insert(splitters.end(), s.begin(), s.end());
  }
  // Values below each splitter, then equal ones in rank order, go before its position.
  std::vector<std::uint64_t> below(m * q, 0), ties(m * q, 0);
  for (std::size_t i = 0; i < m; ++i) {
    mine[i].resize(static_cast<std::size_t>(values[i].size()));
    sort_local(std::span<const double>(values[i].data(), mine[i].size()), std::span<double>(mine[i]), on_gpu);
    for (std::size_t r = 1; r < q; ++r) {
      const double t = splitters[i * (q - 1) + r - 1];
      const auto lo = std::lower_bound(mine[i].begin(), mine[i].end(), t);
      below[i * q + r] = static_cast<std::uint64_t>(lo - mine[i].begin());
      ties[i * q + r] = static_cast<std::uint64_t>(std::upper_bound(lo, mine[i].end(), t) - lo);
    }
  }
  std::vector<std::uint64_t> ties_before = ties, below_all = below;
  if (q > 1) {
    comm.exclusive_sum(ties_before);
    comm.all_reduce_sum(below_all);
  }
  // Sent to rank r: problem by problem, this rank's values of positions [first[r], first[r + 1]).
  std::vector<std::uint64_t> counts(m * q), send;
  std::vector<std::size_t> send_counts(q, 0);
  std::vector<std::vector<std::size_t>> cut(m, std::vector<std::size_t>(q + 1, 0));
  for (std::size_t i = 0; i < m; ++i) {
    cut[i][q] = mine[i].size();
    for (std::size_t r = 1; r < q; ++r) {
      const std::size_t k = i * q + r;
      const std::uint64_t needed = first[r] - std::min<std::uint64_t>(first[r], below_all[k]);
      const std::uint64_t take = needed > ties_before[k] ? std::min(needed - ties_before[k], ties[k]) : 0;
      cut[i][r] = std::max(cut[i][r - 1], static_cast<std::size_t>(below[k] + take));
    }
  }
  for (std::size_t r = 0; r < q; ++r)
    for (std::size_t i = 0; i < m; ++i) {
      counts[r * m + i] = cut[i][r + 1] - cut[i][r];
      send_counts[r] += cut[i][r + 1] - cut[i][r];
      for (std::size_t v = cut[i][r]; v < cut[i][r + 1]; ++v) send.push_back(std::bit_cast<std::uint64_t>(mine[i][v]));
    }
  // How many values of each problem every rank sends here, then the values.
  const std::vector<std::uint64_t> incoming = comm.all_to_all(counts, std::vector<std::size_t>(q, m));
  const std::vector<std::uint64_t> received = comm.all_to_all(send, send_counts);
  std::vector<std::vector<double>> sorted(m);  // positions first[rank] ... of each problem
  std::size_t at = 0;
  for (std::size_t s = 0; s < q; ++s)
    for (std::size_t i = 0; i < m; ++i)
      for (std::uint64_t v = 0; v < incoming[s * m + i]; ++v) sorted[i].push_back(std::bit_cast<double>(received[at++]));
  for (std::vector<double>& block : sorted) block = merge_sorted_runs(std::move(block));

  // Window j .. j + h - 1 (j <= n - h) lives on the owner of j; the value at position
  // e = j + h - 1 comes from the owner of e. Position k >= h - 1 here goes to the owner of k - h + 1.
  const std::size_t begin = first[rank], size = first[rank + 1] - first[rank];
  std::vector<std::size_t> shift_counts(q, 0);
  std::vector<std::uint64_t> shifted_send;
  for (std::size_t r = 0; r < q; ++r)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t v = 0; v < size; ++v) {
        const std::size_t k = begin + v;
        if (k + 1 < h || owner(k + 1 - h) != r) continue;
        if (i == 0) ++shift_counts[r];
        shifted_send.push_back(std::bit_cast<std::uint64_t>(sorted[i][v]));
      }
  for (std::size_t r = 0; r < q; ++r) shift_counts[r] *= m;
  const std::vector<std::uint64_t> ends = comm.all_to_all(shifted_send, shift_counts);
  // From each source the same count for every problem: windows j = begin.. whose end it owns.
  std::vector<std::size_t> from(q + 1, 0);
  for (std::size_t v = 0; v < size && begin + v + h <= n; ++v) ++from[owner(begin + v + h - 1) + 1];
  std::vector<std::size_t> offset(q + 1, 0);
  for (std::size_t s = 0; s < q; ++s) offset[s + 1] = offset[s] + from[s + 1] * m;

  // This rank's first shortest window of each problem: (half width, center) per problem.
  std::vector<double> best(2 * m, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < m; ++i) {
    std::size_t v = 0;
    for (std::size_t s = 0; s < q; ++s)
      for (std::size_t e = 0; e < from[s + 1]; ++e, ++v) {
        const double last = std::bit_cast<double>(ends[offset[s] + i * from[s + 1] + e]);
        const double half = (last - sorted[i][v]) / 2;
        if (half < best[2 * i]) best[2 * i] = half, best[2 * i + 1] = sorted[i][v] + half;
      }
  }
  std::vector<std::uint64_t> bits(best.size());
  std::transform(best.begin(), best.end(), bits.begin(), [](double x) { return std::bit_cast<std::uint64_t>(x); });
  const std::vector<std::uint64_t> all = comm.all_gather(bits);
  std::vector<ShortestWindow> out(m, ShortestWindow{0, std::numeric_limits<double>::infinity()});
  for (std::size_t r = 0; r < q; ++r)  // ranks in position order: the first of equal windows wins
    for (std::size_t i = 0; i < m; ++i) {
      const double half = std::bit_cast<double>(all[(r * m + i) * 2]);
      if (half < out[i].half_width) out[i] = {std::bit_cast<double>(all[(r * m + i) * 2 + 1]), half};
    }
  return out;
}

}  // namespace robustfit::regression::detail
