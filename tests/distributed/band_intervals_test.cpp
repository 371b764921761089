// DIBMS's band-aligned Phase 1 intervals (band_intervals.hpp) against brute force: they tile
// the bands from the smallest to the largest key, each a whole band with a power-of-two bucket
// count in proportion to its share of the sample, and band arithmetic gives every key the
// bucket that bucket_of finds; the shards' band table (src/cuda/band_table.hpp) finds it too.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/band_table.hpp"
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
    std::uint64_t total = 0, sampled_bands = 0, bands = 0;
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      const rd::KeyInterval& interval = intervals[i];
      const auto in_band = static_cast<std::uint64_t>(std::upper_bound(sample.begin(), sample.end(), interval.hi) -
                                                      std::lower_bound(sample.begin(), sample.end(), interval.lo));
      // A sampled band alone; bands without sampled keys in runs of one bucket, as long as they go.
      const std::uint64_t spanned = rd::band_of_key(interval.hi) - rd::band_of_key(interval.lo) + 1;
      bands += spanned;
      if (in_band != 0) {
        EXPECT_EQ(spanned, 1u) << what;
      } else {
        EXPECT_EQ(interval.buckets, 1u) << what;
      }
      if (in_band == 0 && i > 0) {
        const rd::KeyInterval& before = intervals[i - 1];
        EXPECT_NE(std::upper_bound(sample.begin(), sample.end(), before.hi) - std::lower_bound(sample.begin(), sample.end(), before.lo), 0)
            << what << ": two runs of unsampled bands side by side";
      }
      // The smallest power of two holding the band's share of 8192 buckets (one where unsampled).
      EXPECT_TRUE(std::has_single_bit(interval.buckets)) << what;
      EXPECT_GE(interval.buckets * 1024, in_band * 8192) << what;
      if (interval.buckets > 1) {
        EXPECT_LT(interval.buckets / 2 * 1024, in_band * 8192) << what;
      }
      sampled_bands += in_band != 0;
      total += interval.buckets;
    }
    EXPECT_EQ(bands, rd::band_of_key(max) - rd::band_of_key(min) + 1) << what;
    // Values of both signs span the ~2000 bands between -1 and 1, nearly all unsampled: few runs.
    if (d == Distribution::normal) {
      EXPECT_GT(bands, 2000u) << what;
      EXPECT_LT(intervals.size(), 200u) << what;
    }
    EXPECT_GE(total, std::uint64_t{8192}) << what;  // rounding up: at least the buckets asked for ...
    EXPECT_LE(total, 2 * 8192 + intervals.size()) << what;  // ... at most twice, and one a run of empty bands
    // Every value's bucket by band arithmetic is bucket_of's, and buckets grow with the key.
    std::uint64_t previous = 0;
    for (const std::uint64_t key : keys) {
      const rd::KeyInterval& interval = interval_holding(intervals, key);
      const int bits = std::countr_zero(interval.buckets);
      const std::uint64_t by_band =
          interval.buckets == 1 ? interval.first_bucket : interval.first_bucket + ((key - interval.lo) >> (rd::kBandShift - bits));
      ASSERT_EQ(by_band, rd::bucket_of(interval, key)) << what << " key " << key;
      ASSERT_GE(by_band, previous) << what;
      previous = by_band;
    }
  }
}

// The table's bucket of every key of every distribution is bucket_of's in the interval that
// holds the key (found by linear search), for B = 8192 and for B = 2 (most bands one bucket).
TEST(BandTable, GivesBucketOfForEveryKey) {
  std::mt19937_64 rng(5);
  for (const Distribution d : robustfit::data::all_distributions()) {
    const std::vector<std::uint64_t> keys = sorted_keys(robustfit::data::make_distribution<double>(d, 20000, 9));
    std::vector<std::uint64_t> sample;
    for (int i = 0; i < 1024; ++i) sample.push_back(keys[rng() % keys.size()]);
    std::sort(sample.begin(), sample.end());
    for (const std::uint64_t buckets : {std::uint64_t{8192}, std::uint64_t{2}}) {
      const auto intervals = rd::band_aligned_intervals(sample, keys.front(), keys.back(), buckets);
      std::vector<std::uint32_t> table;
      ASSERT_TRUE(rd::detail::make_band_table(intervals, table)) << robustfit::data::to_string(d);
      ASSERT_EQ(table.size(), std::size_t{rd::detail::kKeyBands});
      for (const std::uint64_t key : keys)
        ASSERT_EQ(rd::detail::band_bucket(key, table.data()), rd::bucket_of(interval_holding(intervals, key), key))
            << robustfit::data::to_string(d) << " B = " << buckets << " key " << key;
      // Bands outside the intervals: the first bucket below them, the last above.
      const std::uint64_t total = intervals.back().first_bucket + intervals.back().buckets;
      if (intervals.front().lo > 0) {
        EXPECT_EQ(rd::detail::band_bucket(intervals.front().lo - 1, table.data()), 0u);
      }
      if (intervals.back().hi < ~std::uint64_t{0}) {
        EXPECT_EQ(rd::detail::band_bucket(intervals.back().hi + 1, table.data()), total - 1);
      }
    }
  }
}

// A float's bucket from its 32-bit key (float_band_table) is the 64-bit key's, for the floats of
// every distribution and every class of float (zeros, subnormals, the smallest and largest
// normals, infinities), for B = 8192 and 2, and for a band cut into 2^24 buckets (finer than a
// float's mantissa: the 64-bit path); without the 64-bit path where no entry asks for it.
TEST(BandTable, FloatKeysGiveTheWideKeysBucket) {
  using limits = std::numeric_limits<float>;
  std::vector<float> values{0.0f, -0.0f, limits::denorm_min(), -limits::denorm_min(), limits::min(), -limits::min(),
                            limits::max(), -limits::max(), limits::infinity(), -limits::infinity(), 1.0f, -1.0f,
                            std::nextafter(1.0f, 2.0f), std::nextafter(-1.0f, -2.0f), 1e-39f, -1e-39f};
  std::mt19937 bits(3);
  for (int i = 0; i < 20000; ++i) {  // any bit pattern but NaN's
    const float v = std::bit_cast<float>(static_cast<std::uint32_t>(bits()));
    if (v == v) values.push_back(v);
  }
  for (const Distribution d : robustfit::data::all_distributions()) {
    const auto some = robustfit::data::make_distribution<float>(d, 5000, 13);
    values.insert(values.end(), some.begin(), some.end());
  }
  std::vector<std::uint64_t> keys, normal_keys;
  for (const float v : values) keys.push_back(rd::order_key(static_cast<double>(v)));
  for (const float v : robustfit::data::make_distribution<float>(Distribution::normal, 5000, 13))
    normal_keys.push_back(rd::order_key(static_cast<double>(v)));
  std::sort(keys.begin(), keys.end());
  std::sort(normal_keys.begin(), normal_keys.end());
  std::vector<std::uint64_t> sample;
  for (std::size_t i = 0; i < keys.size(); i += keys.size() / 1000) sample.push_back(keys[i]);
  // {intervals, whether some float entry needs the 64-bit key}: a sample with subnormals in it;
  // B = 2 from it; a sample of normal values only (the zeros and subnormals in one run of bands);
  // [1, 2) in 2^24 buckets, alone.
  std::vector<std::pair<std::vector<rd::KeyInterval>, bool>> layouts;
  layouts.push_back({rd::band_aligned_intervals(sample, keys.front(), keys.back(), 8192), true});
  layouts.push_back({rd::band_aligned_intervals(sample, keys.front(), keys.back(), 2), true});
  layouts.push_back({rd::band_aligned_intervals(normal_keys, keys.front(), keys.back(), 8192), false});
  const std::uint64_t one = rd::order_key(1.0);
  layouts.push_back({{{rd::band_of_key(one) << rd::kBandShift, (rd::band_of_key(one) << rd::kBandShift) + rd::kBandKeys - 1,
                       std::uint64_t{1} << 24, 0}},
                     true});
  for (const auto& [intervals, wide] : layouts) {
    std::vector<std::uint32_t> table;
    ASSERT_TRUE(rd::detail::make_band_table(intervals, table));
    const std::vector<std::uint32_t> floats = rd::detail::float_band_table(table);
    ASSERT_EQ(floats.size(), std::size_t{rd::detail::kFloatBands});
    EXPECT_EQ(rd::detail::needs_wide_keys(floats), wide) << intervals.size() << " intervals";
    for (const float v : values) {
      const std::uint32_t want = rd::detail::band_bucket(rd::order_key(static_cast<double>(v)), table.data());
      const std::uint32_t key = rd::detail::float_key(v);
      ASSERT_EQ(rd::detail::float_band_bucket<true>(key, floats.data(), table.data()), want)
          << "value " << v << ", " << intervals.size() << " intervals";
      if (!rd::detail::needs_wide_keys(floats)) {
        ASSERT_EQ(rd::detail::float_band_bucket<false>(key, floats.data(), table.data()), want)
            << "value " << v << ", " << intervals.size() << " intervals, no wide keys";
      }
    }
  }
}

TEST(BandTable, RefusesIntervalsThatAreNotBandAligned) {
  const std::vector<std::uint64_t> sample{rd::order_key(1.0), rd::order_key(3.0)};
  auto intervals = rd::band_aligned_intervals(sample, rd::order_key(1.0), rd::order_key(3.0), 64);
  std::vector<std::uint32_t> table{7};
  intervals[0].buckets = 3;  // not a power of two
  EXPECT_FALSE(rd::detail::make_band_table(intervals, table));
  EXPECT_EQ(table, std::vector<std::uint32_t>{7});  // untouched
  const std::vector<rd::KeyInterval> pivots{{0, 99, 4, 0}, {100, ~std::uint64_t{0}, 4, 4}};
  EXPECT_FALSE(rd::detail::make_band_table(pivots, table));
  // A band of 2^25 buckets: more than a table word's 24 bits number.
  const std::vector<rd::KeyInterval> wide{{0, rd::kBandKeys - 1, std::uint64_t{1} << 25, 0}};
  ASSERT_TRUE(rd::are_band_aligned(wide));
  EXPECT_FALSE(rd::detail::make_band_table(wide, table));
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
  // A run of bands: with one bucket, not with two.
  std::vector<rd::KeyInterval> run{{intervals[0].lo, intervals[1].hi, 1, 0}};
  EXPECT_TRUE(rd::are_band_aligned(run));
  run[0].buckets = 2;
  EXPECT_FALSE(rd::are_band_aligned(run));
  run = {{intervals[0].lo, intervals[1].hi - 1, 1, 0}};  // ends inside a band
  EXPECT_FALSE(rd::are_band_aligned(run));
  broken.push_back(intervals[0]);  // out of order
  EXPECT_FALSE(rd::are_band_aligned(broken));
  EXPECT_FALSE(rd::are_band_aligned({}));
}

}  // namespace
