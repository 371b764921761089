// The CUDA shard's float-domain classification (float_keys.hpp), on the host: a float threshold is
// the least float key whose 64-bit order key reaches the edge (checked at the threshold and the
// key below it, for edges anywhere in the key space, at floats, between floats, at +-0 and +-inf),
// the 32-bit lookup over thresholds finds the same index as std::upper_bound - 1 over the
// 64-bit edges with the value's 64-bit order key, and the float count's bucket (the last bucket
// first key at or below the value, by thresholds) is bucket_of's in disjoint increasing intervals.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/fast_bucket.hpp"
#include "cuda/float_keys.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/order_key.hpp"

namespace rd = robustfit::distributed;

namespace {

float float_of_key(std::uint32_t key) {
  return std::bit_cast<float>((key & 0x80000000u) != 0 ? key & 0x7FFFFFFFu : ~key);
}

// A random non-NaN float: any bit pattern, small integers, or values near 0 and 1.
float random_float(robustfit::common::Random& random) {
  for (;;) {
    float value = 0;
    switch (random.below(4)) {
      case 0: value = std::bit_cast<float>(static_cast<std::uint32_t>(random.next())); break;
      case 1: value = static_cast<float>(static_cast<int>(random.below(21)) - 10); break;
      case 2: value = static_cast<float>(random.uniform()); break;
      default: value = std::bit_cast<float>(static_cast<std::uint32_t>(random.below(8))) * (random.below(2) ? -1.f : 1.f);
    }
    if (value == value) return value;
  }
}

std::uint64_t random_edge(robustfit::common::Random& random) {
  switch (random.below(4)) {
    case 0: return random.next();
    case 1: return rd::order_key(static_cast<double>(random_float(random)));
    case 2: return rd::order_key(static_cast<double>(random_float(random))) + 1 - 2 * random.below(2);
    default: return rd::order_key(random.uniform(-3, 3));
  }
}

TEST(FloatKeys, FloatKeyIsTheOrderOfFloats) {
  robustfit::common::Random random(20261123);
  for (int i = 0; i < 100000; ++i) {
    const float a = random_float(random), b = random_float(random);
    const std::uint64_t wide_a = rd::order_key(static_cast<double>(a)), wide_b = rd::order_key(static_cast<double>(b));
    EXPECT_EQ(rd::detail::float_key(a) < rd::detail::float_key(b), wide_a < wide_b) << a << " " << b;
    EXPECT_EQ(rd::detail::wide_key(rd::detail::float_key(a)), wide_a);
  }
}

TEST(FloatKeys, ThresholdIsTheLeastFloatKeyReachingTheEdge) {
  robustfit::common::Random random(20261124);
  std::vector<std::uint64_t> edges{0, 1, ~std::uint64_t{0}, rd::order_key(-0.0), rd::order_key(0.0),
                                   rd::order_key(0.0) + 1, rd::order_key(-0.0) + 1,
                                   rd::order_key(std::numeric_limits<double>::infinity()),
                                   rd::order_key(std::numeric_limits<double>::infinity()) + 1,
                                   rd::order_key(-std::numeric_limits<double>::infinity()),
                                   rd::order_key(1e300), rd::order_key(-1e300), rd::order_key(1e-300), rd::order_key(-1e-300)};
  for (int i = 0; i < 200000; ++i) edges.push_back(random_edge(random));
  for (const std::uint64_t edge : edges) {
    const std::uint32_t threshold = rd::detail::float_threshold(edge);
    ASSERT_GE(threshold, rd::detail::kLowestFloatKey);
    ASSERT_LE(threshold, rd::detail::kHighestFloatKey + 1);
    if (threshold <= rd::detail::kHighestFloatKey) {
      EXPECT_GE(rd::order_key(static_cast<double>(float_of_key(threshold))), edge) << edge;
    }
    if (threshold > rd::detail::kLowestFloatKey) {
      EXPECT_LT(rd::order_key(static_cast<double>(float_of_key(threshold - 1))), edge) << edge;
    }
  }
}

TEST(FloatKeys, LookupEqualsUpperBoundOverTheEdges) {
  robustfit::common::Random random(20261125);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::uint64_t> edges;
    const std::uint64_t count = 1 + random.below(trial % 3 == 0 ? 4 : 3000);
    if (trial % 2 == 0) {  // equal-width edges over a float range, as a count's buckets are
      const double lo = random.uniform(-2, 1), hi = lo + random.uniform(0, 4);
      const std::uint64_t a = rd::order_key(lo), b = rd::order_key(hi), step = std::max<std::uint64_t>((b - a) / count, 1);
      for (std::uint64_t i = 0; i < count; ++i) edges.push_back(a + i * step);
    } else {
      for (std::uint64_t i = 0; i < count; ++i) edges.push_back(random_edge(random));
    }
    std::sort(edges.begin(), edges.end());
    const std::vector<std::uint32_t> thresholds = rd::detail::float_thresholds(edges);
    const std::vector<std::uint64_t> widened(thresholds.begin(), thresholds.end());
    std::vector<std::uint32_t> table;
    const rd::detail::IntervalLookup lookup = rd::detail::make_interval_lookup(widened, std::uint64_t{2} << random.below(13), table);
    for (int i = 0; i < 3000; ++i) {
      const float value = i % 3 == 0 ? float_of_key(thresholds[random.below(thresholds.size())] - static_cast<std::uint32_t>(random.below(2)))
                                     : random_float(random);
      if (value != value) continue;
      const std::uint64_t key = rd::order_key(static_cast<double>(value));
      const auto after = std::upper_bound(edges.begin(), edges.end(), key) - edges.begin();
      const auto expected = static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(after - 1, 0));
      ASSERT_EQ(rd::detail::interval_of(lookup, table.data(), thresholds.data(), rd::detail::float_key(value)), expected)
          << "trial " << trial << " value " << value;
    }
  }
}

TEST(FloatKeys, BucketByThresholdsIsBucketOf) {
  robustfit::common::Random random(20261126);
  for (int trial = 0; trial < 200; ++trial) {
    // Disjoint increasing intervals over the order keys of sorted floats, buckets numbered in order.
    std::vector<float> values(2000);
    for (float& value : values) value = trial % 2 == 0 ? static_cast<float>(random.uniform()) : random_float(random);
    std::sort(values.begin(), values.end(), [](float a, float b) { return rd::detail::float_key(a) < rd::detail::float_key(b); });
    const std::size_t parts = 1 + random.below(5);
    std::vector<rd::KeyInterval> intervals;
    std::uint64_t buckets = 0;
    for (std::size_t p = 0; p < parts; ++p) {
      const std::uint64_t lo = rd::order_key(static_cast<double>(values[p * values.size() / parts]));
      const std::uint64_t hi = rd::order_key(static_cast<double>(values[(p + 1) * values.size() / parts - 1]));
      if (!intervals.empty() && lo <= intervals.back().hi) continue;
      const std::uint64_t b = std::min<std::uint64_t>(1 + random.below(trial % 3 == 0 ? 8192 : 40), hi - lo + 1);
      intervals.push_back({lo, hi, b, buckets});
      buckets += b;
    }
    std::vector<std::uint64_t> starts(buckets);
    for (const rd::KeyInterval& interval : intervals) rd::detail::write_bucket_starts(interval, starts);
    const std::vector<std::uint32_t> thresholds = rd::detail::float_thresholds(starts);
    const std::vector<std::uint64_t> widened(thresholds.begin(), thresholds.end());
    std::vector<std::uint32_t> table;
    const rd::detail::IntervalLookup lookup = rd::detail::make_interval_lookup(widened, 4096, table);
    std::vector<std::uint64_t> lows;
    for (const rd::KeyInterval& interval : intervals) lows.push_back(interval.lo);
    for (const float value : values) {
      const std::uint64_t key = rd::order_key(static_cast<double>(value));
      const auto after = std::upper_bound(lows.begin(), lows.end(), key) - lows.begin();
      const rd::KeyInterval& interval = intervals[static_cast<std::size_t>(std::max<std::ptrdiff_t>(after - 1, 0))];
      if (key < interval.lo || key > interval.hi) continue;  // between the intervals: no candidate of a count
      ASSERT_EQ(rd::detail::interval_of(lookup, table.data(), thresholds.data(), rd::detail::float_key(value)),
                rd::bucket_of(interval, key))
          << "trial " << trial << " value " << value;
    }
  }
}

}  // namespace
