#pragma once
// The reduce's slot of a candidate from its key alone. The intervals of a count are disjoint key
// ranges and each splits into its buckets' exact key ranges (bucket_key_range), so a candidate
// is in a kept or single bucket exactly when its key lies in that bucket's range: the reduce
// looks the key up among the ranges' edges (interval_lookup.hpp) instead of computing its
// bucket. make_slot_ranges says when the intervals overlap (nothing in DIBMS makes them so); the
// shard then computes each candidate's bucket. Equal to slot_of_bucket[bucket_of(...)] for
// every candidate of disjoint intervals (tests/distributed_gpu compare them on the host).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "interval_lookup.hpp"
#include "robustfit/distributed/local_shard.hpp"

namespace robustfit::distributed::detail {

struct SlotRanges {
  std::vector<std::uint64_t> edges;  // nondecreasing: a range's first key, then the key after it
  std::vector<std::int32_t> slots;   // the slot of the keys from each edge on (-1: none)
};

// keep and singles: increasing bucket numbers; slot k for keep[k], keep.size() + s for
// singles[s]. Returns false when two intervals share a key.
inline bool make_slot_ranges(std::span<const KeyInterval> intervals, std::span<const std::uint64_t> keep,
                             std::span<const std::uint64_t> singles, SlotRanges& out) {
  out.edges.clear(), out.slots.clear();
  std::vector<const KeyInterval*> by_key, by_bucket;
  for (const KeyInterval& interval : intervals) by_key.push_back(&interval);
  std::sort(by_key.begin(), by_key.end(), [](const KeyInterval* a, const KeyInterval* b) { return a->lo < b->lo; });
  for (std::size_t i = 1; i < by_key.size(); ++i)
    if (by_key[i]->lo <= by_key[i - 1]->hi) return false;
  by_bucket = by_key;
  std::sort(by_bucket.begin(), by_bucket.end(),
            [](const KeyInterval* a, const KeyInterval* b) { return a->first_bucket < b->first_bucket; });
  struct Range {
    std::uint64_t lo, hi;
    std::int32_t slot;
  };
  std::vector<Range> ranges;
  const auto add = [&](std::uint64_t bucket, std::int32_t slot) {
    const auto after = std::upper_bound(by_bucket.begin(), by_bucket.end(), bucket,
                                        [](std::uint64_t b, const KeyInterval* i) { return b < i->first_bucket; });
    if (after == by_bucket.begin()) return;
    const KeyInterval& interval = **(after - 1);
    if (bucket - interval.first_bucket >= interval.buckets) return;  // a bucket of no interval: no candidate
    const auto [lo, hi] = bucket_key_range(interval, bucket - interval.first_bucket);
    if (lo <= hi && lo >= interval.lo) ranges.push_back({lo, hi, slot});  // else a bucket of no keys
  };
  for (std::size_t k = 0; k < keep.size(); ++k) add(keep[k], static_cast<std::int32_t>(k));
  for (std::size_t s = 0; s < singles.size(); ++s) add(singles[s], static_cast<std::int32_t>(keep.size() + s));
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
  for (const Range& range : ranges) {
    out.edges.push_back(range.lo), out.slots.push_back(range.slot);
    if (range.hi != ~std::uint64_t{0}) out.edges.push_back(range.hi + 1), out.slots.push_back(-1);
  }
  return true;
}

// The slot of `key` (-1: none); edges not empty.
ROBUSTFIT_LOOKUP_HOST_DEVICE inline std::int32_t slot_of_key(const IntervalLookup& lookup, const std::uint32_t* bins,
                                                             const std::uint64_t* edges, const std::int32_t* slots,
                                                             std::uint64_t key) {
  return key < edges[0] ? -1 : slots[interval_of(lookup, bins, edges, key)];
}

}  // namespace robustfit::distributed::detail
