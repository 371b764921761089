// The bucket arithmetic of sampled multiselection (selection/src/cuda/sampled_multi_buckets.hpp),
// on the host: the table-guided lookup against std::upper_bound for every kind of edge set and
// table size, the compaction's slice filter (no key of a wanted bucket filtered out), and the
// algorithm's bookkeeping (edges from a sorted sample, counts, each rank's
// bucket and its place among the sorted candidates) replayed serially against std::nth_element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "robustfit/data/distributions.hpp"
#include "selection/src/cuda/sampled_multi_buckets.hpp"

namespace {

namespace sampled = robustfit::selection::cuda::detail::sampled;
using robustfit::data::Distribution;

// A table over `edges` (sorted, distinct) as the plan kernel builds it.
template <class Key>
struct HostTable {
  std::vector<Key> edges;
  std::vector<unsigned> ranges;
  sampled::EdgeTable<Key> view{};

  HostTable(std::vector<Key> sorted_edges, int bins) : edges(std::move(sorted_edges)), ranges(bins) {
    const int count = static_cast<int>(edges.size());
    const Key base = edges.front();
    const int shift = sampled::shift_for(base, edges.back(), bins);
    for (int r = 0; r < bins; ++r) ranges[r] = sampled::range_entry(edges.data(), count, base, shift, bins, r);
    view = {edges.data(), ranges.data(), base, shift, count, bins};
  }
};

template <class Key>
std::vector<Key> probes_for(const std::vector<Key>& edges, std::mt19937_64& rng) {
  std::vector<Key> probes{0, std::numeric_limits<Key>::max(), Key(std::numeric_limits<Key>::max() / 2)};
  for (const Key e : edges) {
    probes.push_back(e);
    probes.push_back(Key(e - 1));
    probes.push_back(Key(e + 1));
  }
  for (int i = 0; i < 2000; ++i) probes.push_back(static_cast<Key>(rng()));
  const Key lo = edges.front(), span = Key(edges.back() - edges.front());
  for (int i = 0; i < 2000; ++i) probes.push_back(Key(lo + (span == 0 ? 0 : static_cast<Key>(rng()) % span)));
  return probes;
}

// The compaction's filter: slices mark the key line 8 times finer than the ranges (where the
// shift allows) in key order; marked as locate_ranks marks an active bucket's slices, every key
// of an active bucket passes (a miss would lose a candidate: a wrong answer), and keys of
// unmarked slices are outside every active bucket.
template <class Key>
void expect_filter_keeps_active_keys(const sampled::EdgeTable<Key>& t, const std::vector<Key>& sorted_probes,
                                     std::mt19937_64& rng) {
  const int slices = sampled::kFineSlices * t.bins;
  std::vector<unsigned> bitmap((slices + 31) / 32, 0u);
  std::vector<bool> active(t.buckets(), false);
  for (int b = 0; b < t.buckets(); b += 2)  // open buckets; about one in five, and the two ends
    if (b == 0 || b == t.buckets() - 1 || rng() % 5 == 0) {
      active[b] = true;
      sampled::mark_slices(sampled::slice_of(t.bucket_low(b), t.base, t.shift, t.bins),
                           sampled::slice_of(t.bucket_high(b), t.base, t.shift, t.bins),
                           [&](int w, unsigned mask) { bitmap[w] |= mask; });
    }
  std::vector<unsigned char> bytes(bitmap.size() * 4);
  for (std::size_t w = 0; w < bitmap.size(); ++w)  // the device reads the words' bytes, little-endian
    for (int i = 0; i < 4; ++i) bytes[4 * w + i] = static_cast<unsigned char>(bitmap[w] >> (8 * i));
  int previous = 0;
  for (const Key key : sorted_probes) {
    const int s = sampled::slice_of(key, t.base, t.shift, t.bins);
    ASSERT_GE(s, previous) << "slices follow the key order";
    ASSERT_LT(s, slices);
    previous = s;
    const int range = sampled::range_of(key, t.base, t.shift, t.bins);
    if (t.shift >= 3 && range < t.bins - 1) {
      ASSERT_EQ(s / sampled::kFineSlices, range) << key;
    }
    ASSERT_EQ(sampled::slice_marked(bytes.data(), s), (bitmap[s / 32] >> (s % 32) & 1u) != 0);
    const int b = t.bucket_of(key);
    if (active[b]) {
      ASSERT_TRUE(sampled::slice_marked(bytes.data(), s)) << "key " << key << " of active bucket " << b;
    }
  }
}

template <class Key>
void expect_lookup_matches_upper_bound(const std::vector<Key>& edges, int bins, std::mt19937_64& rng) {
  const HostTable<Key> t(edges, bins);
  ASSERT_EQ(sampled::range_first(t.ranges.front()), 0);
  ASSERT_EQ(sampled::range_end(t.ranges.back()), static_cast<int>(edges.size()));
  for (std::size_t r = 1; r < t.ranges.size(); ++r)
    ASSERT_EQ(sampled::range_first(t.ranges[r]), sampled::range_end(t.ranges[r - 1])) << "ranges tile the edges";
  int previous_bucket = -1;
  std::vector<Key> probes = probes_for(edges, rng);
  std::sort(probes.begin(), probes.end());
  for (const Key key : probes) {
    const int below = static_cast<int>(std::upper_bound(edges.begin(), edges.end(), key) - edges.begin());
    ASSERT_EQ(t.view.edges_at_or_below(key), below) << "key " << key << " bins " << bins << " edges " << edges.size();
    const int bucket = t.view.bucket_of(key);
    const bool on_edge = below > 0 && edges[below - 1] == key;
    ASSERT_EQ(sampled::is_equality_bucket(bucket), on_edge) << key;
    if (on_edge) {
      ASSERT_EQ(edges[sampled::edge_of_equality_bucket(bucket)], key);
    } else {
      ASSERT_EQ(bucket, 2 * below) << key;
      // the segmented finish selects among key - bucket_low(bucket), up to bucket_high(bucket)
      ASSERT_LE(t.view.bucket_low(bucket), key) << key;
      ASSERT_GE(t.view.bucket_high(bucket), key) << key;
    }
    ASSERT_GE(bucket, previous_bucket) << "buckets must follow the key order";
    ASSERT_LT(bucket, t.view.buckets());
    previous_bucket = bucket;
  }
  expect_filter_keeps_active_keys(t.view, probes, rng);
}

template <class Key>
std::vector<Key> distinct_sorted(std::vector<Key> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

template <class Key>
void lookup_sweep() {
  std::mt19937_64 rng(11);
  const Key top = std::numeric_limits<Key>::max();
  std::vector<std::vector<Key>> edge_sets{{0}, {top}, {5}, {0, top}, {7, 8, 9}};
  for (const int count : {2, 17, 1000, 4096, 8192}) {
    std::vector<Key> wide, clustered, mixed;
    for (int i = 0; i < count; ++i) {
      wide.push_back(static_cast<Key>(rng()));
      clustered.push_back(Key(Key(1) << (sizeof(Key) * 8 - 2)) + static_cast<Key>(rng() % (4 * count)));
      mixed.push_back(i % 4 == 0 ? static_cast<Key>(rng()) : Key(1000 + static_cast<Key>(rng() % 5000)));
    }
    for (auto* set : {&wide, &clustered, &mixed}) edge_sets.push_back(distinct_sorted(*set));
  }
  for (const auto& edges : edge_sets)
    for (const int bins : {1, 2, 7, 64, 8192, 16384}) {
      expect_lookup_matches_upper_bound(edges, bins, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(SampledMultiBuckets, LookupEqualsUpperBound32) { lookup_sweep<std::uint32_t>(); }
TEST(SampledMultiBuckets, LookupEqualsUpperBound64) { lookup_sweep<std::uint64_t>(); }

TEST(SampledMultiBuckets, ShiftPutsTheLastEdgeInTheTable) {
  EXPECT_EQ(sampled::shift_for<std::uint32_t>(0, 0, 1), 0);
  EXPECT_EQ(sampled::shift_for<std::uint32_t>(0, 8191, 8192), 0);
  EXPECT_EQ(sampled::shift_for<std::uint32_t>(0, 8192, 8192), 1);
  EXPECT_EQ(sampled::shift_for<std::uint32_t>(0, 0xffffffffu, 8192), 19);
  EXPECT_EQ(sampled::shift_for<std::uint64_t>(0, ~std::uint64_t{0}, 16384), 50);
  EXPECT_EQ(sampled::shift_for<std::uint32_t>(0, 0xffffffffu, 1), 32);  // one range: everything in it
  EXPECT_EQ(sampled::range_of<std::uint32_t>(0xffffffffu, 0, 32, 1), 0);
}

TEST(SampledMultiBuckets, EdgePositionsAreIncreasingInsideTheSample) {
  for (const std::int64_t sample : {1, 2, 3, 1000, 32768})
    for (const int edges : {1, 2, 3, 1000, 4096, 8192}) {
      if (edges > sample) continue;
      std::int64_t previous = -1;
      for (int j = 0; j < edges; ++j) {
        const std::int64_t position = sampled::edge_sample_position(j, edges, sample);
        ASSERT_GT(position, previous) << sample << " " << edges << " " << j;
        ASSERT_LT(position, sample);
        previous = position;
      }
    }
}

// The order-preserving key of key_traits.cuh (that header is device code).
std::uint32_t key_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

float value_of(std::uint32_t key) {
  const std::uint32_t u = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The algorithm's host-visible bookkeeping, serially: edges from the sorted sample, counts,
// prefix sums, active buckets, candidates copied in input order and sorted, answers.
std::vector<float> replay(const std::vector<float>& values, const std::vector<std::size_t>& ks, int sample_size,
                          int wanted_edges, int bins, std::size_t& candidates_out) {
  const std::size_t n = values.size();
  std::mt19937_64 rng(5);
  std::vector<std::uint32_t> sample(sample_size);
  for (auto& key : sample) key = key_of(values[rng() % n]);
  std::sort(sample.begin(), sample.end());
  std::vector<std::uint32_t> edges;
  for (int j = 0; j < wanted_edges; ++j) {
    const std::uint32_t candidate = sample[sampled::edge_sample_position(j, wanted_edges, sample_size)];
    if (edges.empty() || edges.back() != candidate) edges.push_back(candidate);
  }
  const HostTable<std::uint32_t> t(edges, bins);
  const int buckets = t.view.buckets();
  std::vector<unsigned long long> counts(buckets), before(buckets + 1), active_before(buckets + 1);
  for (const float v : values) ++counts[t.view.bucket_of(key_of(v))];
  for (int b = 0; b < buckets; ++b) before[b + 1] = before[b] + counts[b];
  std::vector<char> active(buckets);
  auto bucket_of_rank = [&](std::size_t k) {
    return static_cast<int>(std::upper_bound(before.begin(), before.end(), k) - before.begin()) - 1;
  };
  for (const std::size_t k : ks)
    if (!sampled::is_equality_bucket(bucket_of_rank(k))) active[bucket_of_rank(k)] = 1;
  for (int b = 0; b < buckets; ++b) active_before[b + 1] = active_before[b] + (active[b] ? counts[b] : 0);
  std::vector<float> candidates;
  for (const float v : values)
    if (active[t.view.bucket_of(key_of(v))]) candidates.push_back(v);
  candidates_out = candidates.size();
  EXPECT_EQ(candidates.size(), active_before[buckets]);
  std::sort(candidates.begin(), candidates.end());
  std::vector<float> out;
  for (const std::size_t k : ks) {
    const int b = bucket_of_rank(k);
    out.push_back(sampled::is_equality_bucket(b) ? value_of(edges[sampled::edge_of_equality_bucket(b)])
                                                 : candidates[k - before[b] + active_before[b]]);
  }
  return out;
}

TEST(SampledMultiBuckets, BookkeepingReplayedMatchesNthElement) {
  for (const Distribution d : robustfit::data::all_distributions()) {
    for (const std::size_t n : {1, 2, 3, 100, 5000, 70000}) {
      if (d == Distribution::bucket_killer && n < 65) continue;
      const auto values = robustfit::data::make_distribution<float>(d, n, 3 + n, 16);
      if (std::any_of(values.begin(), values.end(), [](float v) { return v != v; })) continue;
      std::vector<std::size_t> ks{0, n - 1, n / 2, n / 3};
      for (std::size_t i = 0; i < 101; ++i) ks.push_back(i * (n - 1) / 100);
      for (const auto& [sample, edges, bins] : {std::tuple{32768, 4096, 8192}, std::tuple{64, 8, 4}, std::tuple{5, 5, 1}}) {
        std::size_t candidates = 0;
        const auto got = replay(values, ks, sample, edges, bins, candidates);
        for (std::size_t i = 0; i < ks.size(); ++i) {
          std::vector<float> copy = values;
          std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(ks[i]), copy.end());
          ASSERT_EQ(got[i], copy[ks[i]]) << robustfit::data::to_string(d) << " n=" << n << " k=" << ks[i]
                                         << " edges=" << edges;
        }
        const bool sample_sees_every_value = sample == 32768 && n >= 100;
        if (sample_sees_every_value &&
            (d == Distribution::all_equal || d == Distribution::two_values_95 || d == Distribution::distinct_d)) {
          EXPECT_EQ(candidates, 0u) << robustfit::data::to_string(d) << ": ties are answered by their edge";
        }
      }
    }
  }
}

}  // namespace
