// DIBMS (distributed iterative bucket multiselection) over the ranks of a communicator.
// Every rank computes the same bucket plan from the same all-reduced numbers, so the paper's
// host (node 0) is needed only in Phase 1, to merge the samples into pivots and broadcast them.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "robustfit/distributed/order_key.hpp"
#include "robustfit/distributed/selection.hpp"

namespace robustfit::distributed {
namespace {

struct Pending {
  std::uint64_t rank;  // rank among the current candidates of all ranks
  std::size_t index;   // into ks and the results
};

void check_ranks(std::uint64_t n, std::span<const std::uint64_t> ks) {
  if (n == 0) throw std::invalid_argument("distributed selection: no values on any rank");
  for (std::uint64_t k : ks) {
    if (k >= n)
      throw std::invalid_argument("distributed selection: rank k = " + std::to_string(k) + " is out of range for " +
                                  std::to_string(n) + " values (0-based, k < n)");
  }
}

// Phase 1, Create Buckets: each rank samples ceil(S n_r / n) values; rank 0 takes P - 1 order
// statistics of the merged sample as pivots between the global minimum and maximum, and sends
// them to all. Equal pivots are merged, so intervals never repeat.
std::vector<KeyInterval> phase1_intervals(Communicator& comm, const LocalShard& shard, std::uint64_t n,
                                          std::uint64_t min, std::uint64_t max, const DibmsOptions& options,
                                          std::uint64_t& total_buckets) {
  const std::uint64_t local = shard.size();
  const auto count = static_cast<std::uint64_t>((Wide(options.sample_size) * local + n - 1) / n);
  const std::vector<std::uint64_t> sample =
      shard.sample(count, options.seed + 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(comm.rank() + 1));
  std::vector<std::uint64_t> pivots;
  std::vector<std::uint64_t> merged = comm.gather(sample, 0);
  if (comm.rank() == 0) {
    std::sort(merged.begin(), merged.end());
    pivots.push_back(min);
    const std::uint64_t intervals = std::max<std::uint64_t>(options.pivot_intervals, 1);
    for (std::uint64_t j = 1; j < intervals && !merged.empty(); ++j) {
      const std::uint64_t pivot = merged[j * merged.size() / intervals];
      if (pivot > pivots.back() && pivot <= max) pivots.push_back(pivot);
    }
  }
  comm.broadcast(pivots, 0);
  const std::uint64_t per_interval = std::max<std::uint64_t>(options.buckets / pivots.size(), 2);
  std::vector<KeyInterval> intervals;
  for (std::size_t i = 0; i < pivots.size(); ++i) {
    const std::uint64_t hi = i + 1 < pivots.size() ? pivots[i + 1] - 1 : max;
    const std::uint64_t width = hi - pivots[i];  // keys - 1
    const std::uint64_t buckets = width < per_interval ? width + 1 : per_interval;
    intervals.push_back({pivots[i], hi, buckets, i == 0 ? 0 : intervals.back().first_bucket + intervals.back().buckets});
  }
  total_buckets = intervals.back().first_bucket + intervals.back().buckets;
  return intervals;
}

// Phase 2, Create Buckets: buckets allotted in proportion to the candidates of each interval,
// at least two each (so every key range at least halves), at most max(B, 2P) in all.
void allot_buckets(std::vector<KeyInterval>& intervals, std::span<const std::uint64_t> counts, std::uint64_t total,
                   const DibmsOptions& options, std::uint64_t& total_buckets) {
  const std::uint64_t p = intervals.size();
  const std::uint64_t budget = std::max(options.buckets, 2 * p) - 2 * p;
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    KeyInterval& interval = intervals[i];
    const std::uint64_t share = total == 0 ? 0 : static_cast<std::uint64_t>(Wide(counts[i]) * budget / total);
    const std::uint64_t width = interval.hi - interval.lo;  // keys - 1
    interval.buckets = std::min(2 + share, width == ~std::uint64_t{0} ? 2 + share : width + 1);
    interval.first_bucket = first;
    first += interval.buckets;
  }
  total_buckets = first;
}

}  // namespace

std::vector<double> dibms_select(Communicator& comm, LocalShard& shard, std::span<const std::uint64_t> ks,
                                 const DibmsOptions& options, SelectionReport* report) {
  const std::uint64_t bytes_before = comm.bytes();
  shard.reset();
  const std::uint64_t n = comm.all_reduce_sum(shard.size());
  check_ranks(n, ks);
  std::array<std::uint64_t, 2> range = shard.key_range();
  comm.all_reduce_min(range);
  const std::uint64_t min = range[0], max = ~range[1];

  std::vector<std::uint64_t> answer(ks.size(), 0);
  std::vector<Pending> pending;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    if (ks[i] == 0 || min == max) answer[i] = min;
    else if (ks[i] == n - 1) answer[i] = max;
    else pending.push_back({ks[i], i});
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) { return a.rank < b.rank; });

  int iterations = 0, checks = 0;
  std::uint64_t single_answers = 0;
  if (!pending.empty()) {
    std::uint64_t total_buckets = 0;
    std::vector<KeyInterval> intervals = phase1_intervals(comm, shard, n, min, max, options, total_buckets);
    bool segmented = false;
    std::uint64_t total = n, stalls = 0;
    while (!pending.empty()) {
      if (++iterations > options.max_iterations) throw std::logic_error("dibms_select: no convergence");
      // Assign Buckets: local counts, summed over the ranks.
      std::vector<std::uint64_t> counts = shard.count_buckets(intervals, total_buckets, segmented);
      comm.all_reduce_sum(counts);

      // Identify Active Buckets: the bucket of each pending rank, by a cumulative walk.
      std::vector<std::uint64_t> keep, singles;
      std::vector<std::uint64_t> pending_bucket(pending.size());
      std::vector<std::uint64_t> before(pending.size());  // candidates in earlier buckets
      {
        std::uint64_t bucket = 0, cumulative = 0;
        for (std::size_t p = 0; p < pending.size(); ++p) {
          while (cumulative + counts[bucket] <= pending[p].rank) cumulative += counts[bucket++];
          pending_bucket[p] = bucket;
          before[p] = cumulative;
        }
      }
      // Each active bucket: one candidate (its owner answers), one key (a repeated value,
      // answered without communication) or kept for the next iteration.
      std::vector<KeyInterval> next;
      std::vector<std::uint64_t> next_counts;
      std::size_t interval = 0;
      for (std::size_t p = 0; p < pending.size(); ++p) {
        const std::uint64_t bucket = pending_bucket[p];
        if (p > 0 && bucket == pending_bucket[p - 1]) continue;
        while (intervals[interval].first_bucket + intervals[interval].buckets <= bucket) ++interval;
        const auto [lo, hi] = bucket_key_range(intervals[interval], bucket - intervals[interval].first_bucket);
        if (counts[bucket] == 1) {
          singles.push_back(bucket);
        } else if (lo != hi) {
          keep.push_back(bucket);
          next.push_back({lo, hi, 0, 0});
          next_counts.push_back(counts[bucket]);
        }
      }

      // Reduce: every rank keeps its candidates of the kept buckets; single candidates come
      // from their owners (all-reduce of the keys, 0 where absent).
      std::vector<std::uint64_t> found = shard.reduce(keep, singles);
      comm.all_reduce_max(found);
      std::vector<Pending> still;
      std::uint64_t kept_before = 0;
      std::size_t kept_index = 0;
      for (std::size_t p = 0; p < pending.size(); ++p) {
        const std::uint64_t bucket = pending_bucket[p];
        const auto single = std::lower_bound(singles.begin(), singles.end(), bucket);
        const auto kept = std::lower_bound(keep.begin(), keep.end(), bucket);
        if (single != singles.end() && *single == bucket) {
          answer[pending[p].index] = found[static_cast<std::size_t>(single - singles.begin())];
          ++single_answers;
        } else if (kept != keep.end() && *kept == bucket) {
          for (; kept_index < static_cast<std::size_t>(kept - keep.begin()); ++kept_index) kept_before += next_counts[kept_index];
          still.push_back({pending[p].rank - before[p] + kept_before, pending[p].index});
        } else {  // a bucket of one key
          std::size_t i = 0;
          while (intervals[i].first_bucket + intervals[i].buckets <= bucket) ++i;
          answer[pending[p].index] = bucket_key_range(intervals[i], bucket - intervals[i].first_bucket)[0];
        }
      }
      pending = std::move(still);
      if (pending.empty()) break;

      const std::uint64_t remaining = std::accumulate(next_counts.begin(), next_counts.end(), std::uint64_t{0});
      stalls = remaining == total ? stalls + 1 : 0;
      total = remaining;
      if (stalls >= options.stalls_before_check) {
        // The stopping rule for repeated values: the candidates stopped shrinking, so the
        // active buckets probably hold one value each. The paper then returns that value; we
        // confirm it with each bucket's exact key range (one all-reduce of 2 keys per bucket),
        // answer the buckets of one value and go on with the exact ranges of the others.
        std::vector<std::uint64_t> ranges = shard.segment_key_ranges();
        comm.all_reduce_min(ranges);
        std::vector<Pending> unresolved;
        std::uint64_t segment_end = 0;
        for (std::size_t s = 0, p = 0; s < next.size(); ++s) {
          next[s].lo = ranges[2 * s];
          next[s].hi = ~ranges[2 * s + 1];
          segment_end += next_counts[s];
          for (; p < pending.size() && pending[p].rank < segment_end; ++p) {
            if (next[s].lo == next[s].hi) answer[pending[p].index] = next[s].lo;
            else unresolved.push_back(pending[p]);
          }
        }
        pending = std::move(unresolved);
        stalls = 0;
        ++checks;
      }
      allot_buckets(next, next_counts, total, options, total_buckets);
      intervals = std::move(next);
      segmented = true;
    }
  }
  if (report != nullptr) *report = {n, comm.bytes() - bytes_before, iterations, 0, checks, single_answers};
  std::vector<double> values(answer.size());
  std::transform(answer.begin(), answer.end(), values.begin(), from_order_key);
  return values;
}

}  // namespace robustfit::distributed
