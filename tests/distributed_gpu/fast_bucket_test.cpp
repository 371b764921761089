// The CUDA shard's bucket arithmetic (fast_bucket_of: a 64-bit division or a corrected double
// estimate) equals bucket_of's exact 128-bit division, on the host, for intervals of every width
// from one key to all 2^64, bucket counts from 1 to beyond the estimate's limit, and keys at the
// interval's ends, at every bucket edge and at random.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda/fast_bucket.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/local_shard.hpp"

namespace rd = robustfit::distributed;

namespace {

constexpr std::uint64_t kMax = ~std::uint64_t{0};

// Keys worth checking in an interval: its ends, both sides of some bucket edges, random ones.
std::vector<std::uint64_t> probes(const rd::KeyInterval& interval, robustfit::common::Random& random) {
  std::vector<std::uint64_t> keys{interval.lo, interval.hi};
  const std::uint64_t step = interval.buckets / 64 + 1;
  for (std::uint64_t j = 0; j < interval.buckets; j += step) {
    const auto [first, last] = rd::bucket_key_range(interval, j);
    for (std::uint64_t key : {first, last, first - 1, last + 1})
      if (key >= interval.lo && key <= interval.hi) keys.push_back(key);
  }
  const std::uint64_t span = interval.hi - interval.lo;
  for (int i = 0; i < 64; ++i) keys.push_back(interval.lo + (span == kMax ? random.next() : random.below(span + 1)));
  return keys;
}

TEST(FastBucket, EqualsBucketOfOnEveryWidthAndBucketCount) {
  robustfit::common::Random random(20261123);
  std::vector<std::uint64_t> spans{0, 1, 2, 7, 8191, kMax, kMax - 1, kMax / 2, kMax / 3, std::uint64_t{1} << 32,
                                   (std::uint64_t{1} << 53) + 1};
  for (int i = 0; i < 200; ++i) spans.push_back(random.next() >> random.below(64));
  std::vector<std::uint64_t> bucket_counts{1, 2, 3, 15, 16, 512, 546, 8192, 8193, 65536, (std::uint64_t{1} << 40),
                                           (std::uint64_t{1} << 40) + 1, std::uint64_t{1} << 50};
  for (int i = 0; i < 20; ++i) bucket_counts.push_back(2 + random.below(10000));
  std::uint64_t checked = 0;
  for (std::uint64_t span : spans) {
    for (std::uint64_t buckets : bucket_counts) {
      const std::uint64_t lo = span == kMax ? 0 : random.below(kMax - span + 1);
      const rd::KeyInterval interval{lo, lo + span, buckets, random.below(1000)};
      for (std::uint64_t key : probes(interval, random)) {
        ASSERT_EQ(rd::detail::fast_bucket_of(interval, key), rd::bucket_of(interval, key))
            << "lo " << interval.lo << " hi " << interval.hi << " buckets " << buckets << " key " << key;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100000u);
}

}  // namespace

namespace {

// The division-free form the CUDA shard counts with: the bucket starts equal bucket_key_range's
// lower ends, and the corrected estimate equals bucket_of, for every interval with at most as
// many buckets as keys (the shard takes fast_bucket_of for the others).
TEST(EstimatedBucket, StartsAndBucketsEqualBucketOf) {
  robustfit::common::Random random(20261124);
  std::vector<std::uint64_t> spans{1, 2, 7, 8191, kMax, kMax - 1, kMax / 2, kMax / 3, std::uint64_t{1} << 32,
                                   (std::uint64_t{1} << 53) + 1};
  for (int i = 0; i < 200; ++i) spans.push_back(random.next() >> random.below(64));
  std::vector<std::uint64_t> bucket_counts{1, 2, 3, 15, 16, 512, 546, 8192, 8193, 65536};
  for (int i = 0; i < 20; ++i) bucket_counts.push_back(2 + random.below(10000));
  std::uint64_t checked = 0;
  for (std::uint64_t span : spans) {
    for (std::uint64_t buckets : bucket_counts) {
      if (span != kMax && buckets > span + 1) continue;
      const std::uint64_t lo = span == kMax ? 0 : random.below(kMax - span + 1);
      const std::uint64_t first = random.below(1000);
      const rd::KeyInterval interval{lo, lo + span, buckets, first};
      std::vector<std::uint64_t> starts(first + buckets, 0);
      rd::detail::write_bucket_starts(interval, starts);
      for (std::uint64_t j = 0; j < buckets; ++j)
        ASSERT_EQ(starts[first + j], rd::bucket_key_range(interval, j)[0]) << "lo " << lo << " span " << span << " j " << j;
      const rd::detail::EstimatedInterval estimated = rd::detail::estimated_interval(interval);
      for (std::uint64_t key : probes(interval, random)) {
        ASSERT_EQ(rd::detail::estimated_bucket_of(estimated, starts.data(), key), rd::bucket_of(interval, key))
            << "lo " << interval.lo << " hi " << interval.hi << " buckets " << buckets << " key " << key;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100000u);
}

}  // namespace
