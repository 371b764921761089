// Sampled multiselection (ours, beside bucketMultiSelect): many order statistics of one vector
// from one counting read and one compacting read of it. The band-table form
// (band_multi_select.cu) runs first unless SampledMultiParams::band_ranges is 0; it hands the
// call to the edges below where its sample shows ties or spans it cannot split.
//
//  1. A pseudo-random sample of the keys (key_traits.cuh; positions as Floyd–Rivest's) is
//     sorted with CUB.
//  2. One block takes E edges (4096, or 8192 for many ranks), the middles of E equal parts of
//     the sorted sample, merges equal ones and builds the lookup table: 2E + 1 buckets, open
//     ones of ~n/E values and one equality bucket per edge (sampled_multi_buckets.hpp).
//  3. Counting read: every value's bucket, counted in shared memory (one atomic per run of a
//     bucket in a thread's values), added to global counts; NaNs are counted on the way (no
//     extra read for the NaN policy).
//  4. One block: prefix sums of the counts give each rank its bucket. A rank in an equality
//     bucket is that bucket's edge: heavy ties end here. Open buckets holding a rank are
//     active; prefix sums of their counts place them in the candidate buffer.
//  5. Segmented finish (default): the candidate buffer was sized before the call from the
//     ranks and edges; each active bucket's segment starts at the prefix sum of the active
//     counts before it, and within it each block of the passes has its place: the counting
//     read also stored every block's counts, and one launch sums them down the active columns.
//  6. Compacting read: the keys of active buckets are written into their bucket's segment at
//     the block's place plus a shared-memory counter (no global atomics). A value whose slice
//     of the key line (8 per table range) holds no key of an active bucket (most of them, for a
//     few hundred ranks) is skipped without the binary search.
//  7. One launch, a block per rank not answered by an edge: radix select of the rank within its
//     segment by 11-bit digits of key - the bucket's lowest key (only the digits of the
//     bucket's key span), rescanning the segment, which sits in L2, once per digit. Long
//     segments have their first digit, the one every key of the segment counts for, counted
//     before by several blocks per rank.
//  8. One copy of the answers and the counts, the call's one host synchronisation. A NaN count
//     means NaN; more candidates than max_candidate_fraction of n (edges that could not split
//     the input): one sort of the whole input instead; more than the buffer held (the kernels
//     of 6 and 7 did nothing): a buffer of the right size and 6, 7 again. Exact either way.
// Sort finish (SampledMultiParams::segmented = false, the first version, kept to compare): the
// host reads the counts after step 4 (a second synchronisation), the compaction appends the
// values in any order, CUB sorts them (active buckets are disjoint key intervals, so rank k of
// bucket b sits at k - before[b] + active_before[b]) and one gather picks the answers.
// Per call (segmented): 1 host synchronisation, 3 copies, 7 kernels of its own (8 with the split
// first digit) and CUB's radix sort of the sample.
// Extra memory: the candidate buffer (1.5 n / edges keys per rank + 2^16, or the count when
// more), S sample keys twice, a plan of a few hundred KB, and with the split first digit 8 KB
// per rank and splitting block (101 ranks at 2^28 floats: 8 blocks each, 6.5 MB).
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms.cuh"
#include "batched_digit.cuh"
#include "multi_select_common.cuh"
#include "segment_select.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "dynamic_shared_memory.cuh"
#include "launch_shape.cuh"
#include "sampled_multi_buckets.hpp"
#include "sampled_multi_select.cuh"
#include "seed_common.cuh"
#include "warp_scan.cuh"
#include "sort_values.cuh"
#include "vector16.cuh"
#include "visit_vectors.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using sampled::EdgeTable;

constexpr int kMaxEdges = kSampledMultiMaxEdges;
constexpr int kMaxBuckets = 2 * kMaxEdges + 1;
constexpr int kMaxBins = kSampledMultiMaxTableBins;
constexpr int kPlanThreads = 1024;
constexpr int kPlanItems = kMaxEdges / kPlanThreads;
constexpr int kLocateItems = (kMaxBuckets + 1 + kPlanThreads - 1) / kPlanThreads;  // buckets + the end
using namespace multi;
constexpr int kPassThreads = 512;
__host__ __device__ constexpr int slice_words(int bins) { return (bins * sampled::kFineSlices + 31) / 32; }

template <class Key>
struct Plan {
  Key edges[kMaxEdges];
  unsigned ranges[kMaxBins];                         // the lookup table (sampled_multi_buckets.hpp)
  Key base;
  int shift, count, bins;
  int search_steps;                                  // binary-search steps for the most edges in one range
  unsigned long long cursor;                         // the compaction's write position (sort finish)
  unsigned long long capacity;                       // the candidate buffer's size, this call
  unsigned long long counts[kMaxBuckets];
  unsigned long long before[kMaxBuckets + 1];        // values in lower buckets
  unsigned long long active_before[kMaxBuckets + 1]; // values in lower active buckets
  unsigned char active[kMaxBuckets];
  unsigned slice_active[kMaxBins * sampled::kFineSlices / 32];  // the compaction's filter, a bit per slice
};

struct Status {
  unsigned long long nans, candidates;
};

// Step 1 in one block (SampledMultiParams::block_sample): draw 1024 * kItems keys at the same
// positions as draw_sample, sort them in shared memory (cub::BlockRadixSort) and store them
// sorted: one launch instead of draw_sample and CUB's device-wide sort (a handful of launches).
constexpr int kSampleThreads = 1024;
template <class T, int kItems>
using BlockSampleSort = cub::BlockRadixSort<typename KeyTraits<T>::Key, kSampleThreads, kItems>;

template <class T, int kItems>
__global__ __launch_bounds__(kSampleThreads) void sample_in_block(const T* __restrict__ x, std::size_t n,
                                                                 typename KeyTraits<T>::Key* __restrict__ sorted) {
  using Key = typename KeyTraits<T>::Key;
  extern __shared__ __align__(16) unsigned char shared[];
  auto& temp = *reinterpret_cast<typename BlockSampleSort<T, kItems>::TempStorage*>(shared);
  Key keys[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    keys[j] = KeyTraits<T>::to_key(x[seed::sample_index(std::uint64_t(threadIdx.x) * kItems + j + 1, n)]);
  BlockSampleSort<T, kItems>(temp).Sort(keys);  // blocked: thread t holds sample ranks t * kItems ...
#pragma unroll
  for (int j = 0; j < kItems; ++j) sorted[threadIdx.x * kItems + j] = keys[j];
}

// Step 2 (one block): distinct edges from the sorted sample, the lookup table, zeroed counters.
template <class Key>
__global__ __launch_bounds__(kPlanThreads) void plan_edges(const Key* __restrict__ sorted_sample, int sample_size,
                                                           int wanted_edges, int bins, Plan<Key>* plan,
                                                           Status* status) {
  using Scan = cub::BlockScan<int, kPlanThreads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ Key base;
  __shared__ int shift;
  __shared__ unsigned short first[kMaxBins + 1];  // table_entry(r): one search per range, not two
  int keep[kPlanItems], place[kPlanItems];
  Key candidate[kPlanItems];
#pragma unroll
  for (int u = 0; u < kPlanItems; ++u) {
    const int j = threadIdx.x * kPlanItems + u;
    keep[u] = 0;
    candidate[u] = 0;
    if (j < wanted_edges) {
      candidate[u] = sorted_sample[sampled::edge_sample_position(j, wanted_edges, sample_size)];
      keep[u] = j == 0 || candidate[u] != sorted_sample[sampled::edge_sample_position(j - 1, wanted_edges, sample_size)];
    }
  }
  int count = 0;
  Scan(temp).ExclusiveSum(keep, place, count);
#pragma unroll
  for (int u = 0; u < kPlanItems; ++u)
    if (keep[u]) plan->edges[place[u]] = candidate[u];
  __syncthreads();  // the edges are visible to the whole block
  if (threadIdx.x == 0) {
    base = plan->edges[0];
    shift = sampled::shift_for(base, plan->edges[count - 1], bins);
    plan->base = base;
    plan->shift = shift;
    plan->count = count;
    plan->bins = bins;
    plan->cursor = 0;
    status->nans = 0;
    status->candidates = 0;
  }
  __syncthreads();
  // first[r] = table_entry(r), the first edge whose range is >= r: edge j writes the ranges after
  // its predecessor's up to its own, the ranges after the last edge's get `count` (each entry
  // written once, no search).
  for (int j = threadIdx.x; j < count; j += blockDim.x) {
    const int own = sampled::range_of(plan->edges[j], base, shift, bins);
    const int previous = j == 0 ? -1 : sampled::range_of(plan->edges[j - 1], base, shift, bins);
    for (int r = previous + 1; r <= own; ++r) first[r] = static_cast<unsigned short>(j);
  }
  const int last = sampled::range_of(plan->edges[count - 1], base, shift, bins);
  for (int r = last + 1 + threadIdx.x; r <= bins; r += blockDim.x) first[r] = static_cast<unsigned short>(count);
  __syncthreads();
  __shared__ int most;
  if (threadIdx.x == 0) most = 0;
  __syncthreads();
  int mine = 0;
  for (int r = threadIdx.x; r < bins; r += blockDim.x) {
    plan->ranges[r] = sampled::pack_range(first[r], first[r + 1]);
    mine = max(mine, first[r + 1] - first[r]);
  }
  atomicMax(&most, mine);
  __syncthreads();
  if (threadIdx.x == 0) plan->search_steps = 32 - __clz(most);  // a search over c edges: bit_width(c) steps
  for (int b = threadIdx.x; b < 2 * count + 1; b += blockDim.x) plan->counts[b] = 0;
}

// The plan's edges and table in shared memory: `edges` has room for `max_edges` keys, `ranges`
// for plan->bins entries.
template <class Key>
__device__ EdgeTable<Key> load_table(const Plan<Key>* plan, Key* edges, unsigned* ranges) {
  const int count = plan->count, bins = plan->bins;
  for (int i = threadIdx.x; i < count; i += blockDim.x) edges[i] = plan->edges[i];
  for (int i = threadIdx.x; i < bins; i += blockDim.x) ranges[i] = plan->ranges[i];
  return {edges, ranges, plan->base, plan->shift, count, bins};
}

// Dynamic shared memory of the two passes: edges, 4 bytes per bucket (counters or flags), the
// table (4 bytes per range), one bit per slice (the compaction's filter: a byte per range).
template <class Key>
std::size_t pass_shared_bytes(int max_edges, int bins) {
  return sizeof(Key) * max_edges + sizeof(unsigned) * (2 * max_edges + 1) + sizeof(unsigned) * bins +
         sizeof(unsigned) * slice_words(bins);
}

template <class Key>
struct PassShared {
  Key* edges;
  unsigned* per_bucket;
  unsigned* ranges;
  unsigned* slices;
  __device__ PassShared(unsigned char* raw, int max_edges, int bins)
      : edges(reinterpret_cast<Key*>(raw)),
        per_bucket(reinterpret_cast<unsigned*>(edges + max_edges)),
        ranges(per_bucket + 2 * max_edges + 1),
        slices(ranges + bins) {}
};

// The compaction's filter in shared memory; whether key's slice may hold an active bucket's key.
template <class Key>
__device__ const unsigned* load_slices(const Plan<Key>* plan, unsigned* slices) {
  for (int w = threadIdx.x; w < slice_words(plan->bins); w += blockDim.x) slices[w] = plan->slice_active[w];
  return slices;
}
template <class Key>
__device__ __forceinline__ bool may_be_active(const unsigned* slices, Key key, const EdgeTable<Key>& table) {
  return sampled::slice_marked(reinterpret_cast<const unsigned char*>(slices),
                               sampled::slice_of(key, table.base, table.shift, table.bins));
}

// A thread's bucket counts in shared memory, one atomic per run of one bucket: ties ({1, 2} with
// 95 % ones, all equal) and sorted inputs would otherwise serialise on a few counters.
struct RunCounter {
  unsigned* counters;
  int bucket = 0;
  unsigned run = 0;
  __device__ void add(int b) {
    if (b != bucket) {
      if (run != 0) atomicAdd(&counters[bucket], run);
      bucket = b;
      run = 0;
    }
    ++run;
  }
  __device__ void flush() {
    if (run != 0) atomicAdd(&counters[bucket], run);
  }
};

// The end of both counting reads: the block's NaNs and counts added to the global ones, and the
// block's own counts stored where the segmented compaction wants them.
__device__ void finish_counting(unsigned nans, Status* status, const unsigned* counters, int buckets,
                                unsigned long long* global_counts, unsigned* block_counts) {
  add_warp_sum(nans, &status->nans);
  seed::flush_counts(counters, buckets, global_counts);
  if (block_counts)
    for (int b = threadIdx.x; b < buckets; b += blockDim.x) block_counts[std::size_t{blockIdx.x} * buckets + b] = counters[b];
}

// Step 3: the counting read.
// With `block_counts`, each block also stores its own counts (row blockIdx.x of a grid x buckets
// matrix): the segmented compaction, whose block j reads the same values as block j here, then
// knows where each of its keys goes without a global atomic.
template <class T>
__global__ __launch_bounds__(kPassThreads) void count_buckets(const T* __restrict__ x, std::size_t n, int max_edges,
                                                             Plan<typename KeyTraits<T>::Key>* plan, Status* status,
                                                             unsigned* __restrict__ block_counts) {
  using Key = typename KeyTraits<T>::Key;
  extern __shared__ __align__(16) unsigned char shared[];
  const PassShared<Key> memory(shared, max_edges, plan->bins);
  const EdgeTable<Key> edges = load_table(plan, memory.edges, memory.ranges);
  unsigned* counters = memory.per_bucket;
  const int buckets = edges.buckets();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) counters[b] = 0;
  __syncthreads();
  unsigned nans = 0;
  RunCounter count{counters};
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u)
      if (valid >> u & 1u) {
        nans += values[u] != values[u];
        count.add(edges.bucket_of(KeyTraits<T>::to_key(values[u])));
      }
  });
  count.flush();
  finish_counting(nans, status, counters, buckets, plan->counts, block_counts);
}

// Step 3, interleaved (SampledMultiParams::interleaved_count): the same counts, with the binary
// searches of a thread's values advanced together, a fixed number of steps (the plan's most
// edges in one range), so that their shared-memory loads are in flight at once instead of one
// dependent chain per value; the search remembers whether the last edge it passed equals the
// key, which saves the equality check's load.
template <class T>
__global__ __launch_bounds__(kPassThreads) void count_buckets_interleaved(const T* __restrict__ x, std::size_t n,
                                                                         int max_edges,
                                                                         Plan<typename KeyTraits<T>::Key>* plan,
                                                                         Status* status,
                                                                         unsigned* __restrict__ block_counts) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kItems = kVisitItems<T>;
  extern __shared__ __align__(16) unsigned char shared[];
  const PassShared<Key> memory(shared, max_edges, plan->bins);
  const EdgeTable<Key> table = load_table(plan, memory.edges, memory.ranges);
  const Key* edges = table.edges;
  const int steps = plan->search_steps;
  unsigned* counters = memory.per_bucket;
  const int buckets = table.buckets();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) counters[b] = 0;
  __syncthreads();
  unsigned nans = 0;
  RunCounter count{counters};
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    Key keys[kItems];
    unsigned window[kItems];  // the search's [lo, hi): lo | hi << 16, as the table packs a range
    unsigned equal = 0;       // bit u: the last edge the search passed for value u equals it
#pragma unroll
    for (int u = 0; u < kItems; ++u) {
      keys[u] = KeyTraits<T>::to_key(values[u]);
      if (valid >> u & 1u) nans += values[u] != values[u];
      window[u] = table.ranges[sampled::range_of(keys[u], table.base, table.shift, table.bins)];
    }
    for (int step = 0; step < steps; ++step) {
#pragma unroll
      for (int u = 0; u < kItems; ++u) {
        const unsigned lo = window[u] & 0xffffu, hi = window[u] >> 16;
        if (lo < hi) {
          const unsigned mid = (lo + hi) / 2;
          const Key edge = edges[mid];
          if (edge <= keys[u]) {
            window[u] = (mid + 1) | hi << 16;
            equal = (equal & ~(1u << u)) | unsigned(edge == keys[u]) << u;
          } else {
            window[u] = lo | mid << 16;
          }
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kItems; ++u)
      if (valid >> u & 1u) {
        const int lo = static_cast<int>(window[u] & 0xffffu);
        count.add((equal >> u & 1u) ? 2 * lo - 1 : 2 * lo);
      }
  });
  count.flush();
  finish_counting(nans, status, counters, buckets, plan->counts, block_counts);
}

// Step 4 (one block): each rank's bucket, the active buckets and each rank's place.
// With `segmented`, a rank's position is its bucket (the finish finds the rest in the plan);
// `capacity` is the candidate buffer's size.
template <class T>
__global__ __launch_bounds__(kPlanThreads) void locate_ranks(const std::size_t* __restrict__ ks, std::size_t count,
                                                            Plan<typename KeyTraits<T>::Key>* plan, Status* status,
                                                            unsigned long long* __restrict__ positions,
                                                            T* __restrict__ out, bool segmented,
                                                            unsigned long long capacity) {
  using Key = typename KeyTraits<T>::Key;
  const int buckets = 2 * plan->count + 1;
  block_prefix_sums<kPlanThreads, kLocateItems>(buckets, [plan](int b) { return plan->counts[b]; }, plan->before);
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) plan->active[b] = 0;
  for (int w = threadIdx.x; w < slice_words(plan->bins); w += blockDim.x) plan->slice_active[w] = 0;
  __syncthreads();
  for (std::size_t i = threadIdx.x; i < count; i += blockDim.x) {
    const int b = bucket_of_rank(plan->before, buckets, ks[i]);
    positions[i] = static_cast<unsigned long long>(b);        // the bucket, until its place is known
    if (!sampled::is_equality_bucket(b)) plan->active[b] = 1;  // racing writes of the same value
  }
  __syncthreads();
  const unsigned long long candidates = block_prefix_sums<kPlanThreads, kLocateItems>(
      buckets, [plan](int b) { return plan->active[b] ? plan->counts[b] : 0ull; }, plan->active_before);
  if (threadIdx.x == 0) {
    status->candidates = candidates;
    plan->capacity = capacity;
  }
  // The slices an active bucket's keys map to: slice_of is monotone, so those of its lowest and
  // highest key and every slice between (the bucket above the last edge reaches the last slice).
  const EdgeTable<Key> table{plan->edges, plan->ranges, plan->base, plan->shift, plan->count, plan->bins};
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) {
    if (!plan->active[b]) continue;
    const int first = sampled::slice_of(table.bucket_low(b), table.base, table.shift, table.bins);
    const int last = sampled::slice_of(table.bucket_high(b), table.base, table.shift, table.bins);
    sampled::mark_slices(first, last, [plan](int w, unsigned mask) { atomicOr(&plan->slice_active[w], mask); });
  }
  for (std::size_t i = threadIdx.x; i < count; i += blockDim.x) {
    const std::size_t k = ks[i];
    const int b = static_cast<int>(positions[i]);  // written by this thread above
    if (sampled::is_equality_bucket(b)) {
      out[i] = KeyTraits<T>::from_key(plan->edges[sampled::edge_of_equality_bucket(b)]);
      positions[i] = kEqualityAnswer;
    } else if (!segmented) {
      positions[i] = k - plan->before[b] + plan->active_before[b];
    }
  }
}

// Step 6: the compacting read: one atomic per warp and step reserves the step's candidates.
template <class T>
__global__ __launch_bounds__(kPassThreads) void compact_candidates(const T* __restrict__ x, std::size_t n, int max_edges,
                                                                  Plan<typename KeyTraits<T>::Key>* plan,
                                                                  T* __restrict__ candidates, std::size_t capacity) {
  using Key = typename KeyTraits<T>::Key;
  extern __shared__ __align__(16) unsigned char shared[];
  const PassShared<Key> memory(shared, max_edges, plan->bins);
  const EdgeTable<Key> edges = load_table(plan, memory.edges, memory.ranges);
  unsigned* active = memory.per_bucket;
  const unsigned* slices = load_slices(plan, memory.slices);
  for (int b = threadIdx.x; b < edges.buckets(); b += blockDim.x) active[b] = plan->active[b];
  __syncthreads();
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    unsigned keep = 0;
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u)
      if (valid >> u & 1u) {
        const Key key = KeyTraits<T>::to_key(values[u]);
        if (may_be_active(slices, key, edges) && active[edges.bucket_of(key)])
          keep |= 1u << u;
      }
    unsigned total = 0;
    const unsigned offset = warp_exclusive_sum(__popc(keep), total);
    if (total == 0) return;  // warp-uniform
    unsigned long long position = 0;
    if (threadIdx.x % 32 == 0) position = atomicAdd(&plan->cursor, static_cast<unsigned long long>(total));
    position = __shfl_sync(0xffffffffu, position, 0) + offset;
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u)
      if (keep >> u & 1u) {
        if (position < capacity) candidates[position] = values[u];
        ++position;
      }
  });
}

// Step 5, segmented (a block per rank not answered by an edge): where each block of the passes
// writes its keys of the rank's bucket: the segment's start plus the counts of the blocks
// before it (exclusive prefix sums down one column of the per-block counts). Ranks in one
// bucket write the same numbers; a rank repeating its predecessor's bucket skips.
constexpr int kPlaceThreads = 256;
template <class Key>
__global__ __launch_bounds__(kPlaceThreads) void place_blocks(const Plan<Key>* plan, const Status* status,
                                                             const unsigned long long* __restrict__ positions,
                                                             std::size_t count, const unsigned* __restrict__ block_counts,
                                                             int blocks, unsigned long long* __restrict__ block_offsets) {
  using Scan = cub::BlockScan<unsigned long long, kPlaceThreads>;
  __shared__ typename Scan::TempStorage temp;
  if (status->candidates > plan->capacity) return;
  const int buckets = 2 * plan->count + 1;
  for (std::size_t i = blockIdx.x; i < count; i += gridDim.x) {
    const unsigned long long position = positions[i];
    if (position == kEqualityAnswer || (i > 0 && positions[i - 1] == position)) continue;  // block-uniform
    const int b = static_cast<int>(position);
    unsigned long long carry = plan->active_before[b];
    for (int first = 0; first < blocks; first += kPlaceThreads) {
      const int j = first + threadIdx.x;
      const unsigned long long mine = j < blocks ? block_counts[std::size_t(j) * buckets + b] : 0ull;
      unsigned long long before = 0, total = 0;
      Scan(temp).ExclusiveSum(mine, before, total);
      if (j < blocks) block_offsets[std::size_t(j) * buckets + b] = carry + before;
      carry += total;
      __syncthreads();  // temp is reused
    }
  }
}

// Step 6, segmented: the compacting read writes each active bucket's keys into its own segment,
// at the block's offset (place_blocks) plus a shared-memory counter: no global atomics (one
// cursor for the whole buffer, or one per bucket, serialised the first versions on the L2).
// Skipped when the candidates do not fit this call's buffer: the host sees the count and
// retries or sorts.
template <class T>
__global__ __launch_bounds__(kPassThreads) void compact_segments(const T* __restrict__ x, std::size_t n, int max_edges,
                                                                const Plan<typename KeyTraits<T>::Key>* plan,
                                                                const Status* status,
                                                                const unsigned long long* __restrict__ block_offsets,
                                                                typename KeyTraits<T>::Key* __restrict__ candidates) {
  using Key = typename KeyTraits<T>::Key;
  constexpr unsigned kInactive = ~0u;
  const unsigned long long capacity = plan->capacity;
  // Every rank answered by an edge (ties: all equal, few distinct values): no second read.
  if (status->candidates == 0 || status->candidates > capacity) return;
  extern __shared__ __align__(16) unsigned char shared[];
  const PassShared<Key> memory(shared, max_edges, plan->bins);
  const EdgeTable<Key> edges = load_table(plan, memory.edges, memory.ranges);
  unsigned* written = memory.per_bucket;  // per active bucket: this block's keys so far
  const unsigned* slices = load_slices(plan, memory.slices);
  const int buckets = edges.buckets();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) written[b] = plan->active[b] ? 0u : kInactive;
  __syncthreads();
  const unsigned long long* offsets = block_offsets + std::size_t{blockIdx.x} * buckets;
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    unsigned maybe = 0;  // bit u: values[u] lies in a slice that may hold an active bucket's key
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u)
      if ((valid >> u & 1u) && may_be_active(slices, KeyTraits<T>::to_key(values[u]), edges)) maybe |= 1u << u;
    if (!__any_sync(0xffffffffu, maybe)) return;  // most steps, for a few ranks
    auto place = [&](T value) {
      const Key key = KeyTraits<T>::to_key(value);
      const int b = edges.bucket_of(key);
      if (written[b] != kInactive) {
        const unsigned long long position = offsets[b] + atomicAdd(&written[b], 1u);
        if (position < capacity) candidates[position] = key;
      }
    };
    // Two ways to search, by what each costs the warp this step. A search per u, entered by the
    // warp when a lane needs it: as many searches as u with a lane in them (`searches`); sparse
    // keys (uniform data, a few hundred ranks) left ~10 of 32 lanes active in them (ncu, H200,
    // 2^28 floats, 101 ranks: the pass was issue-bound at 3.7x a read). Or each lane its own keys
    // one after another: as many searches as the busiest lane has keys (`rounds`), each with a
    // register pick; dense keys (crowded slices: normal doubles) made that slower.
    const unsigned searches = __popc(__reduce_or_sync(0xffffffffu, maybe));
    const unsigned rounds = __reduce_max_sync(0xffffffffu, static_cast<unsigned>(__popc(maybe)));
    if (3 * rounds <= 2 * searches) {  // warp-uniform
      while (maybe != 0) {
        const int u = __ffs(maybe) - 1;
        maybe &= maybe - 1;
        place(item<kVisitItems<T>>(values, u));
      }
    } else {
#pragma unroll
      for (int u = 0; u < kVisitItems<T>; ++u)
        if (maybe >> u & 1u) place(values[u]);
    }
  });
}

using segments::kDigitBins;
using segments::kDigitBits;
using segments::kSelectThreads;
using segments::Segment;
using segments::bit_width;

// Step 7, segmented (one launch): a block per rank not answered by an edge selects its rank
// within its bucket's segment by 11-bit MSD digits of key - the bucket's lowest key, rescanning
// the segment (which the compaction just wrote: it sits in L2) once per digit; only digits
// within the bucket's key span are looked at (a bucket of ~n/4096 uniform floats spans about
// 2^11-2^20 keys: 1 or 2 digits; doubles 3-4 of 6).
// Where rank i's segment starts and what its keys span: its bucket's first candidate, count and
// lowest key, and the bit width of key - lowest key over the bucket (0: one key, no digit).
template <class Key>
__device__ Segment<Key> segment_of(const Key* candidates, const Plan<Key>* plan, int bucket) {
  const EdgeTable<Key> table{plan->edges, plan->ranges, plan->base, plan->shift, plan->count, plan->bins};
  const Key low = table.bucket_low(bucket);
  return {candidates + plan->active_before[bucket], plan->counts[bucket], low,
          bit_width<Key>(table.bucket_high(bucket) - low)};
}

// The first rank of the run of ranks ending at i that share i's bucket: they share its digit counts.
__device__ std::size_t first_of_run(const unsigned long long* positions, std::size_t i) {
  while (i > 0 && positions[i - 1] == positions[i]) --i;
  return i;
}

// Step 7a, for long segments (SampledMultiParams::split_first_digit): the first digit's counts
// of each rank's segment, made by `split` blocks per rank (grid: split x ranks), block p's into
// row p of the rank's `split` rows of kDigitBins in digit_counts. One block per rank made the
// first digit, the one that reads the whole segment, alone: 0.17 ms of a 2.0 ms call (H200,
// 2^28 floats, 101 ranks: 131K keys per segment, 101 blocks busy).
constexpr int kSplitThreads = 256;
constexpr double kSplitKeys = 16384;
constexpr std::size_t kSplitMaxRanks = 1024;  // digit counts: split x 8 KB per rank
template <class T>
__global__ __launch_bounds__(kSplitThreads) void count_first_digits(
    const typename KeyTraits<T>::Key* __restrict__ candidates, const Plan<typename KeyTraits<T>::Key>* plan,
    const Status* status, const unsigned long long* __restrict__ positions, unsigned* __restrict__ digit_counts) {
  using Key = typename KeyTraits<T>::Key;
  __shared__ unsigned hist[kDigitBins];
  if (status->candidates == 0 || status->candidates > plan->capacity) return;  // no compaction ran
  const std::size_t i = blockIdx.y;
  const unsigned long long position = positions[i];
  if (position == kEqualityAnswer || (i > 0 && positions[i - 1] == position)) return;  // block-uniform
  const Segment<Key> segment = segment_of(candidates, plan, static_cast<int>(position));
  if (segment.top == 0) return;
  const int width = min(kDigitBits, segment.top), shift = segment.top - width;
  for (int j = threadIdx.x; j < kDigitBins; j += blockDim.x) hist[j] = 0;
  __syncthreads();
  segments::for_each_key<8>(segment.keys, segment.length, blockIdx.x * std::size_t{kSplitThreads} + threadIdx.x,
                  std::size_t{gridDim.x} * kSplitThreads, [&](Key key) {
                    atomicAdd(&hist[static_cast<unsigned>((key - segment.low) >> shift)], 1u);
                  });
  __syncthreads();
  unsigned* mine = digit_counts + (i * gridDim.x + blockIdx.x) * kDigitBins;
  for (int j = threadIdx.x; j < kDigitBins; j += blockDim.x) mine[j] = hist[j];
}

template <class T>
__global__ __launch_bounds__(kSelectThreads) void select_in_segments(
    const typename KeyTraits<T>::Key* __restrict__ candidates, const std::size_t* __restrict__ ks, std::size_t count,
    const Plan<typename KeyTraits<T>::Key>* plan, const Status* status,
    const unsigned long long* __restrict__ positions, const unsigned* __restrict__ first_digit_counts, int split,
    T* __restrict__ out) {
  using Key = typename KeyTraits<T>::Key;
  __shared__ segments::SelectShared shared;
  if (status->candidates > plan->capacity) return;
  for (std::size_t i = blockIdx.x; i < count; i += gridDim.x) {
    const unsigned long long position = positions[i];
    if (position == kEqualityAnswer) continue;  // block-uniform
    const int b = static_cast<int>(position);
    const Segment<Key> segment = segment_of(candidates, plan, b);
    // With first_digit_counts, count_first_digits made the first digit's counts (split rows).
    const unsigned* given =
        first_digit_counts ? first_digit_counts + first_of_run(positions, i) * split * kDigitBins : nullptr;
    const Key known = segments::select_in_segment(segment, ks[i] - plan->before[b], given, split, shared);
    if (threadIdx.x == 0) out[i] = KeyTraits<T>::from_key(segment.low + known);
  }
}

// The retry after a too small candidate buffer: its new size.
template <class Key>
__global__ void set_capacity(Plan<Key>* plan, unsigned long long capacity) {
  plan->capacity = capacity;
}

// Step 8: the ranks not answered by an edge, from the sorted candidates.
template <class T>
__global__ void gather_answers(const T* __restrict__ sorted, const unsigned long long* __restrict__ positions,
                               std::size_t count, T* __restrict__ out) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < count && positions[i] != kEqualityAnswer) out[i] = sorted[positions[i]];
}

template <class T, int kItems>
void launch_sample_in_block(const T* d_values, std::size_t n, typename KeyTraits<T>::Key* sorted, cudaStream_t stream) {
  const std::size_t bytes = sizeof(typename BlockSampleSort<T, kItems>::TempStorage);
  detail::allow_dynamic_shared_memory(sample_in_block<T, kItems>, bytes);
  sample_in_block<T, kItems><<<1, kSampleThreads, bytes, stream>>>(d_values, n, sorted);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
bool sampled_multi_select_checked(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count,
                                  T* out, const SampledMultiParams& params, Workspace& workspace,
                                  cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  if (count == 0) return false;
  // The band table first; the edges where it declines, with the keys it drew where they are all
  // the edges need (the same positions, in the same workspace slot). H200, 101 ranks of 2^28
  // bucket-killer floats: the edges sorted the band's 16384 keys and 16384 left over from an
  // earlier call (or never written: the slot grew), 6.6 ms against 1.4 with a sample drawn whole.
  int drawn = 0;
  if (params.band_ranges > 0 && params.segmented) {
    const BandOutcome band = band_multi_select(d_values, n, ks, count, out, params, workspace, stream);
    if (band != BandOutcome::use_edges) return band == BandOutcome::nan;
    drawn = std::max(1, params.band_sample_size);
  }
  PhaseTimer timer(params.phases, stream);
  const int sample_size = std::max(1, params.sample_size);
  const int edges = std::clamp(params.edges == 0 ? default_edges(count) : params.edges, 1, std::min(kMaxEdges, sample_size));
  const int bins = std::clamp(params.table_bins, 1, kMaxBins);

  CallBuffers<T> call(workspace, sample_size, ks, count, stream);
  Key* sample = call.sample;
  Key* sorted_sample = call.sorted_sample;
  const std::size_t* d_ranks = call.d_ranks;
  unsigned long long* positions = call.positions;
  T* d_out = call.d_out;
  T* h_out = call.h_out;
  auto* plan = workspace.device_as<Plan<Key>>(kSampledMultiPlan, 1);
  auto* d_status = workspace.device_as<Status>(kSampledMultiStatus, 1);
  auto* h_status = workspace.host_as<Status>(kSampledMultiStatus, 1);
  const double max_candidates = params.max_candidate_fraction * static_cast<double>(n);
  // The segmented finish's buffer (8 sample keys per bucket: n / edges values each).
  unsigned long long capacity = 0;
  Key* candidate_keys = nullptr;
  if (params.segmented) {
    capacity = initial_capacity(params.initial_capacity, count, n, edges, max_candidates);
    candidate_keys = workspace.device_as<Key>(kSampledMultiCandidates, std::max<unsigned long long>(capacity, 1));
  }
  timer.mark("ranks in");

  if (drawn >= sample_size) {
    sort_keys(sample, sorted_sample, sample_size, workspace, stream);
  } else if (params.block_sample && sample_size == kSampleThreads * 16) {
    launch_sample_in_block<T, 16>(d_values, n, sorted_sample, stream);
  } else if (params.block_sample && sample_size == kSampleThreads * 8) {
    launch_sample_in_block<T, 8>(d_values, n, sorted_sample, stream);
  } else {
    draw_sample<T><<<(sample_size + 255) / 256, 256, 0, stream>>>(d_values, n, sample_size, sample);
    CUDA_CHECK_LAUNCH();
    sort_keys(sample, sorted_sample, sample_size, workspace, stream);
  }
  timer.mark("sample");
  plan_edges<Key><<<1, kPlanThreads, 0, stream>>>(sorted_sample, sample_size, edges, bins, plan, d_status);
  CUDA_CHECK_LAUNCH();
  timer.mark("plan");

  const std::size_t shared_bytes = pass_shared_bytes<Key>(edges, bins);
  const int blocks_per_sm = params.pass_blocks_per_sm > 0 ? std::min(params.pass_blocks_per_sm, 8)
                            : edges <= 2048 && bins <= 8192 ? 3 : 2;
  const unsigned grid = streaming_grid(n, kPassThreads, kVisitItems<T>, blocks_per_sm);
  const auto count_kernel = params.interleaved_count ? count_buckets_interleaved<T> : count_buckets<T>;
  detail::allow_dynamic_shared_memory(count_kernel, shared_bytes);
  unsigned* block_counts = nullptr;
  unsigned long long* block_offsets = nullptr;
  if (params.segmented) {
    block_counts = workspace.device_as<unsigned>(kSampledMultiBlockCounts, std::size_t{grid} * (2 * edges + 1));
    block_offsets = workspace.device_as<unsigned long long>(kSampledMultiBlockOffsets, std::size_t{grid} * (2 * edges + 1));
  }
  count_kernel<<<grid, kPassThreads, shared_bytes, stream>>>(d_values, n, edges, plan, d_status, block_counts);
  CUDA_CHECK_LAUNCH();
  timer.mark("count");
  locate_ranks<T><<<1, kPlanThreads, 0, stream>>>(d_ranks, count, plan, d_status, positions, d_out, params.segmented,
                                                  capacity);
  CUDA_CHECK_LAUNCH();
  timer.mark("locate");

  if (params.segmented) {
    const unsigned select_grid = static_cast<unsigned>(std::min<std::size_t>(count, 65535));
    // Blocks per rank for the first digit: one per kSplitKeys expected keys of a segment.
    const unsigned split =
        params.split_first_digit && count <= kSplitMaxRanks
            ? static_cast<unsigned>(std::clamp<double>(static_cast<double>(n) / edges / kSplitKeys, 1.0, 16.0))
            : 1u;
    auto finish = [&] {
      place_blocks<Key><<<select_grid, kPlaceThreads, 0, stream>>>(plan, d_status, positions, count, block_counts,
                                                                   static_cast<int>(grid), block_offsets);
      CUDA_CHECK_LAUNCH();
      timer.mark("place");
      detail::allow_dynamic_shared_memory(compact_segments<T>, shared_bytes);
      compact_segments<T><<<grid, kPassThreads, shared_bytes, stream>>>(d_values, n, edges, plan, d_status,
                                                                         block_offsets, candidate_keys);
      CUDA_CHECK_LAUNCH();
      timer.mark("compact");
      unsigned* digit_counts = nullptr;
      if (split > 1) {
        digit_counts = workspace.device_as<unsigned>(kSampledMultiDigitCounts, count * split * kDigitBins);
        count_first_digits<T><<<dim3(split, static_cast<unsigned>(count)), kSplitThreads, 0, stream>>>(
            candidate_keys, plan, d_status, positions, digit_counts);
        CUDA_CHECK_LAUNCH();
      }
      select_in_segments<T><<<select_grid, kSelectThreads, 0, stream>>>(
          candidate_keys, d_ranks, count, plan, d_status, positions, digit_counts, static_cast<int>(split), d_out);
      CUDA_CHECK_LAUNCH();
      timer.mark("select");
      CUDA_CHECK(cudaMemcpyAsync(h_status, d_status, sizeof *h_status, cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      timer.mark("answers out");
    };
    finish();
    const Status status = *h_status;
    if (status.nans != 0) return true;
    if (static_cast<double>(status.candidates) > max_candidates) {
      timer.report();
      return sort_select_many_checked(d_values, n, ks, count, out, workspace, stream);
    }
    if (status.candidates > capacity) {  // a second compaction into a buffer of the right size
      capacity = status.candidates;
      candidate_keys = workspace.device_as<Key>(kSampledMultiCandidates, capacity);
      set_capacity<Key><<<1, 1, 0, stream>>>(plan, capacity);
      CUDA_CHECK_LAUNCH();
      timer.mark("retry");
      finish();
    }
    timer.report();
    std::copy(h_out, h_out + count, out);
    return false;
  }

  CUDA_CHECK(cudaMemcpyAsync(h_status, d_status, sizeof *h_status, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  timer.mark("status out");
  const Status status = *h_status;
  if (status.nans != 0) return true;
  if (static_cast<double>(status.candidates) > max_candidates) {
    timer.report();
    return sort_select_many_checked(d_values, n, ks, count, out, workspace, stream);
  }

  const std::size_t candidates = status.candidates;
  T* sorted = nullptr;
  if (candidates != 0) {
    T* buffer = workspace.device_as<T>(kSampledMultiCandidates, candidates);
    sorted = workspace.device_as<T>(kSampledMultiCandidatesSorted, candidates);
    detail::allow_dynamic_shared_memory(compact_candidates<T>, shared_bytes);
    compact_candidates<T><<<grid, kPassThreads, shared_bytes, stream>>>(d_values, n, edges, plan, buffer, candidates);
    CUDA_CHECK_LAUNCH();
    timer.mark("compact");
    sort_values(buffer, sorted, candidates, workspace, kSampledMultiSortTemp, stream);
    timer.mark("sort");
    gather_answers<T><<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(sorted, positions, count, d_out);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  timer.mark("answers out");
  timer.report();
  std::copy(h_out, h_out + count, out);
  return false;
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                                 \
  template bool sampled_multi_select_checked<T>(const T*, std::size_t, const std::size_t*, std::size_t, T*,     \
                                                const SampledMultiParams&, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
