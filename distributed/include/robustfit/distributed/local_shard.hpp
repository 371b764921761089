#pragma once
// The rank-local part of the distributed selection algorithms: everything that touches the
// rank's values (bucket assignment and counts, compaction, samples, cutting-plane sums) happens
// behind this interface, on the rank's own backend; the drivers (dibms.hpp, cutting_plane.hpp)
// see only counts, a few keys and sums. make_cpu_local_shard is the CPU backend;
// make_cuda_local_shard (cuda_local_shard.hpp) implements the same calls over device memory
// (one rank per GPU).
//
// Values are handled as order keys (order_key.hpp). A bucket interval [lo, hi] of keys with b
// buckets sends key x to bucket first + floor((x - lo) b / (hi - lo + 1)), computed exactly:
// monotone in x, and each bucket's key range is known exactly (bucket_key_range).
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace robustfit::distributed {

struct KeyInterval {
  std::uint64_t lo = 0, hi = 0;    // keys, inclusive
  std::uint64_t buckets = 1;       // b >= 1
  std::uint64_t first_bucket = 0;  // global number of its first bucket
};

__extension__ typedef unsigned __int128 Wide;  // GCC/Clang: exact (x - lo) b and hi - lo + 1

constexpr std::uint64_t bucket_of(const KeyInterval& interval, std::uint64_t key) {
  const Wide width = Wide(interval.hi - interval.lo) + 1;
  return interval.first_bucket + static_cast<std::uint64_t>(Wide(key - interval.lo) * interval.buckets / width);
}

// The keys that bucket_of sends to bucket `first_bucket + j`: [lo + ceil(j W / b), lo + ceil((j+1) W / b) - 1].
constexpr std::array<std::uint64_t, 2> bucket_key_range(const KeyInterval& interval, std::uint64_t j) {
  const Wide width = Wide(interval.hi - interval.lo) + 1, b = interval.buckets;
  const auto edge = [&](Wide i) { return static_cast<std::uint64_t>((i * width + b - 1) / b); };
  return {interval.lo + edge(j), interval.lo + edge(j + 1) - 1};
}

// Sums at a cutting-plane pivot over the keys strictly inside an open bracket (lo, hi):
// counts below / equal / above the pivot and the sums of (key - pivot) below and above, each
// summed exactly and rounded once (so every backend returns the same numbers).
struct PivotSums {
  double below = 0, equal = 0, above = 0, sum_below = 0, sum_above = 0;
};

class LocalShard {
 public:
  virtual ~LocalShard() = default;

  // Makes every value a candidate again (a selection starts here).
  virtual void reset() = 0;
  // Candidates left (all values after reset()).
  virtual std::uint64_t size() const = 0;
  // {smallest key, ~largest key} of the candidates; {~0, ~0} when there are none (neutral under
  // a minimum, so one all-reduce gives the global range).
  virtual std::array<std::uint64_t, 2> key_range() const = 0;
  // `count` keys drawn uniformly (with replacement) from the candidates, from `seed`.
  virtual std::vector<std::uint64_t> sample(std::uint64_t count, std::uint64_t seed) const = 0;

  // Assigns every candidate a bucket and returns the local count of each of `buckets` buckets.
  // segmented: the candidates are the segments left by the last reduce, segment i in
  // intervals[i]; otherwise intervals are sorted, disjoint, cover every candidate, and each
  // candidate's interval is found by binary search.
  virtual std::vector<std::uint64_t> count_buckets(std::span<const KeyInterval> intervals, std::uint64_t buckets,
                                                   bool segmented) = 0;
  // Keeps the candidates of the buckets in `keep` (increasing), as one segment per bucket in that
  // order, and returns for each bucket in `singles` (increasing) the key of its candidate here,
  // or 0 when it is not here. Uses the assignment of the last count_buckets.
  virtual std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep,
                                            std::span<const std::uint64_t> singles) = 0;
  // {smallest key, ~largest key} of each segment ({~0, ~0} when empty), flattened.
  virtual std::vector<std::uint64_t> segment_key_ranges() const = 0;
  // The keys of every segment kept by the last reduce, in any order (DIBMS gathers them once
  // few are left over all ranks).
  virtual std::vector<std::uint64_t> kept_candidates() const = 0;

  // Cutting plane, over all values (reduce does not change them): the sums at `pivot` over the
  // values with lo < key < hi.
  virtual PivotSums pivot_sums(std::uint64_t lo, std::uint64_t hi, std::uint64_t pivot) const = 0;
  // The keys with lo < key < hi, in any order.
  virtual std::vector<std::uint64_t> keys_inside(std::uint64_t lo, std::uint64_t hi) const = 0;

  // Whether calls on different shards of this kind may run at once on different threads, each
  // call finished when it returns (the CUDA shard: each thread's own stream; the CPU shard: each
  // call a serial pass over its own keys). DIBMS then runs a batch's per-shard calls on the
  // host's threads.
  virtual bool concurrent_calls() const { return false; }

  // Whether DIBMS's Phase 1 may cut the values into many pivot intervals at no extra cost a value
  // (the CUDA shard over float values: its first count finds each value's bucket among every
  // bucket's float threshold, whatever the intervals; the CPU shard and the key passes search
  // the intervals, and more of them cost more). See DibmsOptions::pivot_intervals.
  virtual bool fine_pivots_free() const { return false; }
};

// The CPU backend over a copy of `values` (float or double). Throws std::invalid_argument naming
// the position of the first NaN.
template <class T>
std::unique_ptr<LocalShard> make_cpu_local_shard(std::span<const T> values);

}  // namespace robustfit::distributed
