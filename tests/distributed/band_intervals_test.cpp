// DIBMS's band-aligned Phase 1 intervals (band_intervals.hpp) against brute force: they tile
// the bands from the smallest to the largest key, each a whole band with a power-of-two bucket
// count in proportion to its share of the sample, and band arithmetic gives every key the
// bucket that bucket_of finds.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "robustfit/data/distributions.hpp"
#include "robustfit/distributed/band_intervals.hpp"
#include "robustfit/distributed/order_key.hpp"

namespace rd = robustfit::distributed;
using robustfit::data::Distribution;

namespace {

// The interval holding `key` by linear search (the reference: no assumption on their shape).
const rd::KeyInterval& interval_holding(const std::vector<rd::KeyInterval>& intervals, std::uint64_t key) {
  for (const rd::KeyInterval& interval : intervals)
    if (interval.lo <= key && key <= interval.hi) return interval;
  ADD_FAILURE() << "key " << key << " is in no interval";
  return intervals.front();
}

std::vector<std::uint64_t> sorted_keys(const std::vector<double>& values) {
  std::vector<std::uint64_t> keys;
  for (const double v : values) keys.push_back(rd::order_key(v));
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(BandIntervals, BucketBitsAreTheSmallestPowerOfTwoForTheShare) {
  EXPECT_EQ(rd::band_bucket_bits(0, 1024, 8192), 0);
  EXPECT_EQ(rd::band_bucket_bits(1024, 1024, 8192), 13);  // the whole sample: every bucket
  EXPECT_EQ(rd::band_bucket_bits(512, 1024, 8192), 12);   // half: exactly 4096
  EXPECT_EQ(rd::band_bucket_bits(513, 1024, 8192), 13);   // a little more: rounded up
  EXPECT_EQ(rd::band_bucket_bits(1, 1024, 8192), 3);      // 8 buckets for one sampled key in 1024
  EXPECT_EQ(rd::band_bucket_bits(1, 1, std::uint64_t{1} << 60), rd::kBandShift);  // at most a key a bucket
  for (std::uint64_t in_band = 1; in_band <= 1024; in_band += 37) {
    const int bits = rd::band_bucket_bits(in_band, 1024, 8192);
    EXPECT_GE((std::uint64_t{1} << bits) * 1024, 8192 * in_band) << in_band;
    if (bits > 0) {
      EXPECT_LT((std::uint64_t{1} << (bits - 1)) * 1024, 8192 * in_band) << in_band;
    }
  }
}

TEST(BandIntervals, TileTheBandsAndGiveBucketOfByArithmetic) {
  std::mt19937_64 rng(11);
  for (const Distribution d : robustfit::data::all_distributions()) {
    const auto values = robustfit::data::make_distribution<double>(d, 20000, 5);
    const std::vector<std::uint64_t> keys = sorted_keys(values);
    std::vector<std::uint64_t> sample;
    for (int i = 0; i < 1024; ++i) sample.push_back(keys[rng() % keys.size()]);
    std::sort(sample.begin(), sample.end());
    const std::uint64_t min = keys.front(), max = keys.back();
    const auto intervals = rd::band_aligned_intervals(sample, min, max, 8192);
    const std::string what(robustfit::data::to_string(d));
    ASSERT_FALSE(intervals.empty()) << what;
    EXPECT_TRUE(rd::are_band_aligned(intervals)) << what;
    EXPECT_EQ(intervals.front().lo, rd::band_of_key(min) << rd::kBandShift) << what;
    EXPECT_EQ(rd::band_of_key(intervals.back().hi), rd::band_of_key(max)) << what;
    EXPECT_EQ(intervals.size(), rd::band_of_key(max) - rd::band_of_key(min) + 1) << what;
    std::uint64_t total = 0, sampled_bands = 0;
    for (const rd::KeyInterval& interval : intervals) {
      const auto in_band = static_cast<std::uint64_t>(std::upper_bound(sample.begin(), sample.end(), interval.hi) -
                                                      std::lower_bound(sample.begin(), sample.end(), interval.lo));
      // The smallest power of two holding the band's share of 8192 buckets (one where unsampled).
      EXPECT_TRUE(std::has_single_bit(interval.buckets)) << what;
      EXPECT_GE(interval.buckets * 1024, in_band * 8192) << what;
      if (interval.buckets > 1) {
        EXPECT_LT(interval.buckets / 2 * 1024, in_band * 8192) << what;
      }
      sampled_bands += in_band != 0;
      total += interval.buckets;
    }
    EXPECT_GE(total, std::uint64_t{8192}) << what;  // rounding up: at least the buckets asked for ...
    EXPECT_LE(total, 2 * 8192 + intervals.size()) << what;  // ... at most twice, and one an empty band
    // Every value's bucket by band arithmetic is bucket_of's, and buckets grow with the key.
    std::uint64_t previous = 0;
    for (const std::uint64_t key : keys) {
      const rd::KeyInterval& interval = interval_holding(intervals, key);
      const int bits = std::countr_zero(interval.buckets);
      const std::uint64_t by_band = interval.first_bucket + ((key - interval.lo) >> (rd::kBandShift - bits));
      ASSERT_EQ(by_band, rd::bucket_of(interval, key)) << what << " key " << key;
      ASSERT_GE(by_band, previous) << what;
      previous = by_band;
    }
  }
}

TEST(BandIntervals, AlignmentIsCheckedFieldByField) {
  const std::vector<std::uint64_t> sample{rd::order_key(1.0), rd::order_key(1.5), rd::order_key(3.0)};
  const auto intervals = rd::band_aligned_intervals(sample, rd::order_key(1.0), rd::order_key(3.0), 64);
  ASSERT_TRUE(rd::are_band_aligned(intervals));
  ASSERT_EQ(intervals.size(), 2u);  // [1, 2) and [2, 4)
  auto broken = intervals;
  broken[0].lo += 1;  // not a whole band
  EXPECT_FALSE(rd::are_band_aligned(broken));
  broken = intervals;
  broken[1].buckets = 3;  // not a power of two
  EXPECT_FALSE(rd::are_band_aligned(broken));
  broken = intervals;
  broken[1].first_bucket += 1;  // a gap in the numbering
  EXPECT_FALSE(rd::are_band_aligned(broken));
  broken = {intervals[1]};
  broken[0].first_bucket = 0;
  EXPECT_TRUE(rd::are_band_aligned(broken));
  broken.push_back(intervals[0]);  // out of order
  EXPECT_FALSE(rd::are_band_aligned(broken));
  EXPECT_FALSE(rd::are_band_aligned({}));
}

}  // namespace
