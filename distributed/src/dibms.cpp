// DIBMS (distributed iterative bucket multiselection) over the ranks of a communicator, for one
// or several independent problems at once (dibms_select_batched: one shard and its ranks per
// problem, e.g. the residuals of many regression candidates), the problems sharing each
// collective. Every rank computes the same bucket plan from the same all-reduced numbers, so the
// paper's host (node 0) is needed only in Phase 1, to merge the samples into pivots and
// broadcast them. Beyond the paper: once few candidates are left over all ranks
// (DibmsOptions::gather_candidates), they are gathered and the ranks answered from them.
#include <algorithm>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>

#include "robustfit/common/parallel.hpp"
#include "robustfit/common/stopwatch.hpp"
#include "robustfit/distributed/band_intervals.hpp"
#include "robustfit/distributed/order_key.hpp"
#include "robustfit/distributed/selection.hpp"

namespace robustfit::distributed {
namespace {

struct Pending {
  std::uint64_t rank;  // rank among the current candidates of all ranks
  std::size_t index;   // into the problem's ks and answers
};

// One selection problem and where its iterations stand.
struct Problem {
  LocalShard* shard = nullptr;
  std::uint64_t n = 0, min = 0, max = 0;
  std::vector<std::uint64_t> answer;  // keys
  std::vector<Pending> pending;       // sorted by rank
  std::vector<KeyInterval> intervals;
  std::uint64_t total_buckets = 0, total = 0, stalls = 0;
  bool segmented = false;
  // This iteration:
  std::vector<std::uint64_t> counts, keep, singles, found, pending_bucket, before, next_counts;
  std::vector<KeyInterval> next;
  bool check = false;  // the stopping rule fired: confirm with exact key ranges
};

void check_ranks(std::uint64_t n, std::span<const std::uint64_t> ks) {
  if (n == 0) throw std::invalid_argument("distributed selection: no values on any rank");
  for (std::uint64_t k : ks) {
    if (k >= n)
      throw std::invalid_argument("distributed selection: rank k = " + std::to_string(k) + " is out of range for " +
                                  std::to_string(n) + " values (0-based, k < n)");
  }
}

constexpr std::uint64_t kPaperPivotIntervals = 16;

// Phase 1's buckets for one of `problems` problems: B, or fewer where that still leaves each
// wanted rank's bucket about a quarter of the gather's share (gather_candidates / problems):
// the same iterations for far fewer counts to all-reduce (a regression candidate's residuals
// at n = 10^5 over 2 ranks: 32 to 1024 buckets, by the batch's size, instead of 8192).
std::uint64_t phase1_buckets(const Problem& problem, const DibmsOptions& options, std::size_t problems) {
  if (options.gather_candidates == 0) return options.buckets;
  const std::uint64_t share = std::max<std::uint64_t>(options.gather_candidates / std::max<std::size_t>(problems, 1), 1);
  const Wide need = Wide(4) * std::max<std::size_t>(problem.pending.size(), 1) * problem.n / share + 1;
  const std::uint64_t pivots = options.pivot_intervals != 0 ? options.pivot_intervals : kPaperPivotIntervals;
  const std::uint64_t floor = 2 * pivots, most = std::max(options.buckets, floor);
  return std::clamp<std::uint64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::min<Wide>(need, most))), floor, most);
}

// Phase 1's pivot intervals for `buckets` buckets (DibmsOptions::pivot_intervals); fine_free:
// every rank's shards said fine pivots cost nothing more.
std::uint64_t pivot_interval_count(const DibmsOptions& options, std::uint64_t buckets, bool fine_free) {
  if (options.pivot_intervals != 0) return options.pivot_intervals;
  return fine_free ? std::max(kPaperPivotIntervals, buckets / 32) : kPaperPivotIntervals;
}

// Runs call(i) for every problem i: on the host's threads at once where every shard takes
// concurrent calls (CUDA shards: then the per-call synchronisations of a batch overlap instead of
// adding up), else one after another. Each call writes only problem i's outputs.
template <class Call>
void each_problem(std::span<Problem* const> problems, Call&& call) {
  const bool concurrent = problems.size() > 1 && std::all_of(problems.begin(), problems.end(),
                                                             [](const Problem* p) { return p->shard->concurrent_calls(); });
  if (concurrent) {
    common::parallel_for_dynamic(problems.size(), [&](unsigned, std::size_t i) { call(i); });
  } else {
    for (std::size_t i = 0; i < problems.size(); ++i) call(i);
  }
}

// counts summed over the ranks, as 32-bit numbers where every sum fits (each is at most a
// problem's n).
void sum_counts(Communicator& comm, std::vector<std::uint64_t>& counts, bool fits_32_bits) {
  if (!fits_32_bits) {
    comm.all_reduce_sum(counts);
    return;
  }
  std::vector<std::uint32_t> narrow(counts.begin(), counts.end());
  comm.all_reduce_sum(std::span<std::uint32_t>(narrow));
  std::copy(narrow.begin(), narrow.end(), counts.begin());
}

// Per problem i, parts[i] one after another.
std::vector<std::uint64_t> joined(const std::vector<std::vector<std::uint64_t>>& parts) {
  std::vector<std::uint64_t> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Phase 1, Create Buckets: each rank samples ceil(S n_r / n) values of each problem; the P - 1
// order statistics of the merged sample are the pivots between the global minimum and maximum
// (the paper's rank 0 chooses them and sends them to all; here every rank has the merged sample
// and chooses the same ones). Equal pivots are merged, so intervals never repeat. With
// band_intervals, the merged sample sizes band-aligned intervals instead (band_intervals.hpp).
void phase1_intervals(Communicator& comm, std::span<Problem* const> problems, const DibmsOptions& options) {
  // Per problem, this rank's sample count then its sample.
  std::vector<std::vector<std::uint64_t>> samples_here(problems.size());
  each_problem(problems, [&](std::size_t i) {
    const Problem& p = *problems[i];
    const auto count = static_cast<std::uint64_t>((Wide(options.sample_size) * p.shard->size() + p.n - 1) / p.n);
    const std::vector<std::uint64_t> sample = p.shard->sample(
        count, options.seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(comm.rank()) * problems.size() + i + 1));
    samples_here[i].push_back(sample.size());
    samples_here[i].insert(samples_here[i].end(), sample.begin(), sample.end());
  });
  // Every rank merges the samples and takes the same pivots (one all-gather; the paper's rank 0
  // gathers and broadcasts them: two collectives). Each rank's part starts with whether its
  // shards take fine pivots for free, so that every rank chooses the same pivot count.
  std::vector<std::uint64_t> mine{std::all_of(problems.begin(), problems.end(),
                                              [](const Problem* p) { return p->shard->fine_pivots_free(); }) ? 1u : 0u};
  for (const auto& part : samples_here) mine.insert(mine.end(), part.begin(), part.end());
  const std::vector<std::uint64_t> merged = comm.all_gather(mine);
  std::vector<std::uint64_t> pivots;  // per problem: its pivot count, then its pivots
  {
    std::vector<std::vector<std::uint64_t>> samples(problems.size());
    bool fine_free = true;
    for (std::size_t at = 0; at < merged.size();) {  // rank after rank: its flag, then problem after problem
      const bool theirs = merged[at++] == 1;
      fine_free = fine_free && theirs;
      for (std::size_t i = 0; i < problems.size(); ++i) {
        const std::uint64_t count = merged[at++];
        samples[i].insert(samples[i].end(), merged.begin() + static_cast<std::ptrdiff_t>(at),
                          merged.begin() + static_cast<std::ptrdiff_t>(at + count));
        at += count;
      }
    }
    for (std::size_t i = 0; i < problems.size(); ++i) {
      std::vector<std::uint64_t>& s = samples[i];
      std::sort(s.begin(), s.end());
      if (options.band_intervals) {  // the intervals from the sample at once; no pivots
        Problem& p = *problems[i];
        p.intervals = band_aligned_intervals(s, p.min, p.max, phase1_buckets(p, options, problems.size()));
        p.total_buckets = p.intervals.back().first_bucket + p.intervals.back().buckets;
        p.total = p.n;
        pivots.push_back(0);
        continue;
      }
      const std::uint64_t intervals =
          pivot_interval_count(options, phase1_buckets(*problems[i], options, problems.size()), fine_free);
      std::vector<std::uint64_t> chosen{problems[i]->min};
      for (std::uint64_t j = 1; j < intervals && !s.empty(); ++j) {
        const std::uint64_t pivot = s[j * s.size() / intervals];
        if (pivot > chosen.back() && pivot <= problems[i]->max) chosen.push_back(pivot);
      }
      pivots.push_back(chosen.size());
      pivots.insert(pivots.end(), chosen.begin(), chosen.end());
    }
  }
  std::size_t at = 0;
  for (Problem* p : problems) {
    const std::size_t count = pivots[at++];
    const std::span<const std::uint64_t> chosen(pivots.data() + at, count);
    at += count;
    if (count == 0) continue;  // band-aligned intervals, made above
    const std::uint64_t per_interval = std::max<std::uint64_t>(phase1_buckets(*p, options, problems.size()) / count, 2);
    p->intervals.clear();
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t hi = i + 1 < count ? chosen[i + 1] - 1 : p->max;
      const std::uint64_t width = hi - chosen[i];  // keys - 1
      const std::uint64_t buckets = width < per_interval ? width + 1 : per_interval;
      p->intervals.push_back({chosen[i], hi, buckets, i == 0 ? 0 : p->intervals.back().first_bucket + p->intervals.back().buckets});
    }
    p->total_buckets = p->intervals.back().first_bucket + p->intervals.back().buckets;
    p->total = p->n;
  }
}

// Phase 1 from the callers' brackets: phase1_buckets' buckets over [lo, hi] (as keys), one bucket
// each for the keys below and above it, so that the intervals cover every key.
void bracket_intervals(std::span<Problem* const> problems, std::span<const std::uint64_t> lo_keys,
                       std::span<const std::uint64_t> hi_keys, const DibmsOptions& options) {
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Problem& p = *problems[i];
    const std::uint64_t lo = lo_keys[i], hi = hi_keys[i];
    const std::uint64_t width = hi - lo;  // keys - 1
    const std::uint64_t wanted = std::max<std::uint64_t>(phase1_buckets(p, options, problems.size()), 2);
    p.intervals.clear();
    const auto add = [&](std::uint64_t from, std::uint64_t to, std::uint64_t buckets) {
      const std::uint64_t first = p.intervals.empty() ? 0 : p.intervals.back().first_bucket + p.intervals.back().buckets;
      p.intervals.push_back({from, to, buckets, first});
    };
    if (lo > 0) add(0, lo - 1, 1);
    add(lo, hi, width < wanted ? width + 1 : wanted);
    if (hi < ~std::uint64_t{0}) add(hi + 1, ~std::uint64_t{0}, 1);
    p.total_buckets = p.intervals.back().first_bucket + p.intervals.back().buckets;
    p.total = p.n;
  }
}

// Phase 2, Create Buckets: buckets allotted in proportion to the candidates of each interval,
// at least two each (so every key range at least halves), at most max(B, 2P) in all.
void allot_buckets(Problem& problem, const DibmsOptions& options) {
  const std::uint64_t p = problem.next.size();
  const std::uint64_t budget = std::max(options.buckets, 2 * p) - 2 * p;
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < problem.next.size(); ++i) {
    KeyInterval& interval = problem.next[i];
    const std::uint64_t share =
        problem.total == 0 ? 0 : static_cast<std::uint64_t>(Wide(problem.next_counts[i]) * budget / problem.total);
    const std::uint64_t width = interval.hi - interval.lo;  // keys - 1
    interval.buckets = std::min(2 + share, width == ~std::uint64_t{0} ? 2 + share : width + 1);
    interval.first_bucket = first;
    first += interval.buckets;
  }
  problem.total_buckets = first;
}

std::size_t interval_of(const std::vector<KeyInterval>& intervals, std::uint64_t bucket) {
  std::size_t i = 0;
  while (intervals[i].first_bucket + intervals[i].buckets <= bucket) ++i;
  return i;
}

// Identify Active Buckets from the summed counts: the bucket of each pending rank; each active
// bucket is a single candidate (its owner answers), one key (a repeated value, answered without
// communication) or kept for the next iteration.
void identify_active(Problem& p) {
  p.keep.clear(), p.singles.clear(), p.next.clear(), p.next_counts.clear();
  p.pending_bucket.assign(p.pending.size(), 0);
  p.before.assign(p.pending.size(), 0);  // candidates in earlier buckets
  std::uint64_t bucket = 0, cumulative = 0;
  for (std::size_t q = 0; q < p.pending.size(); ++q) {
    while (cumulative + p.counts[bucket] <= p.pending[q].rank) cumulative += p.counts[bucket++];
    p.pending_bucket[q] = bucket;
    p.before[q] = cumulative;
  }
  for (std::size_t q = 0; q < p.pending.size(); ++q) {
    const std::uint64_t b = p.pending_bucket[q];
    if (q > 0 && b == p.pending_bucket[q - 1]) continue;
    const KeyInterval& interval = p.intervals[interval_of(p.intervals, b)];
    const auto [lo, hi] = bucket_key_range(interval, b - interval.first_bucket);
    if (p.counts[b] == 1) {
      p.singles.push_back(b);
    } else if (lo != hi) {
      p.keep.push_back(b);
      p.next.push_back({lo, hi, 0, 0});
      p.next_counts.push_back(p.counts[b]);
    }
  }
}

// After the owners' answers are in: answers, the pending ranks re-based to the kept
// candidates, and whether the stopping rule fires.
void settle_pending(Problem& p, const DibmsOptions& options, std::uint64_t& single_answers) {
  std::vector<Pending> still;
  std::uint64_t kept_before = 0;
  std::size_t kept_index = 0;
  for (std::size_t q = 0; q < p.pending.size(); ++q) {
    const std::uint64_t b = p.pending_bucket[q];
    const auto single = std::lower_bound(p.singles.begin(), p.singles.end(), b);
    const auto kept = std::lower_bound(p.keep.begin(), p.keep.end(), b);
    if (single != p.singles.end() && *single == b) {
      p.answer[p.pending[q].index] = p.found[static_cast<std::size_t>(single - p.singles.begin())];
      ++single_answers;
    } else if (kept != p.keep.end() && *kept == b) {
      for (; kept_index < static_cast<std::size_t>(kept - p.keep.begin()); ++kept_index) kept_before += p.next_counts[kept_index];
      still.push_back({p.pending[q].rank - p.before[q] + kept_before, p.pending[q].index});
    } else {  // a bucket of one key
      const KeyInterval& interval = p.intervals[interval_of(p.intervals, b)];
      p.answer[p.pending[q].index] = bucket_key_range(interval, b - interval.first_bucket)[0];
    }
  }
  p.pending = std::move(still);
  if (p.pending.empty()) return;
  const std::uint64_t remaining = std::accumulate(p.next_counts.begin(), p.next_counts.end(), std::uint64_t{0});
  p.stalls = remaining == p.total ? p.stalls + 1 : 0;
  p.total = remaining;
  p.check = p.stalls >= options.stalls_before_check;
}

// The stopping rule for repeated values: the candidates stopped shrinking, so the active
// buckets probably hold one value each. The paper then returns that value; we confirm it with
// each bucket's exact key range (all-reduced), answer the buckets of one value and go on with
// the exact ranges of the others.
void confirm_repeated_values(Problem& p, std::span<const std::uint64_t> ranges) {
  std::vector<Pending> unresolved;
  std::uint64_t segment_end = 0;
  for (std::size_t s = 0, q = 0; s < p.next.size(); ++s) {
    p.next[s].lo = ranges[2 * s];
    p.next[s].hi = ~ranges[2 * s + 1];
    segment_end += p.next_counts[s];
    for (; q < p.pending.size() && p.pending[q].rank < segment_end; ++q) {
      if (p.next[s].lo == p.next[s].hi) p.answer[p.pending[q].index] = p.next[s].lo;
      else unresolved.push_back(p.pending[q]);
    }
  }
  p.pending = std::move(unresolved);
  p.stalls = 0;
}

// p's answers for `pending` (sorted by rank; rank r is keys[r - offset]): the middle rank's key
// by std::nth_element, then each side's ranks in its part, O(n log m) where a sort of the
// gathered keys took O(n log n) (16384 keys: 0.8 ms on the 2-core host, 1.2 of an H200 host's
// 2.2 ms median call).
void answer_ranks(Problem& p, std::span<std::uint64_t> keys, std::uint64_t offset, std::span<const Pending> pending) {
  if (pending.empty()) return;
  const std::uint64_t rank = pending[pending.size() / 2].rank;
  const auto first = std::partition_point(pending.begin(), pending.end(), [&](const Pending& q) { return q.rank < rank; });
  const auto last = std::partition_point(first, pending.end(), [&](const Pending& q) { return q.rank == rank; });
  const std::size_t at = rank - offset;
  std::nth_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(at), keys.end());
  for (auto q = first; q != last; ++q) p.answer[q->index] = keys[at];
  answer_ranks(p, keys.first(at), offset, pending.first(static_cast<std::size_t>(first - pending.begin())));
  answer_ranks(p, keys.subspan(at + 1), rank + 1, pending.subspan(static_cast<std::size_t>(last - pending.begin())));
}

// Answers every pending rank of `problems` from their kept candidates, gathered from all ranks
// (the pending ranks count among the kept candidates, whose buckets are disjoint key ranges in
// increasing order: the rank's key is the rank-th of them all). Returns the candidates gathered.
std::uint64_t answer_from_gathered(Communicator& comm, std::span<Problem* const> problems) {
  std::vector<std::vector<std::uint64_t>> mine(problems.size());  // per problem: this rank's count, then its keys
  each_problem(problems, [&](std::size_t i) {
    const std::vector<std::uint64_t> keys = problems[i]->shard->kept_candidates();
    mine[i].push_back(keys.size());
    mine[i].insert(mine[i].end(), keys.begin(), keys.end());
  });
  const std::vector<std::uint64_t> all = comm.all_gather(joined(mine));  // rank after rank, problem after problem
  std::vector<std::vector<std::uint64_t>> pooled(problems.size());
  for (std::size_t at = 0; at < all.size();) {
    for (std::size_t i = 0; i < problems.size(); ++i) {
      const auto count = static_cast<std::ptrdiff_t>(all[at++]);
      const auto from = all.begin() + static_cast<std::ptrdiff_t>(at);
      pooled[i].insert(pooled[i].end(), from, from + count);
      at += static_cast<std::size_t>(count);
    }
  }
  std::uint64_t gathered = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Problem& p = *problems[i];
    std::vector<std::uint64_t>& keys = pooled[i];
    if (keys.size() != p.total) throw std::logic_error("dibms_select: the gathered candidates differ from the counts");
    answer_ranks(p, keys, 0, p.pending);
    p.pending.clear();
    gathered += keys.size();
  }
  return gathered;
}

// The problems' answers (keys) and the call's report, from Phase 1's intervals on: the
// iterations and the gather. `n_checked`: the first counts must sum to each problem's n (its
// n was given, not all-reduced).
void run_iterations(Communicator& comm, std::vector<Problem*> active, const DibmsOptions& options, bool n_checked,
                    int& iterations, int& checks, std::uint64_t& single_answers, std::uint64_t& gathered) {
  // Bucket counts in 4 bytes each where no problem has 2^32 values: half the bytes of the
  // per-iteration all-reduce (a batch of 20 LTS candidates sends 20 x 8192 counts).
  const bool fits_32_bits = std::all_of(active.begin(), active.end(), [](const Problem* p) { return p->n < (std::uint64_t{1} << 32); });
  while (!active.empty()) {
    if (++iterations > options.max_iterations) throw std::logic_error("dibms_select: no convergence");
    common::Stopwatch watch;
    // Assign Buckets: local counts of every active problem, summed over the ranks at once.
    std::vector<std::vector<std::uint64_t>> local_counts(active.size());
    each_problem(active, [&](std::size_t i) {
      const Problem& p = *active[i];
      local_counts[i] = p.shard->count_buckets(p.intervals, p.total_buckets, p.segmented);
    });
    common::trace("dibms count", watch.lap(), iterations);
    std::vector<std::uint64_t> counts = joined(local_counts);
    sum_counts(comm, counts, fits_32_bits);
    common::trace("dibms sum counts", watch.lap(), static_cast<long long>(counts.size()));
    std::vector<std::size_t> offsets(1, 0);  // of each problem's counts
    for (const Problem* p : active) offsets.push_back(offsets.back() + p->total_buckets);
    if (n_checked && iterations == 1) {
      for (std::size_t i = 0; i < active.size(); ++i) {
        const auto first = counts.begin() + static_cast<std::ptrdiff_t>(offsets[i]);
        if (std::accumulate(first, counts.begin() + static_cast<std::ptrdiff_t>(offsets[i + 1]), std::uint64_t{0}) != active[i]->n)
          throw std::invalid_argument("dibms_select_bracketed: a bracket's n differs from the values over all ranks");
      }
    }
    // Identify Active Buckets, then Reduce: each rank keeps its candidates of the kept buckets;
    // single candidates come from their owners (one all-reduce of keys, 0 where absent).
    std::vector<std::vector<std::uint64_t>> local_found(active.size());
    each_problem(active, [&](std::size_t i) {
      Problem& p = *active[i];
      p.counts.assign(counts.begin() + static_cast<std::ptrdiff_t>(offsets[i]),
                      counts.begin() + static_cast<std::ptrdiff_t>(offsets[i + 1]));
      identify_active(p);
      local_found[i] = p.shard->reduce(p.keep, p.singles);
    });
    common::trace("dibms reduce", watch.lap(), iterations);
    std::vector<std::uint64_t> found = joined(local_found);
    comm.all_reduce_max(found);
    std::size_t at = 0;
    std::vector<std::uint64_t> key_ranges;
    for (Problem* p : active) {
      p->found.assign(found.begin() + static_cast<std::ptrdiff_t>(at),
                      found.begin() + static_cast<std::ptrdiff_t>(at + p->singles.size()));
      at += p->singles.size();
      settle_pending(*p, options, single_answers);
      if (!p->pending.empty() && p->check) {
        const std::vector<std::uint64_t> local = p->shard->segment_key_ranges();
        key_ranges.insert(key_ranges.end(), local.begin(), local.end());
      }
    }
    if (!key_ranges.empty()) comm.all_reduce_min(key_ranges);  // every rank knows whether any problem checks
    at = 0;
    std::vector<Problem*> still, gathering;
    // Every rank has the same active problems and totals, so the same ones gather.
    const std::uint64_t gather_share = options.gather_candidates / active.size();
    for (Problem* p : active) {
      if (p->pending.empty()) continue;
      if (p->check) {
        confirm_repeated_values(*p, std::span<const std::uint64_t>(key_ranges).subspan(at, 2 * p->next.size()));
        at += 2 * p->next.size();
        p->check = false;
        ++checks;
        if (p->pending.empty()) continue;
      }
      if (p->total <= gather_share) {
        gathering.push_back(p);
        continue;
      }
      allot_buckets(*p, options);
      p->intervals = std::move(p->next);
      p->segmented = true;
      still.push_back(p);
    }
    common::trace("dibms settle", watch.lap(), static_cast<long long>(gathering.size()));
    if (!gathering.empty()) gathered += answer_from_gathered(comm, gathering);
    common::trace("dibms gather", watch.lap(), static_cast<long long>(still.size()));
    active = std::move(still);
  }
}

// The answers as values, and the report.
std::vector<std::vector<double>> finished(Communicator& comm, const std::vector<Problem>& problems, std::uint64_t bytes_before,
                                          int iterations, int checks, std::uint64_t single_answers, std::uint64_t gathered,
                                          SelectionReport* report) {
  const std::size_t count = problems.size();
  if (report != nullptr) *report = {0, comm.bytes() - bytes_before, iterations, gathered, checks, single_answers};
  std::vector<std::vector<double>> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (report != nullptr) report->n += problems[i].n;
    values[i].resize(problems[i].answer.size());
    std::transform(problems[i].answer.begin(), problems[i].answer.end(), values[i].begin(), from_order_key);
  }
  return values;
}

// The problems of shards and ks, each shard reset; ranks in ascending order.
std::vector<Problem> problems_of(std::span<LocalShard* const> shards, std::span<const std::vector<std::uint64_t>> ks) {
  if (shards.size() != ks.size()) throw std::invalid_argument("dibms_select_batched: one list of ranks per shard");
  std::vector<Problem> problems(shards.size());
  for (std::size_t i = 0; i < shards.size(); ++i) {
    problems[i].shard = shards[i];
    shards[i]->reset();
    problems[i].answer.assign(ks[i].size(), 0);
  }
  return problems;
}

void sort_pending(Problem& p) {
  std::sort(p.pending.begin(), p.pending.end(), [](const Pending& a, const Pending& b) { return a.rank < b.rank; });
}

}  // namespace

std::vector<std::vector<double>> dibms_select_batched(Communicator& comm, std::span<LocalShard* const> shards,
                                                      std::span<const std::vector<std::uint64_t>> ks,
                                                      const DibmsOptions& options, SelectionReport* report) {
  const std::uint64_t bytes_before = comm.bytes();
  std::vector<Problem> problems = problems_of(shards, ks);
  const std::size_t count = problems.size();
  std::vector<std::uint64_t> sizes(count), ranges(2 * count);
  for (std::size_t i = 0; i < count; ++i) {
    sizes[i] = shards[i]->size();
    const auto range = shards[i]->key_range();
    ranges[2 * i] = range[0], ranges[2 * i + 1] = range[1];
  }
  // Sizes summed and key ranges' minima over the ranks, from one all-gather of both.
  {
    std::vector<std::uint64_t> mine(sizes);
    mine.insert(mine.end(), ranges.begin(), ranges.end());
    const std::vector<std::uint64_t> all = comm.all_gather_equal(mine);
    std::fill(sizes.begin(), sizes.end(), 0);
    for (std::size_t r = 0; r < static_cast<std::size_t>(comm.size()); ++r) {
      const std::uint64_t* theirs = all.data() + r * mine.size();
      for (std::size_t i = 0; i < count; ++i) sizes[i] += theirs[i];
      for (std::size_t j = 0; j < 2 * count; ++j) ranges[j] = std::min(ranges[j], theirs[count + j]);
    }
  }
  std::vector<Problem*> active;
  for (std::size_t i = 0; i < count; ++i) {
    Problem& p = problems[i];
    p.n = sizes[i], p.min = ranges[2 * i], p.max = ~ranges[2 * i + 1];
    check_ranks(p.n, ks[i]);
    for (std::size_t j = 0; j < ks[i].size(); ++j) {
      if (ks[i][j] == 0 || p.min == p.max) p.answer[j] = p.min;
      else if (ks[i][j] == p.n - 1) p.answer[j] = p.max;
      else p.pending.push_back({ks[i][j], j});
    }
    sort_pending(p);
    if (!p.pending.empty()) active.push_back(&p);
  }
  int iterations = 0, checks = 0;
  std::uint64_t single_answers = 0, gathered = 0;
  if (!active.empty()) phase1_intervals(comm, active, options);
  run_iterations(comm, std::move(active), options, false, iterations, checks, single_answers, gathered);
  return finished(comm, problems, bytes_before, iterations, checks, single_answers, gathered, report);
}

std::vector<std::vector<double>> dibms_select_bracketed(Communicator& comm, std::span<LocalShard* const> shards,
                                                        std::span<const std::vector<std::uint64_t>> ks,
                                                        std::span<const DibmsBracket> brackets,
                                                        const DibmsOptions& options, SelectionReport* report) {
  if (brackets.size() != shards.size()) throw std::invalid_argument("dibms_select_bracketed: one bracket per shard");
  const std::uint64_t bytes_before = comm.bytes();
  std::vector<Problem> problems = problems_of(shards, ks);
  std::vector<Problem*> active;
  std::vector<std::uint64_t> lo_keys, hi_keys;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Problem& p = problems[i];
    const DibmsBracket& bracket = brackets[i];
    if (!(bracket.lo <= bracket.hi)) throw std::invalid_argument("dibms_select_bracketed: a bracket needs lo <= hi, neither NaN");
    // Nothing is known of the values' range: every key may occur (the iterations find the rest).
    p.n = bracket.n, p.min = 0, p.max = ~std::uint64_t{0};
    check_ranks(p.n, ks[i]);
    for (std::size_t j = 0; j < ks[i].size(); ++j) p.pending.push_back({ks[i][j], j});
    sort_pending(p);
    if (p.pending.empty()) continue;
    active.push_back(&p);
    lo_keys.push_back(order_key(bracket.lo));
    hi_keys.push_back(order_key(bracket.hi));
  }
  int iterations = 0, checks = 0;
  std::uint64_t single_answers = 0, gathered = 0;
  bracket_intervals(active, lo_keys, hi_keys, options);
  run_iterations(comm, std::move(active), options, true, iterations, checks, single_answers, gathered);
  return finished(comm, problems, bytes_before, iterations, checks, single_answers, gathered, report);
}

std::vector<double> dibms_select(Communicator& comm, LocalShard& shard, std::span<const std::uint64_t> ks,
                                 const DibmsOptions& options, SelectionReport* report) {
  LocalShard* const shards[] = {&shard};
  const std::vector<std::uint64_t> ranks(ks.begin(), ks.end());
  return dibms_select_batched(comm, shards, std::span<const std::vector<std::uint64_t>>(&ranks, 1), options, report)[0];
}

}  // namespace robustfit::distributed
