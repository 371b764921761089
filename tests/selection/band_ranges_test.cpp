// The band table's arithmetic (selection/src/cuda/band_ranges.hpp), against brute force: every
// key lands in the range whose [low, low + span] holds it, ranges tile the key line in order,
// and the ranges per band follow the sample's shares.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "robustfit/data/distributions.hpp"
#include "selection/src/cuda/band_ranges.hpp"

namespace {

namespace bands = robustfit::selection::cuda::detail::bands;
using robustfit::data::Distribution;

template <class T> struct KeyOf;
template <> struct KeyOf<float> { using type = std::uint32_t; };
template <> struct KeyOf<double> { using type = std::uint64_t; };

// The library's order-preserving key (key_traits.cuh), written out.
template <class T>
typename KeyOf<T>::type key_of(T v) {
  using Key = typename KeyOf<T>::type;
  Key u;
  std::memcpy(&u, &v, sizeof u);
  constexpr Key kSign = Key{1} << (sizeof(Key) * 8 - 1);
  return (u & kSign) ? ~u : (u | kSign);
}

// The table as the plan kernel builds it, written as a plain loop.
template <class Key>
std::vector<unsigned> table_from(const std::vector<Key>& sample, std::uint64_t ranges, unsigned* total) {
  std::vector<std::uint64_t> in_band(bands::band_count<Key>(), 0);
  for (const Key k : sample) ++in_band[bands::band_of(k)];
  std::vector<unsigned> entries(bands::band_count<Key>());
  unsigned first = 0;
  for (int b = 0; b < bands::band_count<Key>(); ++b) {
    const int bits = bands::band_bits<Key>(in_band[b], sample.size(), ranges);
    entries[b] = bands::pack_band(first, bands::mantissa_bits<Key>() - bits);
    first += 1u << bits;
  }
  *total = first;
  return entries;
}

template <class T>
void check_table(const std::vector<T>& values, std::uint64_t ranges) {
  using Key = typename KeyOf<T>::type;
  std::vector<Key> keys;
  for (const T v : values) keys.push_back(key_of(v));
  std::mt19937_64 rng(5);
  std::vector<Key> sample;
  // Four sampled keys a range, as the library's default (32768 keys, 8192 ranges).
  for (std::uint64_t i = 0; i < 4 * ranges; ++i) sample.push_back(keys[rng() % keys.size()]);
  unsigned total = 0;
  const std::vector<unsigned> entries = table_from(sample, ranges, &total);
  ASSERT_LT(total, bands::kMaxRanges);
  // Every key (and its neighbours) in the range that holds it.
  for (const Key k : keys)
    for (const Key key : {k, Key(k - 1), Key(k + 1)}) {
      const unsigned r = bands::range_of(key, entries.data());
      ASSERT_LT(r, total);
      const Key low = bands::range_low<Key>(r, entries.data());
      ASSERT_LE(low, key);
      ASSERT_LE(key - low, bands::range_span<Key>(r, entries.data()));
    }
  // Monotone, and the ranges tile the key line: high(r) + 1 = low(r + 1), from key 0 to the top.
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i)
    ASSERT_LE(bands::range_of(sorted[i - 1], entries.data()), bands::range_of(sorted[i], entries.data()));
  EXPECT_EQ(bands::range_low<Key>(0, entries.data()), Key{0});
  for (unsigned r = 0; r + 1 < total; r += std::max(1u, total / 5000))
    ASSERT_EQ(Key(bands::range_low<Key>(r, entries.data()) + bands::range_span<Key>(r, entries.data()) + 1),
              bands::range_low<Key>(r + 1, entries.data()))
        << r;
  EXPECT_EQ(Key(bands::range_low<Key>(total - 1, entries.data()) + bands::range_span<Key>(total - 1, entries.data())),
            std::numeric_limits<Key>::max());
  // About n / ranges keys per range where the sample saw the band: none more than 16 x that on
  // smooth data (the rounding up to a power of two halves at most).
  std::vector<std::size_t> population(total, 0);
  for (const Key k : keys) ++population[bands::range_of(k, entries.data())];
  const std::size_t most = *std::max_element(population.begin(), population.end());
  EXPECT_LE(most, 16 * keys.size() / ranges + 16) << "ranges " << total;
}

TEST(BandRanges, FloatUniformNormalAndSignedValues) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> u(200000), g(200000);
  for (float& v : u) v = uniform(rng);
  for (float& v : g) v = normal(rng);
  check_table(u, 4096);
  check_table(g, 4096);
  check_table(g, 65536);
}

TEST(BandRanges, DoubleValuesAcrossMagnitudes) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v(200000);
  for (double& x : v) x = normal(rng) * std::pow(10.0, static_cast<int>(rng() % 40) - 20);
  check_table(v, 8192);
}

TEST(BandRanges, BitsFollowTheShareAndStayInTheMantissa) {
  using Key = std::uint32_t;
  EXPECT_EQ(bands::band_bits<Key>(0, 1000, 8192), 0);        // unsampled band: one range
  EXPECT_EQ(bands::band_bits<Key>(1000, 1000, 8192), 13);    // the whole sample: all the ranges
  EXPECT_EQ(bands::band_bits<Key>(500, 1000, 8192), 12);
  EXPECT_EQ(bands::band_bits<Key>(501, 1000, 8192), 13);     // rounded up to a power of two
  EXPECT_EQ(bands::band_bits<Key>(1000, 1000, 1u << 24), 23);  // at most one key per range
  EXPECT_EQ(bands::band_bits<std::uint64_t>(1 << 20, 1 << 20, 1u << 24), 24);
}

TEST(BandRanges, OneKeyRangesHaveNoSpan) {
  using Key = std::uint32_t;
  std::vector<unsigned> entries(bands::band_count<Key>());
  unsigned first = 0;
  for (int b = 0; b < bands::band_count<Key>(); ++b) {
    const int bits = b == 300 ? 23 : 0;
    entries[b] = bands::pack_band(first, bands::mantissa_bits<Key>() - bits);
    first += 1u << bits;
  }
  const Key key = (Key{300} << 23) | 12345u;
  const unsigned r = bands::range_of(key, entries.data());
  EXPECT_EQ(bands::range_low<Key>(r, entries.data()), key);
  EXPECT_EQ(bands::range_span<Key>(r, entries.data()), Key{0});
}

// The table and the verdict as band_multi_select.cu's plan makes them (32768 sampled keys, 8192
// ranges, 101 percentiles), on every distribution of the benchmark: the smooth ones keep the
// table and compact fewer values than the edges' buckets would (n / 2048 a rank); ties and
// spans the bands cannot split (all equal, {1, 2}, 16 distinct values, 10 % tens, ±0 and ±inf,
// the bucket killer) go to the edges.
// The sample's keys in range r (`sorted`: the sample in key order), counted as the keys between
// the range's bounds: the device counts them by a histogram of ranges instead (plan_bands).
template <class Key>
int sample_run(const std::vector<Key>& sorted, unsigned r, const std::vector<unsigned>& entries) {
  const Key low = bands::range_low<Key>(r, entries.data());
  const Key high = low + bands::range_span<Key>(r, entries.data());
  return static_cast<int>(std::upper_bound(sorted.begin(), sorted.end(), high) -
                          std::lower_bound(sorted.begin(), sorted.end(), low));
}

template <class T>
void check_verdicts(std::size_t n) {
  using Key = typename KeyOf<T>::type;
  constexpr int kSample = 32768;
  constexpr std::uint64_t kRanges = 8192;
  constexpr std::size_t kCount = 101;
  std::uint64_t seed = 90;
  for (const Distribution d : robustfit::data::all_distributions()) {
    const std::vector<T> values = robustfit::data::make_distribution<T>(d, n, ++seed, 16);
    std::vector<Key> keys;
    for (const T v : values) keys.push_back(key_of(v));
    std::mt19937_64 rng(seed);
    std::vector<Key> sample(kSample);
    for (Key& k : sample) k = keys[rng() % n];
    std::sort(sample.begin(), sample.end());
    unsigned total = 0;
    const std::vector<unsigned> entries = table_from(sample, kRanges, &total);
    int longest = 0;
    for (int i = 0; i < kSample; ++i)
      longest = std::max(longest, sample_run(sample, bands::range_of(sample[i], entries.data()), entries));
    std::vector<std::size_t> ks(kCount);
    for (std::size_t i = 0; i < kCount; ++i) ks[i] = i * (n - 1) / (kCount - 1);
    double wanted_runs = 0;
    for (const std::size_t k : ks) {
      const auto p = static_cast<int>(std::min<double>(kSample - 1, static_cast<double>(k) * kSample / static_cast<double>(n)));
      wanted_runs += sample_run(sample, bands::range_of(sample[p], entries.data()), entries);
    }
    const bool edges = bands::edges_answer_instead(total, 20480, longest, kSample, wanted_runs, kCount, static_cast<double>(n));
    // What the table would compact: the values of the ranges holding a rank.
    std::vector<Key> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::size_t> population(total, 0);
    for (const Key k : keys) ++population[bands::range_of(k, entries.data())];
    std::vector<char> active(total, 0);
    std::size_t candidates = 0;
    for (const std::size_t k : ks) {
      const unsigned r = bands::range_of(sorted[k], entries.data());
      if (!active[r]) {
        active[r] = 1;
        candidates += population[r];
      }
    }
    const std::string name(robustfit::data::to_string(d));
    if (!edges) {
      EXPECT_LE(candidates, kCount * n / 2048) << name << ": the table kept, yet it compacts more than the edges";
    }
    for (const Distribution smooth : {Distribution::uniform, Distribution::normal, Distribution::cauchy, Distribution::sorted,
                                      Distribution::mixture_normal_50_50})
      if (d == smooth) {
        EXPECT_FALSE(edges) << name;
      }
    for (const Distribution tied : {Distribution::all_equal, Distribution::two_values_95, Distribution::distinct_d,
                                    Distribution::half_normal_10pct_ten, Distribution::signed_zeros_and_infs,
                                    Distribution::bucket_killer})
      if (d == tied) {
        EXPECT_TRUE(edges) << name;
      }
  }
}

TEST(BandRanges, VerdictOnEveryBenchmarkDistribution) {
  check_verdicts<float>(std::size_t{1} << 19);
  check_verdicts<double>(std::size_t{1} << 19);
}

}  // namespace
