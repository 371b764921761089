// The CUDA shard's reduce finds a candidate's slot from its key alone (slot_ranges.hpp): equal,
// on the host, to the slot of the bucket that bucket_of gives in the candidate's interval, for
// disjoint intervals that cover the keys (a first count) or leave gaps (segments), with keys
// from 0 to 2^64 - 1, intervals of more buckets than keys, adjacent kept buckets; and
// overlapping intervals are reported (the shard then computes each bucket).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/slot_ranges.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/local_shard.hpp"

namespace rd = robustfit::distributed;

namespace {

constexpr std::uint64_t kMax = ~std::uint64_t{0};

TEST(SlotRanges, TheKeysRangeGivesTheSlotOfItsBucket) {
  robustfit::common::Random random(20261126);
  std::uint64_t checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const bool covering = trial % 2 == 0;
    // Disjoint intervals between sorted cut points (whole key space on some trials).
    const std::uint64_t count = 1 + random.below(trial % 5 == 0 ? 3 : 40);
    const std::uint64_t bottom = trial % 3 == 0 ? 0 : random.below(kMax / 2);
    const std::uint64_t top = trial % 3 == 0 ? kMax : bottom + (random.next() >> random.below(64)) / 2;
    std::vector<std::uint64_t> cuts{bottom};
    for (std::uint64_t i = 1; i < count; ++i) cuts.push_back(bottom + random.below(top - bottom + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<rd::KeyInterval> intervals;
    std::uint64_t first = 0;
    for (std::size_t i = 0; i < cuts.size(); ++i) {
      std::uint64_t lo = cuts[i], hi = i + 1 < cuts.size() ? cuts[i + 1] - 1 : top;
      if (!covering && hi > lo + 2) lo += random.below(2), hi -= random.below(2);  // gaps between segments
      const std::uint64_t buckets = 1 + random.below(trial % 7 == 3 ? 64 : 600);   // sometimes more than keys
      intervals.push_back({lo, hi, buckets, first});
      first += buckets;
    }
    // Kept and single buckets: disjoint increasing sets, runs of adjacent buckets included.
    std::vector<std::uint64_t> keep, singles;
    for (std::uint64_t b = 0; b < first; ++b) {
      const std::uint64_t draw = random.below(first < 40 ? 3 : 40);
      if (draw == 0) keep.push_back(b);
      else if (draw == 1) singles.push_back(b);
    }
    std::vector<std::int32_t> slot_of_bucket(first, -1);
    for (std::size_t k = 0; k < keep.size(); ++k) slot_of_bucket[keep[k]] = static_cast<std::int32_t>(k);
    for (std::size_t s = 0; s < singles.size(); ++s) slot_of_bucket[singles[s]] = static_cast<std::int32_t>(keep.size() + s);

    rd::detail::SlotRanges ranges;
    ASSERT_TRUE(rd::detail::make_slot_ranges(intervals, keep, singles, ranges));
    std::vector<std::uint32_t> bins;
    rd::detail::IntervalLookup lookup;
    if (!ranges.edges.empty()) lookup = rd::detail::make_interval_lookup(ranges.edges, 64 << random.below(7), bins);
    for (const rd::KeyInterval& interval : intervals) {
      std::vector<std::uint64_t> keys{interval.lo, interval.hi};
      for (std::uint64_t j = 0; j < interval.buckets; j += 1 + interval.buckets / 50) {
        const auto [a, b] = rd::bucket_key_range(interval, j);
        for (std::uint64_t key : {a, b, a - 1, b + 1})
          if (key >= interval.lo && key <= interval.hi) keys.push_back(key);
      }
      for (int i = 0; i < 40; ++i)
        keys.push_back(interval.lo + (interval.hi - interval.lo == kMax ? random.next() : random.below(interval.hi - interval.lo + 1)));
      for (std::uint64_t key : keys) {
        const std::int32_t want = slot_of_bucket[rd::bucket_of(interval, key)];
        const std::int32_t got = ranges.edges.empty()
                                     ? -1
                                     : rd::detail::slot_of_key(lookup, bins.data(), ranges.edges.data(), ranges.slots.data(), key);
        ASSERT_EQ(got, want) << "trial " << trial << " key " << key << " interval [" << interval.lo << ", " << interval.hi
                             << "] buckets " << interval.buckets;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100000u);
}

TEST(SlotRanges, OverlappingIntervalsAreReported) {
  const std::vector<rd::KeyInterval> intervals{{100, 200, 4, 0}, {200, 300, 4, 4}};
  const std::vector<std::uint64_t> keep{1}, singles{5};
  rd::detail::SlotRanges ranges;
  EXPECT_FALSE(rd::detail::make_slot_ranges(intervals, keep, singles, ranges));
  const std::vector<rd::KeyInterval> apart{{201, 300, 4, 4}, {100, 200, 4, 0}};  // any order
  EXPECT_TRUE(rd::detail::make_slot_ranges(apart, keep, singles, ranges));
  EXPECT_EQ(ranges.edges, (std::vector<std::uint64_t>{126, 151, 226, 251}));  // W = 101: edges 26, 51; W = 100: 25, 50
  EXPECT_EQ(ranges.slots, (std::vector<std::int32_t>{0, -1, 1, -1}));
}

}  // namespace
