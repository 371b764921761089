// Sampled multiselection's band-table form (ours, issue 11): many order statistics of one vector
// from one counting read and one compacting read, each finding a value's range by a table load, a
// shift and an add (band_ranges.hpp), where the edges' form (sampled_multi_select.cu) searches
// among sample edges, ~74 instructions a value. H200, 101 percentiles of 2^28 floats: 0.79 ms
// (the edges' 1.66), the counting read 0.27 ms (1.1 x the one-pass floor), the compacting read
// 0.39 (bench/results/selection_sample_draw_h200_2026-12-02, call e).
//  1. The sample (16384 keys by default: band_sample_size), drawn as the edges' form draws it
//     (not sorted).
//  2. One block: the sample's keys per band, 2^bits ranges per band in proportion (band_bits),
//     each band's first range by a scan; the sample's keys per range. The sample decides: where
//     the ranges of the wanted ranks are expected to hold more values than the edges' buckets
//     (ties: all equal, {1, 2}, ten percent tens; narrow spans: subnormals, a narrow normal),
//     where one range holds more than 1/64 of the sample, or beyond kBandMaxRanges ranges, the
//     edges answer (their equality buckets need no copying).
//  3. Counting read: every value's range counted in shared memory (a block's counters: 4 bytes a
//     range), added to global counts and stored per block; NaNs counted on the way.
//  4. One block: prefix sums of the counts give each rank its range; those ranges are active,
//     placed by prefix sums of their counts. Then a thread per active range: each block's place
//     in the range's segment, from the per-block counts.
//  5. Compacting read: the keys of active ranges (about 1 % of n) staged per warp in shared
//     memory, then written into their range's segment at the block's cursor in shared memory
//     (an atomic per range present in 32 staged keys).
//  6. A block per rank: radix digits of key - the range's lowest key within its segment
//     (segment_select.cuh, as the edges' form).
//  7. One copy of the status and the answers, the call's one host synchronisation. The sample's
//     verdict, more candidates than max_candidate_fraction of n: the edges answer instead; more
//     than the buffer held: a second compaction into a buffer of the right size.
// Per call: 1 host synchronisation, 2 copies (ranks in; answers and status out), 7 kernels (draw,
// plan, count, locate, place, compact, select).
// Extra memory: the plan (~0.7 MB), the per-block counts (80 KB a block of the reads: 10.8 MB at
// one block an SM on the H200), the candidate buffer (1.5 n / ranges keys per rank + 2^16).
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstddef>

#include "band_ranges.hpp"
#include "cuda_check.cuh"
#include "dynamic_shared_memory.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "multi_select_common.cuh"
#include "sampled_multi_select.cuh"
#include "seed_common.cuh"
#include "segment_select.cuh"
#include "visit_vectors.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using segments::Segment;

constexpr int kPlanThreads = 1024;
constexpr int kPassThreads = 1024;
constexpr int kRangeItems = (kBandMaxRanges + 1 + kPlanThreads - 1) / kPlanThreads;  // a thread's ranges (+ the end)
constexpr int kActiveWords = kBandMaxRanges / 32;
static_assert(kBandMaxRanges % 32 == 0 && kBandMaxRanges < static_cast<int>(bands::kMaxRanges));

template <class Key>
struct BandPlan {
  unsigned entries[bands::band_count<Key>()];  // the table: first range and shift per band
  unsigned total;                              // ranges
  int use_edges;                               // the sample's verdict (step 2)
  unsigned long long capacity;                 // the candidate buffer's size, this call
  unsigned long long counts[kBandMaxRanges];
  unsigned long long before[kBandMaxRanges + 1];         // values in lower ranges
  unsigned long long active_before[kBandMaxRanges + 1];  // values in lower active ranges
  unsigned active[kActiveWords];                          // a bit per range holding a wanted rank
};

struct BandStatus {
  unsigned long long nans, candidates;
  int use_edges;
};

__device__ __forceinline__ bool is_active(const unsigned* active, unsigned r) { return active[r >> 5] >> (r & 31) & 1u; }

// Step 2 (one block): the table, the sample's verdict (bands::edges_answer_instead), zeroed
// counts. The verdict needs the sample's keys per band and per range and the range of sample
// rank k S / n: histograms and a prefix sum in shared memory, no sort (a device-wide sort of the
// sample and searches of it in global memory took ~200 us of 2^24 floats' 330). Dynamic shared
// memory: kBandMaxRanges + 1 counters (the keys per band first, then per range).
constexpr std::size_t kPlanSharedBytes = sizeof(unsigned) * (kBandMaxRanges + 1);

// Calls visit(key) for each of the sample's keys, a thread's keys loaded 8 at a time (in flight
// together, not one load's latency after another's).
template <class Key, class Visit>
__device__ void for_each_sample_key(const Key* __restrict__ sample, int size, Visit visit) {
  constexpr int kBatch = 8;
  for (int first = threadIdx.x; first < size; first += kBatch * blockDim.x) {
    Key keys[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) keys[j] = first + j * blockDim.x < size ? sample[first + j * blockDim.x] : Key{};
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (first + j * blockDim.x < size) visit(keys[j]);
  }
}

template <class Key>
__global__ __launch_bounds__(kPlanThreads) void plan_bands(const Key* __restrict__ sample, int sample_size,
                                                           int wanted, const std::size_t* __restrict__ ks,
                                                           std::size_t count, std::size_t n,
                                                           unsigned long long capacity, BandPlan<Key>* plan,
                                                           BandStatus* status) {
  constexpr int kBands = bands::band_count<Key>();
  constexpr int kPerThread = (kBands + kPlanThreads - 1) / kPlanThreads;
  using Scan = cub::BlockScan<unsigned, kPlanThreads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ unsigned entries[kBands];
  __shared__ unsigned longest;
  __shared__ unsigned long long wanted_runs;  // sample keys in the ranges of the wanted ranks
  extern __shared__ unsigned tally[];         // keys per band, then per range, then before each range
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) tally[b] = 0;
  if (threadIdx.x == 0) longest = 0, wanted_runs = 0;
  __syncthreads();
  // A warp's keys mostly share a band or two (uniform [0, 1): half in the top band): one atomic
  // per band present, not per key, or same-address atomics serialise the histogram.
  for_each_sample_key(sample, sample_size, [&](Key key) {
    const int band = bands::band_of(key);
    const unsigned peers = __match_any_sync(__activemask(), band);
    if (threadIdx.x % 32 == static_cast<unsigned>(__ffs(peers) - 1)) atomicAdd(&tally[band], __popc(peers));
  });
  __syncthreads();
  int bits[kPerThread];
  unsigned mine = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int b = threadIdx.x * kPerThread + j;
    bits[j] = b < kBands ? bands::band_bits<Key>(tally[b], static_cast<std::uint64_t>(sample_size),
                                                 static_cast<std::uint64_t>(wanted))
                         : 0;
    if (b < kBands) mine += 1u << bits[j];
  }
  unsigned first = 0, total = 0;
  Scan(temp).ExclusiveSum(mine, first, total);
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int b = threadIdx.x * kPerThread + j;
    if (b < kBands) {
      entries[b] = bands::pack_band(first, bands::mantissa_bits<Key>() - bits[j]);
      first += 1u << bits[j];
    }
  }
  __syncthreads();  // entries written, tally and temp free
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) plan->entries[b] = entries[b];
  const bool fits = total <= static_cast<unsigned>(kBandMaxRanges);
  if (fits) {
    // The sample's keys per range; the longest run of one range.
    for (unsigned r = threadIdx.x; r < total; r += blockDim.x) tally[r] = 0;
    __syncthreads();
    for_each_sample_key(sample, sample_size, [&](Key key) { atomicAdd(&tally[bands::range_of(key, entries)], 1u); });
    __syncthreads();
    unsigned items[kRangeItems], most = 0;
#pragma unroll
    for (int j = 0; j < kRangeItems; ++j) {
      const unsigned r = threadIdx.x * kRangeItems + j;
      items[j] = r < total ? tally[r] : 0u;
      most = max(most, items[j]);
    }
    if (most != 0) atomicMax(&longest, most);
    __syncthreads();  // every count read
    Scan(temp).ExclusiveSum(items, items);
#pragma unroll
    for (int j = 0; j < kRangeItems; ++j) {
      const unsigned r = threadIdx.x * kRangeItems + j;
      if (r <= total) tally[r] = items[j];  // tally[total] = sample_size
    }
    __syncthreads();
    // The ranges where the wanted ranks fall (a rank at sample position k S / n; repeats counted
    // again: an upper bound), as the sample's keys in them.
    unsigned long long mine_runs = 0;
    for (std::size_t i = threadIdx.x; i < count; i += blockDim.x) {
      const auto p = static_cast<unsigned>(min(static_cast<double>(sample_size - 1),
                                               static_cast<double>(ks[i]) * sample_size / static_cast<double>(n)));
      const int r = multi::bucket_of_rank(tally, static_cast<int>(total), p);
      mine_runs += tally[r + 1] - tally[r];
    }
    if (mine_runs != 0) atomicAdd(&wanted_runs, mine_runs);
  }
  __syncthreads();
  const bool use_edges =
      bands::edges_answer_instead(total, kBandMaxRanges, static_cast<int>(longest), sample_size,
                                  static_cast<double>(wanted_runs), static_cast<double>(count), static_cast<double>(n));
  if (threadIdx.x == 0) {
    plan->total = total;
    plan->use_edges = use_edges;
    plan->capacity = capacity;
    status->nans = 0;
    status->candidates = 0;
    status->use_edges = use_edges;
  }
  if (use_edges) return;
  for (unsigned r = threadIdx.x; r < total; r += blockDim.x) plan->counts[r] = 0;
}

// Step 3: the counting read. Dynamic shared memory: the table, then a counter per range.
template <class T>
__global__ __launch_bounds__(kPassThreads) void count_bands(const T* __restrict__ x, std::size_t n,
                                                           BandPlan<typename KeyTraits<T>::Key>* plan, BandStatus* status,
                                                           unsigned* __restrict__ block_counts) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kBands = bands::band_count<Key>();
  if (plan->use_edges) return;
  extern __shared__ unsigned shared[];
  unsigned* entries = shared;
  unsigned* counters = shared + kBands;
  const int total = static_cast<int>(plan->total);
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) entries[b] = plan->entries[b];
  for (int r = threadIdx.x; r < total; r += blockDim.x) counters[r] = 0;
  __syncthreads();
  unsigned nans = 0;
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    for_each_valid<kVisitItems<T>>(valid, [&](int u) {
      nans += values[u] != values[u];
      atomicAdd(&counters[bands::range_of(KeyTraits<T>::to_key(values[u]), entries)], 1u);
    });
  });
  __syncthreads();
  seed::flush_counts(counters, total, plan->counts);
  unsigned* mine = block_counts + std::size_t(blockIdx.x) * kBandMaxRanges;
  for (int r = threadIdx.x; r < total; r += blockDim.x) mine[r] = counters[r];
  for (int offset = 16; offset > 0; offset /= 2) nans += __shfl_down_sync(0xffffffffu, nans, offset);
  if (threadIdx.x % 32 == 0 && nans != 0) atomicAdd(&status->nans, static_cast<unsigned long long>(nans));
}

// Exclusive prefix sums of values(r), r < total, into out[0..total] (one block of kPlanThreads),
// warp-striped: with `rounds` = (total + 1) / kPlanThreads rounded up, warp w takes ranges
// [w * 32 * rounds, (w + 1) * 32 * rounds), lane l those at 32 j + l, so that each load and
// store of a warp is one coalesced access; a warp scan per round, then the warps' totals. Sum:
// unsigned where every sum fits 32 bits (n < 2^32: half the shuffles of 64 bits), else 64-bit.
// multi::block_prefix_sums gives a thread 21 consecutive sums, so each of its warp accesses
// touched 32 sectors (ncu: 69 % excess sectors, the locate latency-bound at 28K instructions in
// 52 us): H200, the locate 34.5 -> 27.2 us (2^24 floats, 101 ranks) striped over all
// kBandMaxRanges (bench/results/dibms_bands_h200_2026-12-02/call_h); then ~2,900 straight-line
// instructions a warp, 21 rounds of 64-bit shuffles whatever the ranges in use (call c of
// selection_small_n_h200_2026-12-02), hence the rounds from `total` and the 32-bit sums.
template <class Sum, class Values>
__device__ unsigned long long striped_prefix_sums(int total, Values values, unsigned long long* out) {
  __shared__ unsigned long long warp_sums[kPlanThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int rounds = (total + kPlanThreads) / kPlanThreads;  // covers total + 1 places
  const int base = warp * 32 * rounds;
  Sum items[kRangeItems];
#pragma unroll
  for (int j = 0; j < kRangeItems; ++j) {
    const int r = base + 32 * j + lane;
    items[j] = j < rounds && r < total ? static_cast<Sum>(values(r)) : Sum{0};
  }
  Sum carry = 0;  // the warp's sum of earlier rounds
#pragma unroll
  for (int j = 0; j < kRangeItems; ++j) {
    if (j >= rounds) break;  // block-uniform
    Sum x = items[j];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const Sum y = __shfl_up_sync(0xffffffffu, x, d);
      if (lane >= d) x += y;
    }
    const Sum round = __shfl_sync(0xffffffffu, x, 31);
    items[j] = carry + x - items[j];  // exclusive, within the warp
    carry += round;
  }
  if (lane == 0) warp_sums[warp] = carry;
  __syncthreads();
  unsigned long long before = 0, all = 0;
  for (int w = 0; w < kPlanThreads / 32; ++w) {
    if (w < warp) before += warp_sums[w];
    all += warp_sums[w];
  }
#pragma unroll
  for (int j = 0; j < kRangeItems; ++j) {
    const int r = base + 32 * j + lane;
    if (j < rounds && r < total) out[r] = before + items[j];
  }
  if (threadIdx.x == 0) out[total] = all;
  __syncthreads();
  return all;
}

// striped_prefix_sums in 32-bit sums where n < 2^32 (no prefix reaches 2^32).
template <class Values>
__device__ unsigned long long range_prefix_sums(std::size_t n, int total, Values values, unsigned long long* out) {
  return n < (std::size_t{1} << 32) ? striped_prefix_sums<unsigned>(total, values, out)
                                    : striped_prefix_sums<unsigned long long>(total, values, out);
}

// Step 4 (one block): each rank's range, the active ranges and their places (every range spans
// 2^8 keys or more: band_bits gives a band at most as many ranges as asked, < 2^15).
template <class T>
__global__ __launch_bounds__(kPlanThreads) void locate_bands(std::size_t n, const std::size_t* __restrict__ ks,
                                                            std::size_t count,
                                                            BandPlan<typename KeyTraits<T>::Key>* plan,
                                                            BandStatus* status,
                                                            unsigned long long* __restrict__ positions) {
  if (plan->use_edges) return;
  const int total = static_cast<int>(plan->total);
  range_prefix_sums(n, total, [plan](int r) { return plan->counts[r]; }, plan->before);
  for (int w = threadIdx.x; w < kActiveWords; w += blockDim.x) plan->active[w] = 0;
  __syncthreads();
  for (std::size_t i = threadIdx.x; i < count; i += blockDim.x) {
    const int r = multi::bucket_of_rank(plan->before, total, ks[i]);
    positions[i] = static_cast<unsigned long long>(r);
    atomicOr(&plan->active[r >> 5], 1u << (r & 31));
  }
  __syncthreads();
  const unsigned long long candidates = range_prefix_sums(
      n, total, [plan](int r) { return is_active(plan->active, static_cast<unsigned>(r)) ? plan->counts[r] : 0ull; },
      plan->active_before);
  if (threadIdx.x == 0) status->candidates = candidates;
}

// Step 4b: each active range's write position for each block of the reads: the range's place
// among the candidates plus the range's values in the blocks before (block_counts: the counting
// read's per-block counts, block by block, made into those positions in place), so that the
// compaction's blocks write at cursors in their shared memory, not at one global cursor a range
// (1001 ranks of 2^26 floats: the global cursors took the compaction 308 us against the counting
// read's 79). A thread a range; positions are 32-bit (the buffer holds < 2^32 keys: capacity).
constexpr int kPlaceThreads = 256;
template <class Key>
__global__ __launch_bounds__(kPlaceThreads) void place_bands(const BandPlan<Key>* plan, const BandStatus* status,
                                                            unsigned* __restrict__ block_counts, unsigned blocks) {
  if (plan->use_edges || status->candidates == 0 || status->candidates > plan->capacity) return;
  const unsigned r = blockIdx.x * kPlaceThreads + threadIdx.x;
  if (r >= plan->total || !is_active(plan->active, r)) return;
  auto running = static_cast<unsigned>(plan->active_before[r]);
  constexpr unsigned kBatch = 8;  // loads in flight together
  for (unsigned first = 0; first < blocks; first += kBatch) {
    unsigned counts[kBatch];
#pragma unroll
    for (unsigned j = 0; j < kBatch; ++j)
      counts[j] = first + j < blocks ? block_counts[std::size_t(first + j) * kBandMaxRanges + r] : 0u;
#pragma unroll
    for (unsigned j = 0; j < kBatch; ++j) {
      if (first + j < blocks) block_counts[std::size_t(first + j) * kBandMaxRanges + r] = running;
      running += counts[j];
    }
  }
}

// Step 5: the compacting read. Every value's keep flag first (the table and active-range loads
// of a thread's values in flight together), then one warp scan a step gives each lane its place
// in the warp's slice of shared memory, which holds a whole step's values (a full slice is
// written out before a step that might not fit, so no step overflows); a full slice, and the
// last, are written out with a shared-memory atomic on the block's cursor (place_bands) per
// range present in each 32 staged keys, a flush's atomics in flight together. H200, 2^28 floats, 101 ranks: 0.39 ms against the counting read's
// 0.27 (0.43 with the active bit words instead of byte flags, same run). Measured and not kept:
// a ballot and a cursor atomic per value, waited on in turn (0.51 ms, with bit words); two
// vectors a step with 32 registers, two blocks an SM (0.49); a 256-key slice (0.43, but
// a step that overflowed it needed a path no test reaches; a slice that a step fills and goes on
// from: 0.47, doubles 10 % slower than this). Skipped when every rank was answered, or when the
// candidates do not fit this call's buffer (the host sees the count and retries). Dynamic shared
// memory: the slices, 64 KB a block, then the cursors, 4 bytes a range.
template <class T>
constexpr int kStageRounds = kVisitItems<T>;  // a warp step's values, in rounds of 32
template <class T>
constexpr int kStageKeys = 32 * kStageRounds<T>;

template <class T>
constexpr std::size_t compact_stage_bytes() {
  return sizeof(T) * kStageKeys<T> * (kPassThreads / 32);
}
template <class T>
constexpr std::size_t compact_shared_bytes() {
  return compact_stage_bytes<T>() + sizeof(unsigned) * kBandMaxRanges;
}

// Writes a warp's `fill` staged keys (warp-uniform) to their ranges' segments: first every
// round's atomic, then the writes (a key's range recomputed: fewer registers). Not inlined: the
// read calls it rarely (every ~80 steps of a warp at 1 % candidates) and keeps its registers.
template <class T>
__device__ __noinline__ void flush_stage(const typename KeyTraits<T>::Key* slice, int fill, const unsigned* entries,
                                         unsigned* cursors, typename KeyTraits<T>::Key* __restrict__ candidates) {
  using Key = typename KeyTraits<T>::Key;
  const unsigned lane = threadIdx.x % 32;
  unsigned peers[kStageRounds<T>], base[kStageRounds<T>];
#pragma unroll
  for (int j = 0; j < kStageRounds<T>; ++j) {
    const int i = j * 32 + static_cast<int>(lane);
    if (i >= fill) continue;
    const unsigned lanes = 0xffffffffu >> (32 - min(32, fill - j * 32));  // the round's staged keys
    const unsigned r = bands::range_of(slice[i], entries);
    peers[j] = __match_any_sync(lanes, r);
    base[j] = 0;
    if (lane == static_cast<unsigned>(__ffs(peers[j]) - 1)) base[j] = atomicAdd(&cursors[r], __popc(peers[j]));
  }
#pragma unroll
  for (int j = 0; j < kStageRounds<T>; ++j) {
    const int i = j * 32 + static_cast<int>(lane);
    if (i >= fill) continue;
    const Key key = slice[i];
    const unsigned r = bands::range_of(key, entries);
    const unsigned lanes = 0xffffffffu >> (32 - min(32, fill - j * 32));
    const unsigned first = __shfl_sync(lanes, base[j], __ffs(peers[j]) - 1);
    candidates[first + __popc(peers[j] & ((1u << lane) - 1))] = key;
  }
}

// kByteFlags: a value's keep bit from a byte a range (one shared load, added in with one
// multiply-add), else from the active bit words (a load, then a shift and a mask by the range).
// Measured and not kept (H200, bench/results/selection_finish_h200_2026-12-02, call a): the
// steps read last first, for the counting read's tail in the L2: 34.8 against 35.9 us at 2^24
// floats, 103.3 against 103.1 at 2^26 (no L2 reuse to speak of).
template <class T, bool kByteFlags>
__global__ __launch_bounds__(kPassThreads) void compact_bands(const T* __restrict__ x, std::size_t n,
                                                             BandPlan<typename KeyTraits<T>::Key>* plan,
                                                             const BandStatus* status,
                                                             const unsigned* __restrict__ block_positions,
                                                             typename KeyTraits<T>::Key* __restrict__ candidates) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kBands = bands::band_count<Key>();
  if (plan->use_edges || status->candidates == 0 || status->candidates > plan->capacity) return;
  __shared__ unsigned entries[kBands];
  __shared__ unsigned active[kActiveWords];
  __shared__ unsigned char flags[kByteFlags ? kBandMaxRanges : 1];
  extern __shared__ __align__(16) unsigned char stage_bytes[];
  Key* slice = reinterpret_cast<Key*>(stage_bytes) + threadIdx.x / 32 * kStageKeys<T>;
  auto* cursors = reinterpret_cast<unsigned*>(stage_bytes + compact_stage_bytes<T>());
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) entries[b] = plan->entries[b];
  for (int w = threadIdx.x; w < kActiveWords; w += blockDim.x) active[w] = plan->active[w];
  __syncthreads();
  const unsigned total_ranges = plan->total;
  const unsigned* positions = block_positions + std::size_t(blockIdx.x) * kBandMaxRanges;
  for (unsigned r = threadIdx.x; r < total_ranges; r += blockDim.x) {
    const bool on = is_active(active, r);
    if constexpr (kByteFlags) flags[r] = on ? 1 : 0;
    if (on) cursors[r] = positions[r];
  }
  __syncthreads();
  const unsigned lane = threadIdx.x % 32;
  unsigned fill = 0;  // keys in this warp's slice
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    unsigned keep = 0;  // bit u: values[u] is kept
    for_each_valid<kVisitItems<T>>(valid, [&](int u) {
      const unsigned r = bands::range_of(KeyTraits<T>::to_key(values[u]), entries);
      if constexpr (kByteFlags) keep += static_cast<unsigned>(flags[r]) << u;  // bits apart: + is |
      else keep |= static_cast<unsigned>(is_active(active, r)) << u;
    });
    const unsigned mine = __popc(keep);
    unsigned before = mine;  // inclusive, then exclusive, sum of the warp's kept values by lane
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const unsigned below = __shfl_up_sync(0xffffffffu, before, d);
      if (lane >= static_cast<unsigned>(d)) before += below;
    }
    const unsigned total = __shfl_sync(0xffffffffu, before, 31);
    before -= mine;
    if (total == 0) return;  // warp-uniform
    if (fill + total > kStageKeys<T>) {  // then fill != 0: total <= kStageKeys
      __syncwarp();
      flush_stage<T>(slice, static_cast<int>(fill), entries, cursors, candidates);
      __syncwarp();
      fill = 0;
    }
    unsigned at = fill + before;
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u)
      if (keep >> u & 1u) slice[at++] = KeyTraits<T>::to_key(values[u]);
    fill += total;
  });
  __syncwarp();
  if (fill != 0) flush_stage<T>(slice, static_cast<int>(fill), entries, cursors, candidates);
}

// Step 6 (a block per rank): the rank within its range's segment.
template <class T>
__global__ __launch_bounds__(segments::kSelectThreads) void select_in_bands(
    const typename KeyTraits<T>::Key* __restrict__ candidates, const std::size_t* __restrict__ ks, std::size_t count,
    const BandPlan<typename KeyTraits<T>::Key>* plan, const BandStatus* status,
    const unsigned long long* __restrict__ positions, T* __restrict__ out) {
  using Key = typename KeyTraits<T>::Key;
  __shared__ segments::SelectShared shared;
  if (plan->use_edges || status->candidates > plan->capacity) return;
  for (std::size_t i = blockIdx.x; i < count; i += gridDim.x) {
    const auto r = static_cast<unsigned>(positions[i]);
    const Segment<Key> segment{candidates + plan->active_before[r], plan->counts[r],
                               bands::range_low<Key>(r, plan->entries),
                               segments::bit_width<Key>(bands::range_span<Key>(r, plan->entries))};
    const Key known = segments::select_in_segment(segment, ks[i] - plan->before[r], nullptr, 0, shared);
    if (threadIdx.x == 0) out[i] = KeyTraits<T>::from_key(segment.low + known);
  }
}

// The retry after a too small candidate buffer: its new size.
template <class Key>
__global__ void set_band_capacity(BandPlan<Key>* plan, unsigned long long capacity) {
  plan->capacity = capacity;
}

}  // namespace

template <class T>
BandOutcome band_multi_select(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count, T* out,
                              const SampledMultiParams& params, Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kBands = bands::band_count<Key>();
  if (count == 0) return BandOutcome::answered;
  multi::PhaseTimer timer(params.phases, stream);
  const int sample_size = std::max(1, params.band_sample_size);
  const int wanted = std::clamp(params.band_ranges, 1, kBandMaxRanges);

  multi::CallBuffers<T> call(workspace, sample_size, ks, count, stream);
  auto* plan = workspace.device_as<BandPlan<Key>>(kBandMultiPlan, 1);
  // The answers, then the status, in one buffer: one copy back (H200: answers out 14.3 -> 12.9 us).
  const std::size_t answer_bytes = (count * sizeof(T) + alignof(BandStatus) - 1) / alignof(BandStatus) * alignof(BandStatus);
  const std::size_t back_bytes = answer_bytes + sizeof(BandStatus);
  auto* d_back = workspace.device_as<unsigned char>(kBandMultiStatus, back_bytes);
  auto* h_back = workspace.host_as<unsigned char>(kBandMultiStatus, back_bytes);
  auto* d_out = reinterpret_cast<T*>(d_back);
  auto* d_status = reinterpret_cast<BandStatus*>(d_back + answer_bytes);
  const T* h_out = reinterpret_cast<const T*>(h_back);
  const auto* h_status = reinterpret_cast<const BandStatus*>(h_back + answer_bytes);
  const double max_candidates = params.max_candidate_fraction * static_cast<double>(n);
  // Write positions are 32-bit (place_bands): more candidates than that go to the edges.
  constexpr unsigned long long kMostPlaced = 0xffffffffull;
  unsigned long long capacity =
      std::min(kMostPlaced, multi::initial_capacity(params.initial_capacity, count, n, wanted, max_candidates));
  Key* candidates = workspace.device_as<Key>(kSampledMultiCandidates, std::max<unsigned long long>(capacity, 1));
  timer.mark("ranks in");

  // Drawn by many blocks: one block's gathers from DRAM waited on its few outstanding loads
  // (H200, call a of bench/results/selection_finish_h200_2026-12-02: draw and plan in one block
  // 33.8 us against 6.1 + 19.5 apart).
  multi::draw_sample<T><<<(sample_size + 255) / 256, 256, 0, stream>>>(d_values, n, sample_size, call.sample);
  CUDA_CHECK_LAUNCH();
  timer.mark("sample");
  detail::allow_dynamic_shared_memory(plan_bands<Key>, kPlanSharedBytes);
  plan_bands<Key><<<1, kPlanThreads, kPlanSharedBytes, stream>>>(call.sample, sample_size, wanted, call.d_ranks,
                                                                 count, n, capacity, plan, d_status);
  CUDA_CHECK_LAUNCH();
  timer.mark("plan");

  // The counting read's shared memory is sized for the most ranges (the host does not know the
  // table's): two blocks of 1024 threads fit an SM; band_blocks_per_sm runs one by default.
  const std::size_t count_bytes = sizeof(unsigned) * (kBands + kBandMaxRanges);
  detail::allow_dynamic_shared_memory(count_bands<T>, count_bytes);  // per device: every call
  const auto compact = params.band_byte_flags ? compact_bands<T, true> : compact_bands<T, false>;
  detail::allow_dynamic_shared_memory(compact, compact_shared_bytes<T>());
  static const int resident = resident_blocks_per_sm(count_bands<T>, kPassThreads, count_bytes, 2);
  const int blocks_per_sm = std::clamp(params.band_blocks_per_sm > 0 ? params.band_blocks_per_sm : 1, 1, resident);
  const unsigned grid = streaming_grid(n, kPassThreads, kVisitItems<T>, blocks_per_sm);
  auto* block_counts = workspace.device_as<unsigned>(kSampledMultiBlockCounts, std::size_t{grid} * kBandMaxRanges);
  count_bands<T><<<grid, kPassThreads, count_bytes, stream>>>(d_values, n, plan, d_status, block_counts);
  CUDA_CHECK_LAUNCH();
  timer.mark("count");
  locate_bands<T><<<1, kPlanThreads, 0, stream>>>(n, call.d_ranks, count, plan, d_status, call.positions);
  CUDA_CHECK_LAUNCH();
  timer.mark("locate");

  const unsigned select_grid = static_cast<unsigned>(std::min<std::size_t>(count, 65535));
  auto finish = [&] {
    place_bands<Key><<<kBandMaxRanges / kPlaceThreads, kPlaceThreads, 0, stream>>>(plan, d_status, block_counts, grid);
    CUDA_CHECK_LAUNCH();
    timer.mark("place");
    compact<<<grid, kPassThreads, compact_shared_bytes<T>(), stream>>>(d_values, n, plan, d_status, block_counts,
                                                                       candidates);
    CUDA_CHECK_LAUNCH();
    timer.mark("compact");
    select_in_bands<T><<<select_grid, segments::kSelectThreads, 0, stream>>>(candidates, call.d_ranks, count, plan,
                                                                            d_status, call.positions, d_out);
    CUDA_CHECK_LAUNCH();
    timer.mark("select");
    CUDA_CHECK(cudaMemcpyAsync(h_back, d_back, back_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    timer.mark("answers out");
  };
  finish();
  BandStatus status = *h_status;
  if (status.use_edges || (status.nans == 0 && static_cast<double>(status.candidates) > max_candidates)) {
    timer.report();
    return BandOutcome::use_edges;
  }
  if (status.nans != 0) {
    timer.report();
    return BandOutcome::nan;
  }
  if (status.candidates > kMostPlaced) {
    timer.report();
    return BandOutcome::use_edges;
  }
  if (status.candidates > capacity) {  // a second compaction into a buffer of the right size
    capacity = status.candidates;
    candidates = workspace.device_as<Key>(kSampledMultiCandidates, capacity);
    set_band_capacity<Key><<<1, 1, 0, stream>>>(plan, capacity);
    CUDA_CHECK_LAUNCH();
    timer.mark("retry");
    finish();
  }
  timer.report();
  std::copy(h_out, h_out + count, out);
  return BandOutcome::answered;
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                                  \
  template BandOutcome band_multi_select<T>(const T*, std::size_t, const std::size_t*, std::size_t, T*,          \
                                            const SampledMultiParams&, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
