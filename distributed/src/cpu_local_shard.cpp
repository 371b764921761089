// The CPU backend of the rank-local selection work (local_shard.hpp): keys in a vector, one
// pass per call.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "robustfit/common/random.hpp"
#include "robustfit/distributed/local_shard.hpp"
#include "robustfit/distributed/order_key.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::distributed {
namespace {

constexpr std::array<std::uint64_t, 2> kNoKeys{~std::uint64_t{0}, ~std::uint64_t{0}};

class CpuLocalShard final : public LocalShard {
 public:
  explicit CpuLocalShard(std::vector<std::uint64_t> keys) : all_(std::move(keys)) {}

  void reset() override {
    reduced_ = false;
    candidates_.clear();
    segments_.clear();
  }

  std::uint64_t size() const override { return current().size(); }

  std::array<std::uint64_t, 2> key_range() const override {
    const std::span<const std::uint64_t> keys = current();
    if (keys.empty()) return kNoKeys;
    const auto [min, max] = std::minmax_element(keys.begin(), keys.end());
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
    bucket_.resize(keys.size());
    if (segmented) {
      if (segments_.size() != intervals.size() + 1) throw std::logic_error("count_buckets: segments and intervals differ");
      for (std::size_t s = 0; s < intervals.size(); ++s) {
        for (std::size_t i = segments_[s]; i < segments_[s + 1]; ++i) bucket_[i] = bucket_of(intervals[s], keys[i]);
      }
    } else {
      std::vector<std::uint64_t> lows;
      for (const KeyInterval& interval : intervals) lows.push_back(interval.lo);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto after = std::upper_bound(lows.begin(), lows.end(), keys[i]);
        const auto s = static_cast<std::size_t>(std::max<std::ptrdiff_t>(after - lows.begin() - 1, 0));
        bucket_[i] = bucket_of(intervals[s], keys[i]);
      }
    }
    for (std::uint64_t b : bucket_) ++counts[b];
    return counts;
  }

  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    const std::span<const std::uint64_t> keys = current();
    std::vector<std::uint64_t> found(singles.size(), 0);
    // Where each kept bucket's segment goes: its local count, as an exclusive prefix sum.
    std::vector<std::uint64_t> sizes(keep.size(), 0);
    const auto index_in = [](std::span<const std::uint64_t> sorted, std::uint64_t b) -> std::ptrdiff_t {
      const auto it = std::lower_bound(sorted.begin(), sorted.end(), b);
      return it != sorted.end() && *it == b ? it - sorted.begin() : -1;
    };
    for (std::uint64_t b : bucket_) {
      const std::ptrdiff_t k = index_in(keep, b);
      if (k >= 0) ++sizes[static_cast<std::size_t>(k)];
    }
    std::vector<std::size_t> segments(keep.size() + 1, 0);
    for (std::size_t k = 0; k < keep.size(); ++k) segments[k + 1] = segments[k] + sizes[k];
    std::vector<std::uint64_t> next(segments.back());
    std::vector<std::size_t> fill(segments.begin(), segments.end() - 1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::ptrdiff_t k = index_in(keep, bucket_[i]);
      if (k >= 0) {
        next[fill[static_cast<std::size_t>(k)]++] = keys[i];
      } else if (const std::ptrdiff_t s = index_in(singles, bucket_[i]); s >= 0) {
        found[static_cast<std::size_t>(s)] = keys[i];
      }
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
  std::vector<std::uint64_t> bucket_;      // bucket of each current candidate (count_buckets)
};

}  // namespace

template <class T>
std::unique_ptr<LocalShard> make_cpu_local_shard(std::span<const T> values) {
  selection::require_no_nan(values);
  std::vector<std::uint64_t> keys(values.size());
  std::transform(values.begin(), values.end(), keys.begin(), [](T v) { return order_key(static_cast<double>(v)); });
  return std::make_unique<CpuLocalShard>(std::move(keys));
}

template std::unique_ptr<LocalShard> make_cpu_local_shard<float>(std::span<const float>);
template std::unique_ptr<LocalShard> make_cpu_local_shard<double>(std::span<const double>);

}  // namespace robustfit::distributed
