// The CPU backend of the rank-local selection work (local_shard.hpp): keys in a vector, one
// pass per call.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "robustfit/common/parallel.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/distributed/order_key.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "cuda/band_table.hpp"       // host code as well: band-aligned intervals by a table load per key
#include "cuda/fast_bucket.hpp"      // host code as well: buckets without a 128-bit division per key
#include "cuda/interval_lookup.hpp"  // host code as well: intervals without a binary search per key

namespace robustfit::distributed {
namespace {

constexpr std::array<std::uint64_t, 2> kNoKeys{~std::uint64_t{0}, ~std::uint64_t{0}};

class CpuLocalShard final : public LocalShard {
 public:
  // range: {min, ~max} of the keys (kNoKeys when there are none), found as they were made.
  CpuLocalShard(std::vector<std::uint64_t> keys, std::array<std::uint64_t, 2> range) : all_(std::move(keys)), range_(range) {}

  void reset() override {
    reduced_ = false;
    candidates_.clear();
    segments_.clear();
  }

  std::uint64_t size() const override { return current().size(); }

  // Every call is a serial pass over this shard's own members: a batch's shards may be called
  // at once, one per thread (the C-steps' batches of candidates).
  bool concurrent_calls() const override { return true; }

  std::array<std::uint64_t, 2> key_range() const override {
    if (!reduced_) return range_;
    if (candidates_.empty()) return kNoKeys;
    const auto [min, max] = std::minmax_element(candidates_.begin(), candidates_.end());
    return {*min, ~*max};
  }

  std::vector<std::uint64_t> sample(std::uint64_t count, std::uint64_t seed) const override {
    const std::span<const std::uint64_t> keys = current();
    std::vector<std::uint64_t> out;
    if (keys.empty()) return out;
    common::Random random(seed);
    out.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) out.push_back(keys[random.below(keys.size())]);
    return out;
  }

  std::vector<std::uint64_t> count_buckets(std::span<const KeyInterval> intervals, std::uint64_t buckets,
                                           bool segmented) override {
    const std::span<const std::uint64_t> keys = current();
    std::vector<std::uint64_t> counts(buckets, 0);
    if (buckets > std::uint64_t{1} << 32) throw std::logic_error("count_buckets: more than 2^32 buckets");
    bucket_.resize(keys.size());
    // As the CUDA shard: where no interval has more buckets than keys, each key's bucket is a
    // double estimate corrected against the buckets' first keys (no division per key).
    bool by_table = true;
    for (const KeyInterval& interval : intervals) {
      if (interval.buckets == 0 || interval.first_bucket > buckets || interval.buckets > buckets - interval.first_bucket)
        throw std::logic_error("count_buckets: an interval's buckets beyond the bucket count");
      const std::uint64_t span = interval.hi - interval.lo;
      if (span != ~std::uint64_t{0} && interval.buckets > span + 1) by_table = false;
    }
    // Key i's bucket, noted and counted in the same pass.
    const auto note = [&](std::size_t i, std::uint64_t b) {
      bucket_[i] = static_cast<std::uint32_t>(b);
      ++counts[b];
    };
    buckets_ = buckets;
    if (!segmented && detail::make_band_table(intervals, band_table_)) {  // DIBMS's band-aligned Phase 1
      for (std::size_t i = 0; i < keys.size(); ++i) note(i, detail::band_bucket(keys[i], band_table_.data()));
      return counts;
    }
    starts_.assign(by_table ? buckets : 0, 0);
    estimated_.clear();
    if (by_table) {
      for (const KeyInterval& interval : intervals) {
        detail::write_bucket_starts(interval, starts_);
        estimated_.push_back(detail::estimated_interval(interval));
      }
    }
    const auto assign = [&](std::size_t i, std::size_t s) {
      const std::uint64_t key = keys[i];
      note(i, by_table ? detail::estimated_bucket_of(estimated_[s], starts_.data(), key) : detail::fast_bucket_of(intervals[s], key));
    };
    const bool bracket = !segmented && by_table && intervals.size() == 3 && intervals[0].buckets == 1 &&
                         intervals[2].buckets == 1 && intervals[0].hi + 1 == intervals[1].lo &&
                         intervals[1].hi + 1 == intervals[2].lo;
    if (bracket) {
      // A bracket's three intervals (dibms_select_bracketed): below lo, [lo, hi], above hi.
      // Without branches on the key (below / inside / above goes either way, key after key):
      // every key's estimate inside the bracket from its key clamped to it, then a selection.
      const KeyInterval& inside = intervals[1];
      const std::uint64_t lo = inside.lo, hi = inside.hi;
      const std::uint64_t below = intervals[0].first_bucket, above = intervals[2].first_bucket;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::uint64_t key = keys[i];
        const std::uint64_t clamped = key < lo ? lo : (key > hi ? hi : key);
        const std::uint64_t estimated = detail::estimated_bucket_of(estimated_[1], starts_.data(), clamped);
        note(i, key < lo ? below : (key > hi ? above : estimated));
      }
    } else if (segmented) {
      if (segments_.size() != intervals.size() + 1) throw std::logic_error("count_buckets: segments and intervals differ");
      for (std::size_t s = 0; s < intervals.size(); ++s) {
        for (std::size_t i = segments_[s]; i < segments_[s + 1]; ++i) assign(i, s);
      }
    } else {
      std::vector<std::uint64_t> lows;
      for (const KeyInterval& interval : intervals) lows.push_back(interval.lo);
      // Each key's interval by a table of the lows' bins (the CUDA shard's lookup), not a binary search.
      std::vector<std::uint32_t> table;
      const detail::IntervalLookup lookup = detail::make_interval_lookup(lows, 4096, table);
      for (std::size_t i = 0; i < keys.size(); ++i) assign(i, detail::interval_of(lookup, table.data(), lows.data(), keys[i]));
    }
    return counts;
  }

  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    const std::span<const std::uint64_t> keys = current();
    std::vector<std::uint64_t> found(singles.size(), 0);
    // Each bucket's slot: kept bucket k as k, single j as -2 - j, any other -1 (one lookup per key).
    std::vector<std::int64_t> slot(buckets_, -1);
    for (std::size_t k = 0; k < keep.size(); ++k) slot.at(keep[k]) = static_cast<std::int64_t>(k);
    for (std::size_t j = 0; j < singles.size(); ++j) slot.at(singles[j]) = -2 - static_cast<std::int64_t>(j);
    // Where each kept bucket's segment goes: its local count, as an exclusive prefix sum.
    std::vector<std::uint64_t> sizes(keep.size(), 0);
    for (const std::uint32_t b : bucket_) {
      if (slot[b] >= 0) ++sizes[static_cast<std::size_t>(slot[b])];
    }
    std::vector<std::size_t> segments(keep.size() + 1, 0);
    for (std::size_t k = 0; k < keep.size(); ++k) segments[k + 1] = segments[k] + sizes[k];
    std::vector<std::uint64_t> next(segments.back());
    std::vector<std::size_t> fill(segments.begin(), segments.end() - 1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::int64_t s = slot[bucket_[i]];
      if (s >= 0) next[fill[static_cast<std::size_t>(s)]++] = keys[i];
      else if (s <= -2) found[static_cast<std::size_t>(-2 - s)] = keys[i];
    }
    candidates_ = std::move(next);
    segments_ = std::move(segments);
    reduced_ = true;
    bucket_.clear();
    return found;
  }

  std::vector<std::uint64_t> segment_key_ranges() const override {
    std::vector<std::uint64_t> ranges;
    for (std::size_t s = 0; s + 1 < segments_.size(); ++s) {
      if (segments_[s] == segments_[s + 1]) {
        ranges.insert(ranges.end(), kNoKeys.begin(), kNoKeys.end());
        continue;
      }
      const auto begin = candidates_.begin() + static_cast<std::ptrdiff_t>(segments_[s]);
      const auto [min, max] = std::minmax_element(begin, candidates_.begin() + static_cast<std::ptrdiff_t>(segments_[s + 1]));
      ranges.push_back(*min);
      ranges.push_back(~*max);
    }
    return ranges;
  }

  std::vector<std::uint64_t> kept_candidates() const override {
    if (!reduced_) throw std::logic_error("kept_candidates: no reduce since the reset");
    return candidates_;
  }

  PivotSums pivot_sums(std::uint64_t lo, std::uint64_t hi, std::uint64_t pivot) const override {
    // Exact integer sums (at most 2^64 differences below 2^64 each), rounded once: the same
    // numbers in any order of addition, so the CUDA backend's parallel sums equal these.
    std::uint64_t below = 0, equal = 0, above = 0;
    Wide sum_below = 0, sum_above = 0;
    for (std::uint64_t key : all_) {
      if (key <= lo || key >= hi) continue;
      if (key < pivot) {
        ++below;
        sum_below += pivot - key;
      } else if (key > pivot) {
        ++above;
        sum_above += key - pivot;
      } else {
        ++equal;
      }
    }
    return {static_cast<double>(below), static_cast<double>(equal), static_cast<double>(above),
            -static_cast<double>(sum_below), static_cast<double>(sum_above)};
  }

  std::vector<std::uint64_t> keys_inside(std::uint64_t lo, std::uint64_t hi) const override {
    std::vector<std::uint64_t> inside;
    std::copy_if(all_.begin(), all_.end(), std::back_inserter(inside), [&](std::uint64_t key) { return key > lo && key < hi; });
    return inside;
  }

 private:
  std::span<const std::uint64_t> current() const { return reduced_ ? std::span<const std::uint64_t>(candidates_) : all_; }

  std::vector<std::uint64_t> all_;         // every value's key
  bool reduced_ = false;
  std::vector<std::uint64_t> candidates_;  // after a reduce: the kept keys, segment by segment
  std::vector<std::size_t> segments_;      // segment s is candidates_[segments_[s], segments_[s+1])
  std::array<std::uint64_t, 2> range_;      // key_range() of all_
  // The bucket of each current candidate (count_buckets; written before it is read: no zeroing).
  std::vector<std::uint32_t, common::UninitializedAllocator<std::uint32_t>> bucket_;
  std::uint64_t buckets_ = 0;              // the bucket count of the last count_buckets
  std::vector<std::uint64_t> starts_;      // each bucket's first key (count_buckets' table)
  std::vector<std::uint32_t> band_table_;  // count_buckets' over band-aligned intervals (band_table.hpp)
  std::vector<detail::EstimatedInterval> estimated_;
};

}  // namespace

template <class T>
std::unique_ptr<LocalShard> make_cpu_local_shard(std::span<const T> values) {
  selection::require_no_nan(values);
  std::vector<std::uint64_t> keys(values.size());
  std::uint64_t min = ~std::uint64_t{0}, max = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint64_t key = keys[i] = order_key(static_cast<double>(values[i]));
    min = std::min(min, key), max = std::max(max, key);
  }
  return std::make_unique<CpuLocalShard>(std::move(keys), values.empty() ? kNoKeys : std::array<std::uint64_t, 2>{min, ~max});
}

template std::unique_ptr<LocalShard> make_cpu_local_shard<float>(std::span<const float>);
template std::unique_ptr<LocalShard> make_cpu_local_shard<double>(std::span<const double>);

}  // namespace robustfit::distributed
