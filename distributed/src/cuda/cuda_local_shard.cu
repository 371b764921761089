// The CUDA backend of the rank-local selection work (local_shard.hpp): the rank's values on its
// GPU as given (float or double; their order keys are computed where they are read, so a pass
// over float values reads 4 bytes a value), the candidates after a reduce as keys; each of
// DIBMS's calls is one pass over them. Bucket counts are a histogram over the buckets in one
// fused kernel, with bucket_of's result but no division per value (a lookup table for the
// interval, interval_lookup.hpp; a corrected estimate over exact bucket starts, fast_bucket.hpp);
// the reduce is a stable selection of the kept and single buckets' candidates by their keys'
// ranges (slot_ranges.hpp), grouped by a radix sort on their slot. Float values, before the
// first reduce, are classified by their 32-bit float keys against float thresholds of the
// 64-bit edges (float_keys.hpp), with the tables staged in shared memory: the two passes over
// all values then do 32-bit work a value, and the first reduce places each kept value straight
// into its segment by the count's per-block counts (placed_reduce_kernel). Cutting-plane sums are exact
// 128-bit sums (as the CPU backend's). Only counts, samples, sums and a few keys cross to the
// host.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <mpi.h>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../../../selection/src/cuda/cuda_check.cuh"
#include "../../../selection/src/cuda/dynamic_shared_memory.cuh"
#include "../../../selection/src/cuda/visit_vectors.cuh"
#include "band_table.hpp"
#include "device_buffer.hpp"
#include "fast_bucket.hpp"
#include "float_keys.hpp"
#include "interval_lookup.hpp"
#include "slot_ranges.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/common/stopwatch.hpp"
#include "robustfit/distributed/cuda_local_shard.hpp"
#include "robustfit/distributed/order_key.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::distributed {
namespace {

using Key = std::uint64_t;
using Index = std::uint64_t;
constexpr Key kNoKey = ~Key{0};

// Small host arrays packed at 16-byte aligned offsets, so that a call uploads its tables in one
// copy instead of one each.
class Staging {
 public:
  void clear() { host_.clear(); }
  template <class U>
  std::size_t add(std::span<const U> items) {
    const std::size_t offset = (host_.size() + 15) / 16 * 16;
    host_.resize(offset + items.size_bytes());
    if (!items.empty()) std::memcpy(host_.data() + offset, items.data(), items.size_bytes());
    return offset;
  }
  std::byte* upload(DeviceBuffer<std::byte>& device) const { return device.upload(host_); }

 private:
  std::vector<std::byte> host_;
};

__host__ __device__ inline Key key_of(double value) {
#ifdef __CUDA_ARCH__
  const auto bits = static_cast<Key>(__double_as_longlong(value));
#else
  const auto bits = std::bit_cast<Key>(value);
#endif
  return (bits & kSignBit) != 0 ? ~bits : bits | kSignBit;
}

// The key of a value, or of a key (the candidates after a reduce).
__device__ inline Key to_key(Key key) { return key; }
__device__ inline Key to_key(double value) { return key_of(value); }
__device__ inline Key to_key(float value) { return key_of(static_cast<double>(value)); }

// The current candidates: the values (before any reduce) or the kept keys.
template <class T>
struct KeySource {
  const T* values;
  const Key* keys;  // nullptr: the values
  __device__ Key operator()(Index i) const { return keys != nullptr ? keys[i] : to_key(values[i]); }
};

struct MinMax {
  Key min, max;
};
struct MinMaxOf {
  template <class V>
  __device__ MinMax operator()(V value) const {
    const Key key = to_key(value);
    return {key, key};
  }
};
struct MergeMinMax {
  __device__ MinMax operator()(const MinMax& a, const MinMax& b) const {
    return {a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max};
  }
};
constexpr MinMax kEmptyRange{kNoKey, 0};  // neutral: {~0, ~max} = {~0, ~0} when flattened

// The bucket of candidate i, as CpuLocalShard::count_buckets finds it: its interval is its
// segment's (segmented; bounds = segment starts) or the last interval whose lo is at most its
// key (bounds = the intervals' lows; the first when none), both found through a lookup table
// (interval_lookup.hpp). The bucket inside the interval: the division-free estimate over the
// buckets' first keys (fast_bucket.hpp), or, when an interval has more buckets than keys (never
// in DIBMS), fast_bucket_of.
template <class T>
struct BucketOfCandidate {
  KeySource<T> keys;
  const KeyInterval* intervals;
  const detail::EstimatedInterval* estimated;
  const std::uint64_t* starts;  // the first key of every bucket
  const std::uint64_t* bounds;
  const std::uint32_t* bins;  // the lookup's table
  detail::IntervalLookup lookup;
  bool segmented, by_table;
  __device__ std::uint32_t of(Index i, Key key) const {
    const std::uint32_t s = detail::interval_of(lookup, bins, bounds, segmented ? i : key);
    return static_cast<std::uint32_t>(by_table ? detail::estimated_bucket_of(estimated[s], starts, key)
                                               : detail::fast_bucket_of(intervals[s], key));
  }
  __device__ std::uint32_t operator()(Index i) const { return of(i, keys(i)); }
  __device__ Key load(Index i) const { return keys(i); }
};

// The bucket of a float value where the intervals are disjoint and increasing (every count over
// all values in DIBMS): with every bucket's first key in key order, the value's bucket is the one
// of the last first key at most its key (the first bucket when none), which is what
// BucketOfCandidate finds; here among those keys' float thresholds, in 32-bit compares.
struct FloatBucketOf {
  const float* values;
  const std::uint32_t* thresholds;  // float_threshold of every bucket's first key, in key order
  const std::uint32_t* buckets;     // the bucket of each; nullptr: its position
  const std::uint16_t* bins;        // the lookup's table, narrowed (at most 65536 thresholds)
  detail::IntervalLookup lookup;
  // The tables' words, and the same lookup over copies of them at `shared` (copied by the whole
  // block; the caller synchronises): each value's lookups are a few scattered reads, which
  // shared memory serves per bank where L1 takes a cycle per cache sector (ncu: 73 % of the
  // count's stalls were these loads).
  __host__ __device__ std::uint32_t table_words() const {
    const auto thresholds_count = static_cast<std::uint32_t>(lookup.last) + 1;
    return thresholds_count * (buckets != nullptr ? 2 : 1) + static_cast<std::uint32_t>(lookup.bins);  // 2 entries a word
  }
  __device__ FloatBucketOf staged(std::uint32_t* shared) const {
    const auto thresholds_count = static_cast<std::uint32_t>(lookup.last) + 1;
    const auto bin_words = static_cast<std::uint32_t>(lookup.bins);
    FloatBucketOf copy = *this;
    copy.thresholds = shared;
    copy.bins = reinterpret_cast<const std::uint16_t*>(shared + thresholds_count);
    const auto* bin_pairs = reinterpret_cast<const std::uint32_t*>(bins);  // 16-byte aligned (Staging)
    for (std::uint32_t w = threadIdx.x; w < thresholds_count; w += blockDim.x) shared[w] = thresholds[w];
    for (std::uint32_t w = threadIdx.x; w < bin_words; w += blockDim.x) shared[thresholds_count + w] = bin_pairs[w];
    if (buckets != nullptr) {
      std::uint32_t* map = shared + thresholds_count + bin_words;
      for (std::uint32_t w = threadIdx.x; w < thresholds_count; w += blockDim.x) map[w] = buckets[w];
      copy.buckets = map;
    }
    return copy;
  }
  __device__ std::uint32_t of(Index, std::uint32_t key) const {  // count_kernel reads the values (visit_vectors)
    const std::uint32_t at = detail::interval_of(lookup, bins, thresholds, key);
    return buckets != nullptr ? buckets[at] : at;
  }
};

// The reduce's slot of candidate i: kept bucket k -> k, single bucket s -> keeps + s, else -1.
template <class T>
struct SlotOfCandidate {
  BucketOfCandidate<T> bucket;
  const std::int32_t* slot_of_bucket;
  __device__ std::int32_t operator()(Index i) const { return slot_of_bucket[bucket(i)]; }
};
// A candidate's key with its slot: the reduce over overlapping intervals (never in DIBMS) selects
// these in one read of the candidates.
struct KeySlot {
  Key key;
  std::int32_t slot;
};
template <class T>
struct KeySlotOf {
  SlotOfCandidate<T> slot;
  __device__ KeySlot operator()(Index i) const {
    const Key key = slot.bucket.keys(i);
    return {key, slot.slot_of_bucket[slot.bucket.of(i, key)]};
  }
};
struct HasSlot {
  __device__ bool operator()(const KeySlot& candidate) const { return candidate.slot >= 0; }
};

// Whether a candidate (a value, or a key after a reduce) is in a kept or single bucket: its key
// among the slots' key ranges (slot_ranges.hpp). The reduce selects the candidates themselves
// with these (CUB moves 4 or 8 bytes an item) and finds the few selected ones' slots after.
struct SlotTables {
  detail::IntervalLookup lookup;
  const std::uint32_t* bins;
  const std::uint64_t* edges;
  const std::int32_t* slots;
  __device__ std::int32_t slot_of(Key key) const { return detail::slot_of_key(lookup, bins, edges, slots, key); }
};
template <class V>
struct HasSlotByKey {
  SlotTables tables;
  __device__ bool operator()(V candidate) const { return tables.slot_of(to_key(candidate)) >= 0; }
};
// The same for float values, among the ranges' edges as float thresholds (float_keys.hpp).
struct FloatHasSlot {
  detail::IntervalLookup lookup;
  const std::uint32_t* bins;
  const std::uint32_t* thresholds;
  const std::int32_t* slots;
  __device__ bool operator()(float value) const {
    const std::uint32_t key = detail::float_key(value);
    return key >= thresholds[0] && slots[detail::interval_of(lookup, bins, thresholds, key)] >= 0;
  }
};

// The selected candidates' keys and slots (keys_out may be `selected` itself, for keys).
template <class V>
__global__ void key_slots_of(const V* selected, std::uint64_t count, SlotTables tables, Key* keys_out,
                             std::uint32_t* slots_out) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count; j += std::uint64_t{gridDim.x} * blockDim.x) {
    const Key key = to_key(selected[j]);
    keys_out[j] = key;
    slots_out[j] = static_cast<std::uint32_t>(tables.slot_of(key));
  }
}

__global__ void split_key_slots(const KeySlot* selected, std::uint64_t count, Key* keys_out, std::uint32_t* slots_out) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count; j += std::uint64_t{gridDim.x} * blockDim.x) {
    keys_out[j] = selected[j].key;
    slots_out[j] = static_cast<std::uint32_t>(selected[j].slot);
  }
}

template <class T>
__global__ void gather_keys(KeySource<T> keys, const Index* at, std::uint64_t count, Key* out) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < count; j += std::uint64_t{gridDim.x} * blockDim.x)
    out[j] = keys(at[j]);
}

// One read of values given on the device: the position of the first NaN and the key range.
struct NanAndRange {
  std::uint64_t nan_at;
  MinMax range;
};
template <class T>
struct NanAndRangeOf {
  const T* values;
  std::uint64_t none;
  __device__ NanAndRange operator()(Index i) const {
    const T value = values[i];
    if (value != value) return {i, kEmptyRange};
    const Key key = to_key(value);
    return {none, {key, key}};
  }
};
struct MergeNanAndRange {
  __device__ NanAndRange operator()(const NanAndRange& a, const NanAndRange& b) const {
    return {a.nan_at < b.nan_at ? a.nan_at : b.nan_at, MergeMinMax{}(a.range, b.range)};
  }
};

// Cutting-plane sums over lo < key < hi, exact: counts and 128-bit sums of key differences.
struct ExactPivotSums {
  unsigned long long below, equal, above;
  Wide sum_below, sum_above;
};
struct PivotTerms {
  Key lo, hi, pivot;
  template <class V>
  __device__ ExactPivotSums operator()(V value) const {
    const Key key = to_key(value);
    ExactPivotSums s{0, 0, 0, 0, 0};
    if (key <= lo || key >= hi) return s;
    if (key < pivot) s.below = 1, s.sum_below = pivot - key;
    else if (key > pivot) s.above = 1, s.sum_above = key - pivot;
    else s.equal = 1;
    return s;
  }
};
struct AddPivotSums {
  __device__ ExactPivotSums operator()(const ExactPivotSums& a, const ExactPivotSums& b) const {
    return {a.below + b.below, a.equal + b.equal, a.above + b.above, a.sum_below + b.sum_below, a.sum_above + b.sum_above};
  }
};
struct ToKey {
  template <class V>
  __device__ Key operator()(V value) const {
    return to_key(value);
  }
};
struct Inside {
  Key lo, hi;
  __device__ bool operator()(Key key) const { return key > lo && key < hi; }
};
struct InsideCount {
  Key lo, hi;
  template <class V>
  __device__ unsigned long long operator()(V value) const {
    const Key key = to_key(value);
    return key > lo && key < hi ? 1ull : 0ull;
  }
};

// Bucket counts in one pass: each block counts in shared memory, then adds its counts to the
// global ones. (CUB's DeviceHistogram keeps bins in shared memory only up to 256 of them; DIBMS
// counts 8192.) More buckets than fit go straight to global atomics. A block counts at most
// count / gridDim values, far below 2^32. Each thread loads kCountItems candidates before it
// buckets them, so enough loads are in flight to keep the memory busy.
constexpr std::uint32_t kSharedBins = 8192;
static_assert(sizeof(unsigned long long) == sizeof(std::uint64_t), "counts are copied to std::uint64_t");
constexpr unsigned kCountThreads = 512;
constexpr int kCountItems = 8;

// The count and the placed reduce read the floats by selection's visit_vectors: 16-byte loads,
// 4 in flight a thread, no bounds check a value (the passes over 2^28 floats are bound by their
// instructions, not the memory: ncu on an H200, 2-5 % shorter than 8 scalar loads a thread), and
// the same values in the same block on both passes (placed_reduce_kernel places values by the
// count's per-block counts).
using selection::cuda::detail::visit_vectors;
constexpr int kFloatStep = selection::cuda::detail::kVisitItems<float>;

// kStaged: the classifier's tables are copied to dynamic shared memory first (FloatBucketOf).
template <class Classify, bool kStaged = false>  // BucketOfCandidate or FloatBucketOf
// per_block (may be null): every block's count of every bucket, block-major (with in-shared
// counts only), for the reduce's placement (placed_reduce_kernel).
__global__ void __launch_bounds__(kCountThreads, 2) count_kernel(Classify bucket, std::uint64_t count,
                                                                 std::uint32_t buckets, unsigned long long* counts,
                                                                 std::uint32_t* per_block = nullptr) {
  __shared__ unsigned int block_counts[kSharedBins];
  extern __shared__ std::uint32_t staged_tables[];
  if constexpr (kStaged) bucket = bucket.staged(staged_tables);
  const bool in_shared = kStaged || buckets <= kSharedBins;  // staged: launched only where they fit
  if (in_shared)
    for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) block_counts[b] = 0;
  if (in_shared || kStaged) __syncthreads();
  // The first and last buckets are counted in registers: a bracket's outer intervals (one bucket
  // each, dibms_select_bracketed) hold most values, and atomics on two addresses serialise the
  // warp (30x slower counts on an H200).
  unsigned first_bucket = 0, last_bucket = 0;
  const std::uint32_t last = buckets - 1;
  const auto tally = [&](std::uint32_t b) {
    if (b == 0) ++first_bucket;
    else if (b == last) ++last_bucket;
    else if (in_shared) atomicAdd(&block_counts[b], 1u);
    else atomicAdd(&counts[b], 1ull);
  };
  if constexpr (std::is_same_v<Classify, FloatBucketOf>) {
    visit_vectors(bucket.values, count, [&](const float* v, unsigned valid) {
#pragma unroll
      for (int u = 0; u < kFloatStep; ++u)
        if (valid >> u & 1u) tally(bucket.of(0, detail::float_key(v[u])));
    });
  } else {
    const std::uint64_t tile = std::uint64_t{kCountItems} * blockDim.x;
    for (std::uint64_t first = blockIdx.x * tile + threadIdx.x; first < count; first += std::uint64_t{gridDim.x} * tile) {
      decltype(bucket.load(0)) keys[kCountItems];
#pragma unroll
      for (int k = 0; k < kCountItems; ++k) {
        const std::uint64_t i = first + std::uint64_t{blockDim.x} * static_cast<unsigned>(k);
        keys[k] = i < count ? bucket.load(i) : 0;
      }
#pragma unroll
      for (int k = 0; k < kCountItems; ++k) {
        const std::uint64_t i = first + std::uint64_t{blockDim.x} * static_cast<unsigned>(k);
        if (i >= count) break;
        tally(bucket.of(i, keys[k]));
      }
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {  // the warp's sums, then one atomic each
    first_bucket += __shfl_down_sync(0xffffffffu, first_bucket, offset);
    last_bucket += __shfl_down_sync(0xffffffffu, last_bucket, offset);
  }
  if (threadIdx.x % 32 == 0) {
    if (in_shared) {
      if (first_bucket != 0) atomicAdd(&block_counts[0], first_bucket);
      if (last_bucket != 0) atomicAdd(&block_counts[last], last_bucket);
    } else {
      if (first_bucket != 0) atomicAdd(&counts[0], static_cast<unsigned long long>(first_bucket));
      if (last_bucket != 0) atomicAdd(&counts[last], static_cast<unsigned long long>(last_bucket));
    }
  }
  if (in_shared) {
    __syncthreads();
    for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) {
      if (block_counts[b] != 0) atomicAdd(&counts[b], static_cast<unsigned long long>(block_counts[b]));
      if (per_block != nullptr) per_block[std::size_t{blockIdx.x} * buckets + b] = block_counts[b];
    }
  }
}

// The count over band-aligned intervals (DIBMS's Phase 1, DibmsOptions::band_intervals): a
// value's bucket by one load from the band tables (band_table.hpp: a float value's from its
// 32-bit key; the count is issue-bound, and ncu at locked clocks took 770 us for 2^29 floats by
// 64-bit keys, 744 with the float table and the 64-bit branch, 673 without it), the tables and
// a counter per bucket in dynamic shared memory (18 KB + 4 bytes a bucket, at most
// kMaxBandBuckets), every block's counts kept for the placed reduce (per_block, block-major), as
// the float count does. Float or double values, read as count_kernel reads floats (visit_vectors).
constexpr std::uint64_t kMaxBandBuckets = 20480;  // B = 8192 rounded up band by band (< 2B), a bucket a sampled band and a run
constexpr std::uint32_t kBandTableWords = detail::kKeyBands + detail::kFloatBands;  // the 64-bit table, then the floats'
constexpr std::size_t band_count_shared_bytes(std::uint64_t buckets) {
  return sizeof(std::uint32_t) * (kBandTableWords + buckets);
}
// A value's bucket under the band tables (`tables`: kBandTableWords words); kWide: some float
// entries need the 64-bit key (detail::needs_wide_keys).
template <bool kWide>
__device__ inline std::uint32_t band_bucket_of(float value, const std::uint32_t* tables) {
  return detail::float_band_bucket<kWide>(detail::float_key(value), tables + detail::kKeyBands, tables);
}
template <bool kWide>
__device__ inline std::uint32_t band_bucket_of(double value, const std::uint32_t* tables) {
  return detail::band_bucket(key_of(value), tables);
}

template <class T, bool kWide>
__global__ void __launch_bounds__(kCountThreads, 2) band_count_kernel(const T* values, std::uint64_t count,
                                                                      const std::uint32_t* tables, std::uint32_t buckets,
                                                                      unsigned long long* counts, std::uint32_t* per_block) {
  extern __shared__ std::uint32_t band_shared[];
  std::uint32_t* staged = band_shared;
  std::uint32_t* counters = band_shared + kBandTableWords;
  for (std::uint32_t w = threadIdx.x; w < kBandTableWords; w += blockDim.x) staged[w] = tables[w];
  for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) counters[b] = 0;
  __syncthreads();
  visit_vectors(values, count, [&](const T* v, unsigned valid) {
    selection::cuda::detail::for_each_valid<selection::cuda::detail::kVisitItems<T>>(
        valid, [&](int u) { atomicAdd(&counters[band_bucket_of<kWide>(v[u], staged)], 1u); });
  });
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < buckets; b += blockDim.x) {
    if (counters[b] != 0) atomicAdd(&counts[b], static_cast<unsigned long long>(counters[b]));
    per_block[std::size_t{blockIdx.x} * buckets + b] = counters[b];
  }
}

// The first reduce of float values in one pass (instead of a stable selection, a pass for the
// selected values' slots and a sort by slot): each value's slot by FloatHasSlot's lookup, its
// tables staged in shared memory, and the values with a slot written as keys straight into
// their slot's segment. The grid and the values of each block are the float count's, which
// kept every block's count per bucket, so each (slot, block) has its place in the segment
// (slot_block_starts) and a block places its values there by shared-memory counters: no global
// atomics (one per slot and warp crowded a few hundred addresses: 2-4x slower than the
// selection). Within a block's part the order is its atomics' (any order: the later passes
// count, select and bound a segment's keys, all independent of their order).
constexpr std::size_t kMaxReduceStagedBytes = 160 * 1024;  // larger tables: the selection through L1

// Most values are in no slot, and most of the lookup's bins hold no edge: the lookup's words
// (detail::direct_answers) give those values' slot in one shared-memory read, not three.
struct FloatSlotTables {
  using Value = float;
  detail::IntervalLookup lookup;
  const std::uint32_t* words;       // direct_answers of the lookup over thresholds and slots
  const std::uint32_t* thresholds;  // the ranges' edges as float thresholds: lookup.last + 1
  const std::int32_t* slots;
  std::uint32_t lowest = 0;  // thresholds[0], in a register: below it no slot (set by staged)
  __host__ __device__ std::uint32_t table_words() const {
    return 2 * (static_cast<std::uint32_t>(lookup.last) + 1) + static_cast<std::uint32_t>(lookup.bins);
  }
  // The same tables copied to `shared` (table_words() words) by the whole block; the caller
  // synchronises.
  __device__ FloatSlotTables staged(std::uint32_t* shared) const {
    const auto edges = static_cast<std::uint32_t>(lookup.last) + 1, bin_words = static_cast<std::uint32_t>(lookup.bins);
    for (std::uint32_t w = threadIdx.x; w < edges; w += blockDim.x) {
      shared[w] = thresholds[w];
      shared[edges + w] = static_cast<std::uint32_t>(slots[w]);
    }
    for (std::uint32_t w = threadIdx.x; w < bin_words; w += blockDim.x) shared[2 * edges + w] = words[w];
    return {lookup, shared + 2 * edges, shared, reinterpret_cast<const std::int32_t*>(shared + edges), thresholds[0]};
  }
  __device__ std::int32_t slot_of(float value) const {
    const std::uint32_t key = detail::float_key(value);
    return key < lowest ? -1 : detail::answer_of(lookup, words, thresholds, slots, key);
  }
};

// The same for the values of a band count: each value's bucket by the band table, its slot by
// a word per bucket (-1: none).
template <class T, bool kWide>
struct BandSlotTables {
  using Value = T;
  const std::uint32_t* tables;  // band_count_kernel's: kBandTableWords words
  const std::int32_t* slot_of_bucket;
  std::uint32_t buckets;
  __host__ __device__ std::uint32_t table_words() const { return kBandTableWords + buckets; }
  __device__ BandSlotTables staged(std::uint32_t* shared) const {
    for (std::uint32_t w = threadIdx.x; w < kBandTableWords; w += blockDim.x) shared[w] = tables[w];
    for (std::uint32_t w = threadIdx.x; w < buckets; w += blockDim.x)
      shared[kBandTableWords + w] = static_cast<std::uint32_t>(slot_of_bucket[w]);
    return {shared, reinterpret_cast<const std::int32_t*>(shared + kBandTableWords), buckets};
  }
  __device__ std::int32_t slot_of(T value) const { return slot_of_bucket[band_bucket_of<kWide>(value, tables)]; }
};

// starts[s * blocks + j]: where block j's values of slot s go (one thread per slot): the slot's
// segment start plus the counts of its bucket in the blocks before j.
__global__ void slot_block_starts(const std::uint32_t* per_block, std::uint32_t buckets, std::uint32_t blocks,
                                  const std::uint32_t* bucket_of_slot, const std::uint64_t* segment_starts,
                                  std::uint32_t slots, std::uint64_t* starts) {
  const std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= slots) return;
  std::uint64_t at = segment_starts[s];
  for (std::uint32_t j = 0; j < blocks; ++j) {
    starts[std::size_t{s} * blocks + j] = at;
    at += per_block[std::size_t{j} * buckets + bucket_of_slot[s]];
  }
}

// Slots below kept_slots are kept buckets', whose slots nobody reads (their segments are known
// from the counts): only the singles' slots are written.
template <class Slots>  // FloatSlotTables or BandSlotTables<T, kWide>
__global__ void __launch_bounds__(kCountThreads) placed_reduce_kernel(const typename Slots::Value* values, std::uint64_t count,
                                                                      Slots tables, std::uint32_t slot_count,
                                                                      std::uint32_t kept_slots, const std::uint64_t* block_starts,
                                                                      const std::uint32_t* per_block, std::uint32_t buckets,
                                                                      const std::uint32_t* bucket_of_slot, Key* keys_out,
                                                                      std::uint32_t* slots_out, unsigned* mismatch) {
  using T = typename Slots::Value;
  extern __shared__ std::uint32_t staged[];
  const Slots slots = tables.staged(staged);
  std::uint32_t* cursors = staged + tables.table_words();
  for (std::uint32_t s = threadIdx.x; s < slot_count; s += blockDim.x) cursors[s] = 0;
  __syncthreads();
  // The count's visit: the same values in the same block. Every value's slot first, without a
  // branch a value (their table loads in flight together), then the few with a slot placed.
  constexpr int kItems = selection::cuda::detail::kVisitItems<T>;
  visit_vectors(values, count, [&](const T* v, unsigned valid) {
    std::int32_t slot[kItems];
#pragma unroll
    for (int u = 0; u < kItems; ++u) slot[u] = -1;
    selection::cuda::detail::for_each_valid<kItems>(valid, [&](int u) { slot[u] = slots.slot_of(v[u]); });
#pragma unroll
    for (int u = 0; u < kItems; ++u) {
      if (slot[u] < 0) continue;
      const auto s = static_cast<std::uint32_t>(slot[u]);
      const std::uint64_t to = block_starts[std::size_t{s} * gridDim.x + blockIdx.x] + atomicAdd(&cursors[s], 1u);
      keys_out[to] = to_key(v[u]);
      if (s >= kept_slots) slots_out[to] = s;
    }
  });
  // Each block placed exactly its counted values of each slot (else the tables disagree).
  __syncthreads();
  for (std::uint32_t s = threadIdx.x; s < slot_count; s += blockDim.x)
    if (cursors[s] != per_block[std::size_t{blockIdx.x} * buckets + bucket_of_slot[s]]) atomicOr(mismatch, 1u);
}

// Bins of the interval lookups (32 KB tables, held in L1): values spread unevenly over the key
// space (floats in [0, 1) fill the top binades), so it takes many bins to give most boundaries
// a bin of their own, and a bin with no boundary answers without a search.
constexpr std::uint64_t kLookupBins = 4096;
// The float count's lookup: twice the bins in 16-bit entries (the same 32 KB), so that a crowded
// bin (floats in [0, 1): ~30 of 8192 thresholds in a bin of 4096) needs one search step fewer.
constexpr std::uint64_t kFloatLookupBins = 2 * kLookupBins;
// The float count's tables in shared memory, at most (thresholds of 8192 buckets and the
// lookup's bins; a bucket map beside them when the buckets are not in key order is larger: then
// the count reads them through L1).
constexpr std::size_t kMaxStagedBytes = sizeof(std::uint32_t) * (8192 + kFloatLookupBins);

// The float count's tables, built on the device (on the host they took 0.15-0.2 ms of an H200
// host's time a DIBMS call, its GPU idle): every bucket's float threshold (float_threshold of
// its first key), then each lookup bin's first and last index, upper_bound - 1 of the bin's
// first and last key as make_interval_lookup finds them, in 16 bits.
__global__ void float_thresholds_kernel(const std::uint64_t* first_keys, std::uint32_t count, std::uint32_t* thresholds) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) thresholds[i] = detail::float_threshold(first_keys[i]);
}
__device__ std::uint16_t last_at_most(const std::uint32_t* lows, std::uint32_t count, std::uint64_t key) {
  // Keys above every 32-bit low compare as such (upper_bound of the 64-bit key).
  const std::uint32_t* first_above = thrust::upper_bound(thrust::seq, lows, lows + count, key,
                                                         [](std::uint64_t k, std::uint32_t low) { return k < low; });
  const auto below = static_cast<std::uint32_t>(first_above - lows);
  return static_cast<std::uint16_t>(below == 0 ? 0 : below - 1);
}
__global__ void float_lookup_kernel(const std::uint32_t* thresholds, std::uint32_t count, detail::IntervalLookup lookup,
                                    std::uint16_t* bins) {
  const std::uint64_t bin = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (bin >= lookup.bins) return;
  const std::uint64_t start = lookup.base + (bin << lookup.shift);
  const std::uint64_t end = start + min((std::uint64_t{1} << lookup.shift) - 1, ~std::uint64_t{0} - start);
  bins[2 * bin] = last_at_most(thresholds, count, start);
  bins[2 * bin + 1] = last_at_most(thresholds, count, end);
}

unsigned grid_for(std::uint64_t count) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>((count + 255) / 256, 1, 65535));
}

// Brackets a shard call, which may come from any thread (concurrent_calls): makes the shard's
// device current on the thread, and at the end waits for the work the call queued on the
// thread's stream, so that the next call, from whatever thread, finds it done.
class CallDone {
 public:
  explicit CallDone(int device) { CUDA_CHECK(cudaSetDevice(device)); }
  ~CallDone() noexcept(false) {
    const cudaError_t status = cudaStreamSynchronize(cudaStreamPerThread);
    if (status != cudaSuccess && std::uncaught_exceptions() == 0) CUDA_CHECK(status);
  }
  CallDone(const CallDone&) = delete;
  CallDone& operator=(const CallDone&) = delete;
};

template <class T>
class CudaLocalShard final : public LocalShard {
 public:
  // Over `values` on the device (referred to) when given, else over a buffer of its own that the
  // factory fills through values().
  explicit CudaLocalShard(std::uint64_t count, const T* values = nullptr) : n_(count), size_(count) {
    values_ = values != nullptr ? values : all_.reserve(count);
    CUDA_CHECK(cudaGetDevice(&device_));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_));
    int per_multiprocessor = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, count_kernel<BucketOfCandidate<T>>,
                                                             kCountThreads, 0));
    count_blocks_ = static_cast<std::uint64_t>(std::max(per_multiprocessor, 1)) * static_cast<std::uint64_t>(multiprocessors_);
    if constexpr (std::is_same_v<T, float>) {
      // With the largest staged tables (8192 thresholds and 8192 16-bit bin pairs: 64 KB; 2 blocks
      // per SM on an H100 or H200); fewer blocks run where they do not fit.
      selection::cuda::detail::allow_dynamic_shared_memory(count_kernel<FloatBucketOf, true>, kMaxStagedBytes);
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, count_kernel<FloatBucketOf, true>,
                                                               kCountThreads, kMaxStagedBytes));
      float_count_blocks_ = static_cast<std::uint64_t>(std::max(per_multiprocessor, 1)) * static_cast<std::uint64_t>(multiprocessors_);
    }
    // The band count's grid, with its largest tables (18 KB and kMaxBandBuckets counters: 100 KB).
    selection::cuda::detail::allow_dynamic_shared_memory(band_count_kernel<T, false>, band_count_shared_bytes(kMaxBandBuckets));
    selection::cuda::detail::allow_dynamic_shared_memory(band_count_kernel<T, true>, band_count_shared_bytes(kMaxBandBuckets));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, band_count_kernel<T, true>, kCountThreads,
                                                             band_count_shared_bytes(kMaxBandBuckets)));
    band_count_blocks_ = static_cast<std::uint64_t>(std::max(per_multiprocessor, 1)) * static_cast<std::uint64_t>(multiprocessors_);
  }
  T* values() { return all_.get(); }  // its own buffer
  // The key range of every value, kept: the values never change, so key_range after a reset
  // reads nothing (the factories compute it while they check for NaN).
  void set_all_range(MinMax range) { all_range_ = range; }
  void compute_all_range() {
    if (n_ == 0) return;
    const auto in = thrust::make_transform_iterator(values_, MinMaxOf{});
    MinMax* out = range_.reserve(1);
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(n_), MergeMinMax{}, kEmptyRange);
    });
    all_range_ = range_.download(1)[0];
  }

  void reset() override {
    reduced_ = false;
    size_ = n_;
    segments_.clear();
    counted_ = false;
  }

  std::uint64_t size() const override { return size_; }
  bool concurrent_calls() const override { return true; }
  // Float values: the first count classifies by every bucket's threshold (FloatBucketOf).
  bool fine_pivots_free() const override { return std::is_same_v<T, float>; }

  std::array<std::uint64_t, 2> key_range() const override {
    const CallDone done(device_);
    if (size_ == 0) return {kNoKey, kNoKey};
    if (!reduced_) return {all_range_.min, ~all_range_.max};
    MinMax* out = range_.reserve(1);
    const auto in = thrust::make_transform_iterator(candidates_.get(), MinMaxOf{});
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(size_), MergeMinMax{}, kEmptyRange);
    });
    const MinMax range = range_.download(1)[0];
    return {range.min, ~range.max};
  }

  std::vector<std::uint64_t> sample(std::uint64_t count, std::uint64_t seed) const override {
    const CallDone done(device_);
    if (size_ == 0) return {};
    // The CPU backend's draw (the same generator and indices), gathered on the device.
    common::Random random(seed);
    std::vector<Index> at(count);
    for (Index& i : at) i = random.below(size_);
    const Index* d_at = sample_at_.upload(at);
    Key* out = sample_keys_.reserve(count);
    if (count > 0) {
      gather_keys<<<grid_for(count), 256>>>(current(), d_at, count, out);
      CUDA_CHECK_LAUNCH();
    }
    return sample_keys_.download(count);
  }

  std::vector<std::uint64_t> count_buckets(std::span<const KeyInterval> intervals, std::uint64_t buckets,
                                           bool segmented) override {
    const CallDone done(device_);
    common::Stopwatch watch;
    if (intervals.empty()) throw std::logic_error("count_buckets: no intervals");
    if (buckets > UINT32_MAX) throw std::logic_error("count_buckets: more buckets than 32-bit bucket numbers");
    if (segmented && segments_.size() != intervals.size() + 1)
      throw std::logic_error("count_buckets: segments and intervals differ");
    band_counted_ = false;
    if (!reduced_ && !segmented && buckets <= kMaxBandBuckets && detail::make_band_table(intervals, band_table_host_)) {
      count_by_bands(intervals, buckets, watch);
      return local_counts_;
    }
    // The estimate's intervals and every bucket's first key (the table is as long as the counts).
    bool by_table = true;
    estimated_host_.clear();
    starts_host_.assign(buckets, 0);
    for (const KeyInterval& interval : intervals) {
      if (interval.buckets == 0 || interval.first_bucket > buckets || interval.buckets > buckets - interval.first_bucket)
        throw std::logic_error("count_buckets: an interval's buckets beyond the bucket count");
      const std::uint64_t span = interval.hi - interval.lo;
      if (span != kNoKey && interval.buckets > span + 1) by_table = false;
      estimated_host_.push_back(detail::estimated_interval(interval));
    }
    if (by_table)
      for (const KeyInterval& interval : intervals) detail::write_bucket_starts(interval, starts_host_);
    intervals_host_.assign(intervals.begin(), intervals.end());
    // Float values before any reduce, in disjoint increasing intervals: counted in the float
    // domain (FloatBucketOf), whose tables are built on the device from the buckets' first keys
    // in key order (float_thresholds_kernel); the key-based tables are then not needed.
    bool by_float = false;
    detail::IntervalLookup float_lookup;
    bool identity = true;  // bucket j's first key is the j-th in key order
    if constexpr (std::is_same_v<T, float>) {
      by_float = !reduced_ && !segmented && by_table;
      for (std::size_t s = 1; by_float && s < intervals.size(); ++s) by_float = intervals[s].lo > intervals[s - 1].hi;
      if (by_float) {
        first_keys_host_.clear(), float_buckets_host_.clear();
        for (const KeyInterval& interval : intervals)
          for (std::uint64_t j = interval.first_bucket; j < interval.first_bucket + interval.buckets; ++j) {
            identity = identity && j == first_keys_host_.size();
            first_keys_host_.push_back(starts_host_[j]);
            float_buckets_host_.push_back(static_cast<std::uint32_t>(j));
          }
        by_float = first_keys_host_.size() <= 65536;  // the lookup's entries in 16 bits
      }
      if (by_float)
        float_lookup = detail::interval_lookup_shape(detail::float_threshold(first_keys_host_.front()),
                                                     detail::float_threshold(first_keys_host_.back()),
                                                     first_keys_host_.size(), kFloatLookupBins);
    }
    staging_.clear();
    std::size_t at_intervals = 0, at_estimated = 0, at_starts = 0, at_bounds = 0, at_bins = 0;
    std::size_t at_first_keys = 0, at_float_buckets = 0;
    detail::IntervalLookup lookup;
    if (by_float) {
      at_first_keys = staging_.add(std::span<const std::uint64_t>(first_keys_host_));
      if (!identity) at_float_buckets = staging_.add(std::span<const std::uint32_t>(float_buckets_host_));
    } else {
      // Each candidate's interval: by position among the segments' starts, or by key among the lows.
      bounds_host_.clear();
      if (segmented) bounds_host_.assign(segments_.begin(), segments_.end() - 1);
      else for (const KeyInterval& interval : intervals) bounds_host_.push_back(interval.lo);
      lookup = detail::make_interval_lookup(bounds_host_, kLookupBins, bins_host_);
      at_intervals = staging_.add(intervals);
      at_estimated = staging_.add(std::span<const detail::EstimatedInterval>(estimated_host_));
      at_starts = staging_.add(std::span<const std::uint64_t>(starts_host_));
      at_bounds = staging_.add(std::span<const std::uint64_t>(bounds_host_));
      at_bins = staging_.add(std::span<const std::uint32_t>(bins_host_));
    }
    std::byte* const tables = staging_.upload(tables_);  // cudaMalloc'd: aligned for every table
    // The key-based assignment; none after a float count (its intervals are disjoint, so the
    // reduce never asks each candidate's bucket).
    assignment_ = {};
    if (!by_float)
      assignment_ = {current(),
                     reinterpret_cast<const KeyInterval*>(tables + at_intervals),
                     reinterpret_cast<const detail::EstimatedInterval*>(tables + at_estimated),
                     reinterpret_cast<const std::uint64_t*>(tables + at_starts),
                     reinterpret_cast<const std::uint64_t*>(tables + at_bounds),
                     reinterpret_cast<const std::uint32_t*>(tables + at_bins),
                     lookup,
                     segmented,
                     by_table};
    common::trace(by_float ? "shard count tables (float)" : "shard count tables", watch.lap(), static_cast<long long>(buckets));
    buckets_ = buckets;
    counted_ = true;
    per_block_blocks_ = 0;
    local_counts_.assign(buckets, 0);
    if (size_ > 0) {
      unsigned long long* d_counts = counts_.reserve(buckets);
      CUDA_CHECK(cudaMemset(d_counts, 0, buckets * sizeof(unsigned long long)));
      const std::uint64_t tile = std::uint64_t{kCountThreads} * kCountItems;
      const std::uint64_t most = by_float ? float_count_blocks_ : count_blocks_;
      const auto blocks = static_cast<unsigned>(std::clamp<std::uint64_t>((size_ + tile - 1) / tile, 1, most));
      if constexpr (std::is_same_v<T, float>) {
        if (by_float) {
          const auto count = static_cast<std::uint32_t>(float_lookup.last) + 1;
          std::uint32_t* thresholds = float_thresholds_.reserve(count);
          std::uint16_t* bins = float_bins_.reserve(2 * float_lookup.bins);
          float_thresholds_kernel<<<(count + 255) / 256, 256>>>(reinterpret_cast<const std::uint64_t*>(tables + at_first_keys),
                                                                 count, thresholds);
          float_lookup_kernel<<<static_cast<unsigned>((float_lookup.bins + 255) / 256), 256>>>(thresholds, count, float_lookup, bins);
          const FloatBucketOf float_bucket{values_, thresholds,
                                           identity ? nullptr : reinterpret_cast<const std::uint32_t*>(tables + at_float_buckets),
                                           bins, float_lookup};
          const std::size_t staged_bytes = sizeof(std::uint32_t) * float_bucket.table_words();
          if (staged_bytes <= kMaxStagedBytes && buckets <= kSharedBins) {
            // With every block's counts: the reduce that follows places the values by them.
            count_kernel<FloatBucketOf, true><<<blocks, kCountThreads, staged_bytes>>>(
                float_bucket, size_, static_cast<std::uint32_t>(buckets), d_counts, per_block_.reserve(std::size_t{blocks} * buckets));
            per_block_blocks_ = blocks;
          }
          else
            count_kernel<<<blocks, kCountThreads>>>(float_bucket, size_, static_cast<std::uint32_t>(buckets), d_counts);
        }
      }
      if (!by_float) count_kernel<<<blocks, kCountThreads>>>(assignment_, size_, static_cast<std::uint32_t>(buckets), d_counts);
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaMemcpy(local_counts_.data(), d_counts, buckets * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      common::trace(per_block_blocks_ != 0 ? "shard count kernel (staged)" : "shard count kernel", watch.lap(),
                    static_cast<long long>(size_));
    }
    return local_counts_;
  }

  // count_buckets over band-aligned intervals (every value a candidate): band_count_kernel, with
  // every block's counts for the placed reduce that follows.
  void count_by_bands(std::span<const KeyInterval> intervals, std::uint64_t buckets, common::Stopwatch& watch) {
    intervals_host_.assign(intervals.begin(), intervals.end());
    assignment_ = {};  // the reduce places the values by the band table instead
    buckets_ = buckets;
    counted_ = true;
    band_counted_ = true;
    per_block_blocks_ = 0;
    local_counts_.assign(buckets, 0);
    const std::vector<std::uint32_t> float_table = detail::float_band_table(band_table_host_);
    band_wide_ = std::is_same_v<T, float> && detail::needs_wide_keys(float_table);
    band_table_host_.insert(band_table_host_.end(), float_table.begin(), float_table.end());
    const std::uint32_t* table = band_table_.upload(band_table_host_);
    common::trace("shard count tables (bands)", watch.lap(), static_cast<long long>(buckets));
    if (size_ == 0) return;
    unsigned long long* d_counts = counts_.reserve(buckets);
    CUDA_CHECK(cudaMemset(d_counts, 0, buckets * sizeof(unsigned long long)));
    const std::uint64_t tile = std::uint64_t{kCountThreads} * kCountItems;
    const auto blocks = static_cast<unsigned>(std::clamp<std::uint64_t>((size_ + tile - 1) / tile, 1, band_count_blocks_));
    auto* const kernel = band_wide_ ? band_count_kernel<T, true> : band_count_kernel<T, false>;
    kernel<<<blocks, kCountThreads, band_count_shared_bytes(buckets)>>>(
        values_, size_, table, static_cast<std::uint32_t>(buckets), d_counts, per_block_.reserve(std::size_t{blocks} * buckets));
    CUDA_CHECK_LAUNCH();
    per_block_blocks_ = blocks;
    CUDA_CHECK(cudaMemcpy(local_counts_.data(), d_counts, buckets * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    common::trace("shard count kernel (bands)", watch.lap(), static_cast<long long>(size_));
  }

  // The first reduce of the values after a float or band count (placed_reduce_kernel): next_ gets
  // the values of every slot, as keys, in their segments (kept buckets from 0, then the
  // singles'), sorted_slots_ the singles' slots beside them, each block's count of each slot
  // checked against the count's. Needs the count's per-block counts (per_block_blocks_ != 0).
  template <class Slots>
  void place_values(const Slots& tables, std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles,
                    std::uint64_t expected) {
    std::vector<std::uint64_t> starts;
    std::vector<std::uint32_t> bucket_of_slot;
    std::uint64_t at = 0;
    for (const auto& buckets : {keep, singles})
      for (const std::uint64_t b : buckets) {
        starts.push_back(at), bucket_of_slot.push_back(static_cast<std::uint32_t>(b));
        at += local_counts_[b];
      }
    if (at != expected || starts.empty()) throw std::logic_error("reduce: the slots' segments differ from the counts");
    const auto slot_count = static_cast<std::uint32_t>(starts.size());
    const std::uint32_t blocks = per_block_blocks_;
    const std::uint64_t* d_segment_starts = segment_offsets_.upload(starts);
    const std::uint32_t* d_bucket_of_slot = slot_buckets_.upload(bucket_of_slot);
    std::uint64_t* d_block_starts = block_starts_.reserve(std::size_t{slot_count} * blocks);
    slot_block_starts<<<(slot_count + 127) / 128, 128>>>(per_block_.get(), static_cast<std::uint32_t>(buckets_), blocks,
                                                        d_bucket_of_slot, d_segment_starts, slot_count, d_block_starts);
    CUDA_CHECK_LAUNCH();
    unsigned* d_mismatch = mismatch_.reserve(1);
    CUDA_CHECK(cudaMemset(d_mismatch, 0, sizeof(unsigned)));
    Key* keys = next_.reserve(expected);
    std::uint32_t* slots = sorted_slots_.reserve(expected);
    const std::size_t shared_bytes = sizeof(std::uint32_t) * (tables.table_words() + slot_count);
    // (The band tables with a slot per bucket and per kept bucket: up to 182 KB, one block an SM.)
    selection::cuda::detail::allow_dynamic_shared_memory(placed_reduce_kernel<Slots>, std::max(shared_bytes, kMaxReduceStagedBytes));
    placed_reduce_kernel<<<blocks, kCountThreads, shared_bytes>>>(values_, size_, tables, slot_count,
                                                                  static_cast<std::uint32_t>(keep.size()), d_block_starts,
                                                                  per_block_.get(), static_cast<std::uint32_t>(buckets_),
                                                                  d_bucket_of_slot, keys, slots, d_mismatch);
    CUDA_CHECK_LAUNCH();
    if (mismatch_.download(1)[0] != 0) throw std::logic_error("reduce: the values placed differ from the counts");
  }

  std::vector<std::uint64_t> reduce(std::span<const std::uint64_t> keep, std::span<const std::uint64_t> singles) override {
    const CallDone done(device_);
    if (!counted_) throw std::logic_error("reduce: no count_buckets since the last reset or reduce");
    common::Stopwatch watch;
    counted_ = false;
    // Where each kept bucket's segment goes: its local count, as an exclusive prefix sum.
    std::vector<std::uint64_t> segments(keep.size() + 1, 0);
    for (std::size_t k = 0; k < keep.size(); ++k) segments[k + 1] = segments[k] + local_counts_[keep[k]];

    // The candidates with a slot, in their order (stable), with their slots; the counts say how
    // many there are, so the buffers are that long.
    std::uint64_t expected = segments.back();
    for (std::uint64_t b : singles) expected += local_counts_[b];
    std::uint64_t selected = 0;
    bool split = false;  // the selection holds KeySlot pairs still to split
    bool placed = false;  // the values are in their slots' segments already (place_values)
    Key* keys_by_slot = next_unsorted_.reserve(expected);
    std::uint32_t* slots = slot_values_.reserve(expected);
    const bool by_key = detail::make_slot_ranges(intervals_host_, keep, singles, slot_ranges_);
    if (band_counted_) {  // placed by the band table (count_by_bands)
      if (expected > 0) {
        std::vector<std::int32_t> slot_of_bucket(buckets_, -1);
        for (std::size_t k = 0; k < keep.size(); ++k) slot_of_bucket[keep[k]] = static_cast<std::int32_t>(k);
        for (std::size_t j = 0; j < singles.size(); ++j) slot_of_bucket[singles[j]] = static_cast<std::int32_t>(keep.size() + j);
        const std::int32_t* d_slots = slots_.upload(slot_of_bucket);
        const auto buckets = static_cast<std::uint32_t>(buckets_);
        if (band_wide_) place_values(BandSlotTables<T, true>{band_table_.get(), d_slots, buckets}, keep, singles, expected);
        else place_values(BandSlotTables<T, false>{band_table_.get(), d_slots, buckets}, keep, singles, expected);
      }
      selected = expected;
      placed = true;
    } else if (size_ > 0 && !(by_key && slot_ranges_.edges.empty())) {  // no ranges: no bucket of the slots has a key
      std::uint64_t* d_selected = selected_count_.reserve(1);
      const auto select_if = [&](auto in, auto* out, auto predicate) {
        run_cub([&](void* temp, std::size_t& bytes) {
          return cub::DeviceSelect::If(temp, bytes, in, out, d_selected, static_cast<std::int64_t>(size_), predicate);
        });
        selected = selected_count_.download(1)[0];
        if (selected > expected) throw std::logic_error("reduce: the selected candidates differ from the counts");
      };
      if (by_key) {  // the candidates whose keys lie in the slots' bucket ranges, then their slots
        const detail::IntervalLookup lookup = detail::make_interval_lookup(slot_ranges_.edges, kLookupBins, bins_host_);
        staging_.clear();
        const std::size_t at_edges = staging_.add(std::span<const std::uint64_t>(slot_ranges_.edges));
        const std::size_t at_slots = staging_.add(std::span<const std::int32_t>(slot_ranges_.slots));
        const std::size_t at_bins = staging_.add(std::span<const std::uint32_t>(bins_host_));
        const bool by_float = std::is_same_v<T, float> && !reduced_;
        std::size_t at_thresholds = 0, at_float_bins = 0, at_float_words = 0;
        detail::IntervalLookup float_lookup;
        // The placed reduce's one-read lookup (direct_answers: at most 65536 edges).
        const bool placeable = by_float && per_block_blocks_ != 0 && slot_ranges_.edges.size() <= 65536;
        if (by_float) {  // the edges as float thresholds, and their lookup
          thresholds_host_ = detail::float_thresholds(slot_ranges_.edges);
          first_keys_host_.assign(thresholds_host_.begin(), thresholds_host_.end());
          float_lookup = detail::make_interval_lookup(first_keys_host_, kLookupBins, float_bins_host_);
          at_thresholds = staging_.add(std::span<const std::uint32_t>(thresholds_host_));
          at_float_bins = staging_.add(std::span<const std::uint32_t>(float_bins_host_));
          if (placeable)
            at_float_words = staging_.add(std::span<const std::uint32_t>(
                detail::direct_answers(float_lookup, float_bins_host_, slot_ranges_.slots)));
        }
        std::byte* const tables = staging_.upload(slot_tables_);
        const SlotTables slot_tables{lookup, reinterpret_cast<const std::uint32_t*>(tables + at_bins),
                                     reinterpret_cast<const std::uint64_t*>(tables + at_edges),
                                     reinterpret_cast<const std::int32_t*>(tables + at_slots)};
        if (reduced_) {  // keys: selected in place of their keys_by_slot
          select_if(candidates_.get(), keys_by_slot, HasSlotByKey<Key>{slot_tables});
          if (selected > 0) key_slots_of<<<grid_for(selected), 256>>>(keys_by_slot, selected, slot_tables, keys_by_slot, slots);
        } else {
          T* chosen = chosen_values_.reserve(expected);
          if constexpr (std::is_same_v<T, float>) {
            const auto* float_bins = reinterpret_cast<const std::uint32_t*>(tables + at_float_bins);
            const auto* thresholds = reinterpret_cast<const std::uint32_t*>(tables + at_thresholds);
            const FloatSlotTables float_tables{float_lookup, reinterpret_cast<const std::uint32_t*>(tables + at_float_words),
                                               thresholds, slot_tables.slots};
            if (placeable &&
                sizeof(std::uint32_t) * (float_tables.table_words() + keep.size() + singles.size()) <= kMaxReduceStagedBytes) {
              place_values(float_tables, keep, singles, expected);
              selected = expected;
              placed = true;
            } else {
              select_if(values_, chosen, FloatHasSlot{float_lookup, float_bins, thresholds, slot_tables.slots});
            }
          } else {
            select_if(values_, chosen, HasSlotByKey<T>{slot_tables});
          }
          if (selected > 0 && !placed)
            key_slots_of<<<grid_for(selected), 256>>>(chosen, selected, slot_tables, keys_by_slot, slots);
        }
        CUDA_CHECK_LAUNCH();
      } else {  // overlapping intervals: each candidate's bucket, as counted
        if (assignment_.intervals == nullptr) throw std::logic_error("reduce: overlapping intervals after a float count");
        std::vector<std::int32_t> slot_of_bucket(buckets_, -1);
        for (std::size_t k = 0; k < keep.size(); ++k) slot_of_bucket[keep[k]] = static_cast<std::int32_t>(k);
        for (std::size_t j = 0; j < singles.size(); ++j) slot_of_bucket[singles[j]] = static_cast<std::int32_t>(keep.size() + j);
        const auto all = thrust::make_transform_iterator(
            thrust::counting_iterator<Index>(0), KeySlotOf<T>{SlotOfCandidate<T>{assignment_, slots_.upload(slot_of_bucket)}});
        KeySlot* chosen = chosen_.reserve(expected);
        run_cub([&](void* temp, std::size_t& bytes) {
          return cub::DeviceSelect::If(temp, bytes, all, chosen, d_selected, static_cast<std::int64_t>(size_), HasSlot{});
        });
        selected = selected_count_.download(1)[0];
        split = true;
      }
    }
    if (selected != expected) throw std::logic_error("reduce: the selected candidates differ from the counts");
    std::uint32_t* sorted_slots = sorted_slots_.reserve(selected);
    Key* next = next_.reserve(selected);
    if (selected > 0 && !placed) {
      if (split) {
        split_key_slots<<<grid_for(selected), 256>>>(chosen_.get(), selected, keys_by_slot, slots);
        CUDA_CHECK_LAUNCH();
      }
      // Group by slot, keeping each group's order: a stable radix sort on the slot's bits.
      const std::uint64_t slot_count = keep.size() + singles.size();
      const int bits = std::max(1, static_cast<int>(std::bit_width(slot_count - 1)));
      run_cub([&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, slots, sorted_slots, keys_by_slot, next,
                                               static_cast<std::int64_t>(selected), 0, bits);
      });
    }
    // After the kept segments: this rank's single candidates, one per single bucket at most.
    const std::uint64_t kept = segments.back();
    std::vector<std::uint64_t> found(singles.size(), 0);
    const std::vector<std::uint32_t> single_slots = sorted_slots_.download(selected - kept, kept);
    const std::vector<Key> single_keys = next_.download(selected - kept, kept);
    for (std::size_t j = 0; j < single_slots.size(); ++j) found[single_slots[j] - keep.size()] = single_keys[j];

    candidates_.swap(next_);
    segments_ = std::move(segments);
    reduced_ = true;
    size_ = kept;
    common::trace(placed ? "shard reduce (placed)" : "shard reduce", watch.lap(), static_cast<long long>(selected));
    return found;
  }

  std::vector<std::uint64_t> segment_key_ranges() const override {
    const CallDone done(device_);
    std::vector<std::uint64_t> ranges;
    if (segments_.size() < 2) return ranges;
    const std::size_t count = segments_.size() - 1;
    const std::uint64_t* offsets = segment_offsets_.upload(segments_);
    MinMax* out = range_.reserve(count);
    const auto in = thrust::make_transform_iterator(candidates_.get(), MinMaxOf{});
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(count), offsets, offsets + 1,
                                                MergeMinMax{}, kEmptyRange);
    });
    for (const MinMax& range : range_.download(count)) {
      ranges.push_back(range.min);
      ranges.push_back(~range.max);
    }
    return ranges;
  }

  std::vector<std::uint64_t> kept_candidates() const override {
    const CallDone done(device_);
    if (!reduced_) throw std::logic_error("kept_candidates: no reduce since the reset");
    return candidates_.download(size_);  // after a reduce, size_ is the kept segments' length
  }

  PivotSums pivot_sums(std::uint64_t lo, std::uint64_t hi, std::uint64_t pivot) const override {
    const CallDone done(device_);
    const auto in = thrust::make_transform_iterator(values_, PivotTerms{lo, hi, pivot});
    ExactPivotSums* out = pivot_sums_.reserve(1);
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(temp, bytes, in, out, static_cast<std::int64_t>(n_), AddPivotSums{},
                                       ExactPivotSums{0, 0, 0, 0, 0});
    });
    const ExactPivotSums s = pivot_sums_.download(1)[0];
    return {static_cast<double>(s.below), static_cast<double>(s.equal), static_cast<double>(s.above),
            -static_cast<double>(s.sum_below), static_cast<double>(s.sum_above)};
  }

  std::vector<std::uint64_t> keys_inside(std::uint64_t lo, std::uint64_t hi) const override {
    const CallDone done(device_);
    if (n_ == 0) return {};
    // Counted first, so the output buffer is the bracket's size, not n.
    std::uint64_t* d_count = selected_count_.reserve(1);
    const auto ones = thrust::make_transform_iterator(values_, InsideCount{lo, hi});
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceReduce::Sum(temp, bytes, ones, reinterpret_cast<unsigned long long*>(d_count),
                                    static_cast<std::int64_t>(n_));
    });
    const std::uint64_t count = selected_count_.download(1)[0];
    Key* out = inside_.reserve(count);
    const auto keys = thrust::make_transform_iterator(values_, ToKey{});
    run_cub([&](void* temp, std::size_t& bytes) {
      return cub::DeviceSelect::If(temp, bytes, keys, out, d_count, static_cast<std::int64_t>(n_), Inside{lo, hi});
    });
    return inside_.download(count);
  }

 private:
  KeySource<T> current() const { return reduced_ ? KeySource<T>{nullptr, candidates_.get()} : KeySource<T>{values_, nullptr}; }

  // A CUB call twice: the size of its temporary storage, then the work.
  template <class Call>
  void run_cub(Call&& call) const {
    std::size_t bytes = 0;
    CUDA_CHECK(call(nullptr, bytes));
    CUDA_CHECK(call(cub_temp_.reserve(bytes), bytes));
  }

  int device_ = 0;  // the device current when the shard was made: its calls run there
  std::uint64_t n_ = 0, size_ = 0;
  DeviceBuffer<T> all_;           // every value, when the shard holds its own copy
  const T* values_ = nullptr;     // every value: all_, or the caller's device memory
  MinMax all_range_ = kEmptyRange;
  bool reduced_ = false;
  DeviceBuffer<Key> candidates_;  // after a reduce: the kept keys, segment by segment
  std::vector<std::uint64_t> segments_;  // segment s is candidates_[segments_[s], segments_[s+1])
  // The assignment of the last count_buckets (recomputed by reduce rather than stored per value).
  bool counted_ = false;
  BucketOfCandidate<T> assignment_{};
  std::uint64_t buckets_ = 0;
  std::vector<std::uint64_t> local_counts_;
  DeviceBuffer<std::byte> tables_;  // the assignment's tables (intervals, estimates, bucket starts, lookup)
  DeviceBuffer<std::uint32_t> float_thresholds_;  // the float count's (float_thresholds_kernel)
  DeviceBuffer<std::uint16_t> float_bins_;
  DeviceBuffer<std::byte> slot_tables_;  // the reduce's (its slots' key ranges and their lookup)
  // The last count's band table (band_table.hpp) when it counted by bands (count_by_bands).
  bool band_counted_ = false, band_wide_ = false;  // band_wide_: its float entries need 64-bit keys
  std::vector<std::uint32_t> band_table_host_;  // the 64-bit table, then the floats' (kBandTableWords)
  DeviceBuffer<std::uint32_t> band_table_;
  std::uint64_t band_count_blocks_ = 1;
  Staging staging_;
  std::vector<KeyInterval> intervals_host_;
  detail::SlotRanges slot_ranges_;
  std::vector<detail::EstimatedInterval> estimated_host_;
  std::vector<std::uint64_t> starts_host_, bounds_host_;
  std::vector<std::uint32_t> bins_host_;
  std::vector<std::uint64_t> first_keys_host_;  // the float path's first keys in key order, then its widened thresholds
  std::vector<std::uint32_t> thresholds_host_, float_buckets_host_, float_bins_host_;
  // Scratch.
  DeviceBuffer<std::int32_t> slots_;
  DeviceBuffer<KeySlot> chosen_;
  DeviceBuffer<T> chosen_values_;
  DeviceBuffer<Key> next_unsorted_, next_;
  DeviceBuffer<std::uint32_t> slot_values_, sorted_slots_;
  // The last float count's per-block counts (blocks x buckets) and its grid (0: none).
  DeviceBuffer<std::uint32_t> per_block_, slot_buckets_;
  std::uint32_t per_block_blocks_ = 0;
  DeviceBuffer<std::uint64_t> block_starts_;
  DeviceBuffer<unsigned> mismatch_;
  DeviceBuffer<unsigned long long> counts_;
  int multiprocessors_ = 1;
  std::uint64_t count_blocks_ = 1;  // count_kernel's blocks that run at once
  std::uint64_t float_count_blocks_ = 1;  // the same for the float-domain count
  mutable DeviceBuffer<std::byte> cub_temp_;
  mutable DeviceBuffer<MinMax> range_;
  mutable DeviceBuffer<std::uint64_t> selected_count_, segment_offsets_;
  mutable DeviceBuffer<Index> sample_at_;
  mutable DeviceBuffer<Key> sample_keys_, inside_;
  mutable DeviceBuffer<ExactPivotSums> pivot_sums_;
};

}  // namespace

template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard(std::span<const T> values) {
  selection::require_no_nan(values);
  auto shard = std::make_unique<CudaLocalShard<T>>(values.size());
  if (!values.empty()) CUDA_CHECK(cudaMemcpy(shard->values(), values.data(), values.size_bytes(), cudaMemcpyHostToDevice));
  shard->compute_all_range();
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));  // its calls may come from other threads
  return shard;
}

namespace {

// The key range of `count` device values; throws std::invalid_argument at the first NaN, named
// as require_no_nan names it.
template <class T>
MinMax checked_range(const T* d_values, std::size_t count) {
  if (count == 0) return kEmptyRange;
  DeviceBuffer<NanAndRange> result;
  DeviceBuffer<std::byte> temp;
  const auto in = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0), NanAndRangeOf<T>{d_values, count});
  const NanAndRange none{count, kEmptyRange};
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, in, result.reserve(1), static_cast<std::int64_t>(count),
                                       MergeNanAndRange{}, none));
  CUDA_CHECK(cub::DeviceReduce::Reduce(temp.reserve(bytes), bytes, in, result.get(), static_cast<std::int64_t>(count),
                                       MergeNanAndRange{}, none));
  const NanAndRange scan = result.download(1)[0];
  if (scan.nan_at < count) throw std::invalid_argument("input holds NaN (at 0-based position " + std::to_string(scan.nan_at) + ")");
  return scan.range;
}

}  // namespace

template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_from_device(const T* d_values, std::size_t count) {
  const MinMax range = checked_range(d_values, count);
  auto shard = std::make_unique<CudaLocalShard<T>>(count);
  if (count > 0) CUDA_CHECK(cudaMemcpy(shard->values(), d_values, count * sizeof(T), cudaMemcpyDeviceToDevice));
  shard->set_all_range(range);
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));  // the copy; its calls may come from other threads
  return shard;
}

template <class T>
std::unique_ptr<LocalShard> make_cuda_local_shard_over_device(const T* d_values, std::size_t count) {
  auto shard = std::make_unique<CudaLocalShard<T>>(count, d_values);
  shard->set_all_range(checked_range(d_values, count));  // synchronised by its download
  return shard;
}

template std::unique_ptr<LocalShard> make_cuda_local_shard<float>(std::span<const float>);
template std::unique_ptr<LocalShard> make_cuda_local_shard<double>(std::span<const double>);
template std::unique_ptr<LocalShard> make_cuda_local_shard_from_device<float>(const float*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_from_device<double>(const double*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_over_device<float>(const float*, std::size_t);
template std::unique_ptr<LocalShard> make_cuda_local_shard_over_device<double>(const double*, std::size_t);

int bind_gpu_to_local_rank(Communicator& comm) {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm.handle(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &local);
  int local_rank = 0;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_free(&local);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // no device: leave no error behind for later checks
    return -1;
  }
  const int device = local_rank % devices;
  CUDA_CHECK(cudaSetDevice(device));
  return device;
}

int current_gpu() {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return device;
}

void use_gpu(int device) {
  if (device >= 0) CUDA_CHECK(cudaSetDevice(device));
}

}  // namespace robustfit::distributed
