#pragma once
// Internal: the steps of band-table multiselection that both of its forms run alike — the
// separate kernels (band_multi_select.cu) and the one cooperative launch for small inputs
// (band_one_launch.cu): the plan of the ranges from a sample, the counting read's block body,
// the compacting read's block body. Each is a block's work on the block's shared memory, so that
// a kernel of either form calls it between its own loads and stores of global state. Every
// function here is called by all kBandThreads threads of a block. Device code: include from .cu
// only.
#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "band_ranges.hpp"
#include "key_traits.cuh"
#include "multi_select_common.cuh"
#include "visit_vectors.cuh"
#include "warp_scan.cuh"

namespace robustfit::selection::cuda::detail::bands {

// Threads of every block of both forms (the plan, the reads, the one launch).
constexpr int kBandThreads = 1024;

__device__ __forceinline__ bool is_active(const unsigned* active, unsigned r) { return active[r >> 5] >> (r & 31) & 1u; }

// Calls visit(key, index) for each of the sample's keys, a thread's keys loaded 8 at a time (in
// flight together, not one load's latency after another's). Within one call of a warp the
// indices rise with the lane.
template <class Key, class Visit>
__device__ void for_each_sample_key_at(const Key* __restrict__ sample, int size, Visit visit) {
  constexpr int kBatch = 8;
  for (int first = threadIdx.x; first < size; first += kBatch * blockDim.x) {
    Key keys[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) keys[j] = first + j * blockDim.x < size ? sample[first + j * blockDim.x] : Key{};
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (first + j * blockDim.x < size) visit(keys[j], static_cast<int>(first + j * blockDim.x));
  }
}
template <class Key, class Visit>
__device__ void for_each_sample_key(const Key* __restrict__ sample, int size, Visit visit) {
  for_each_sample_key_at(sample, size, [&](Key key, int) { visit(key); });
}

// What the plan decided: the table's ranges and whether the edges should answer instead.
// (NoStamp: the plan's steps unmarked; the one launch passes its phase stamps, phase_stamps.cuh.)
struct NoStamp {
  __device__ void operator()() const {}
};

struct PlanVerdict {
  unsigned total;
  bool use_edges;
  bool long_runs;  // one range holds more than the tie share of the sample (long_run)
};

// The plan from the sample (drawn, not sorted): the table `entries` (shared, band_count<Key>()
// words: first range and shift per band, 2^bits ranges per band in proportion to its sample
// keys, band_bits), and the verdict: where the ranges of the wanted ranks are expected to hold
// more values than the edges' buckets (ties, spans the bands cannot split), where one range
// holds more than 1/64 of the sample, or beyond kMaxRanges ranges, the edges answer
// (edges_answer_instead; `compared`: the rank's expected values compared with n / compared;
// kNoRankVerdict: the ranks are not looked at, for the one launch, which refines crowded ranges
// instead). Histograms and a prefix sum in shared memory, no sort (a device-wide sort of the
// sample and searches of it in global memory took ~200 us of 2^24 floats' 330).
// `tally`: kMaxRanges + 1 shared counters (the keys per band first, then per range).
constexpr double kNoRankVerdict = 0;
template <class Key, int kMaxRanges, class Stamp = NoStamp>
__device__ PlanVerdict plan_ranges(const Key* __restrict__ sample, int sample_size, int wanted, const std::size_t* ks,
                                   std::size_t count, std::size_t n, unsigned* tally, unsigned* entries,
                                   double compared = 2048, Stamp stamp = {}) {
  constexpr int kBands = band_count<Key>();
  constexpr int kPerThread = (kBands + kBandThreads - 1) / kBandThreads;
  constexpr int kRangeItems = (kMaxRanges + 1 + kBandThreads - 1) / kBandThreads;  // a thread's ranges (+ the end)
  using Scan = cub::BlockScan<unsigned, kBandThreads>;
  __shared__ typename Scan::TempStorage temp;
  __shared__ unsigned longest;
  __shared__ unsigned long long wanted_runs;  // sample keys in the ranges of the wanted ranks
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) tally[b] = 0;
  if (threadIdx.x == 0) longest = 0, wanted_runs = 0;
  __syncthreads();
  // A warp's keys mostly share a band or two (uniform [0, 1): half in the top band): one atomic
  // per band present, not per key, or same-address atomics serialise the histogram.
  for_each_sample_key(sample, sample_size, [&](Key key) {
    const int band = band_of(key);
    const unsigned peers = __match_any_sync(__activemask(), band);
    if (threadIdx.x % 32 == static_cast<unsigned>(__ffs(peers) - 1)) atomicAdd(&tally[band], __popc(peers));
  });
  __syncthreads();
  stamp();
  int bits[kPerThread];
  unsigned mine = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int b = threadIdx.x * kPerThread + j;
    bits[j] = b < kBands ? band_bits<Key>(tally[b], static_cast<std::uint64_t>(sample_size),
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
      entries[b] = pack_band(first, mantissa_bits<Key>() - bits[j]);
      first += 1u << bits[j];
    }
  }
  __syncthreads();  // entries written, tally and temp free
  stamp();
  if (total <= static_cast<unsigned>(kMaxRanges)) {
    // The sample's keys per range; the longest run of one range.
    for (unsigned r = threadIdx.x; r < total; r += blockDim.x) tally[r] = 0;
    __syncthreads();
    for_each_sample_key(sample, sample_size, [&](Key key) { atomicAdd(&tally[range_of(key, entries)], 1u); });
    __syncthreads();
    stamp();
    unsigned items[kRangeItems], most = 0;
#pragma unroll
    for (int j = 0; j < kRangeItems; ++j) {
      const unsigned r = threadIdx.x * kRangeItems + j;
      items[j] = r < total ? tally[r] : 0u;
      most = max(most, items[j]);
    }
    // One shared atomic a warp: 1024 on one address took the plan several us.
    most = __reduce_max_sync(0xffffffffu, most);
    if (threadIdx.x % 32 == 0 && most != 0) atomicMax(&longest, most);
    __syncthreads();  // every count read
    Scan(temp).ExclusiveSum(items, items);
#pragma unroll
    for (int j = 0; j < kRangeItems; ++j) {
      const unsigned r = threadIdx.x * kRangeItems + j;
      if (r <= total) tally[r] = items[j];  // tally[total] = sample_size
    }
    __syncthreads();
    stamp();
    // The ranges where the wanted ranks fall (a rank at sample position k S / n; repeats counted
    // again: an upper bound), as the sample's keys in them.
    unsigned long long mine_runs = 0;
    for (std::size_t i = threadIdx.x; compared != kNoRankVerdict && i < count; i += blockDim.x) {
      const auto p = static_cast<unsigned>(min(static_cast<double>(sample_size - 1),
                                               static_cast<double>(ks[i]) * sample_size / static_cast<double>(n)));
      const int r = multi::bucket_of_rank(tally, static_cast<int>(total), p);
      mine_runs += tally[r + 1] - tally[r];
    }
    // A warp's sum first, one shared atomic a warp: a 64-bit shared add from every rank's thread
    // took the plan ~6 us at 101 ranks (H200).
    add_warp_sum(mine_runs, &wanted_runs);
  }
  __syncthreads();
  const bool use_edges = edges_answer_instead(total, kMaxRanges, static_cast<int>(longest), sample_size,
                                              static_cast<double>(wanted_runs), static_cast<double>(count),
                                              static_cast<double>(n), compared == kNoRankVerdict ? 1 : compared);
  return PlanVerdict{total, use_edges, long_run(static_cast<int>(longest), sample_size)};
}

// The counting read's block body: every value's range counted in `counters` (shared, zeroed,
// one per range). Returns the NaNs this thread saw.
template <class T>
__device__ __forceinline__ unsigned count_ranges(const T* __restrict__ x, std::size_t n, const unsigned* entries,
                                                 unsigned* counters) {
  unsigned nans = 0;
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    for_each_valid<kVisitItems<T>>(valid, [&](int u) {
      nans += values[u] != values[u];
      atomicAdd(&counters[range_of(KeyTraits<T>::to_key(values[u]), entries)], 1u);
    });
  });
  return nans;
}

// A key's cell in the table's own ranges (the compacting read's map where nothing is refined).
struct RangeCells {
  const unsigned* entries;
  template <class Key>
  __device__ __forceinline__ unsigned operator()(Key key) const {
    return range_of(key, entries);
  }
};

// The counting read for inputs whose sample shows long runs in one range (ties, a narrow span),
// and the refinement's read (band_refine.cuh): each value's cell (cell_of) counted in `counters`
// from cell `from` on, the lanes of a warp whose cell is the first active lane's adding once
// (one ballot), the others each with their own atomic: one shared counter taking a warp's 32
// atomics in turn would serialise the read on ties. __match_any_sync, which groups every cell,
// was slower (H200, 2^26 floats of 16 distinct values: the two reads ~0.25 ms each, its cost
// growing with the distinct cells in a warp). Returns the NaNs this thread saw.
template <class T, class Cells>
__device__ __forceinline__ unsigned count_cells_aggregated(const T* __restrict__ x, std::size_t n, Cells cell_of,
                                                           unsigned from, unsigned* counters) {
  unsigned nans = 0;
  const unsigned lane = threadIdx.x % 32;
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    for_each_valid<kVisitItems<T>>(valid, [&](int u) {
      nans += values[u] != values[u];
      const unsigned c = cell_of(KeyTraits<T>::to_key(values[u]));
      const unsigned active = __activemask();
      const unsigned leader = static_cast<unsigned>(__ffs(active) - 1);
      const unsigned lead_cell = __shfl_sync(active, c, leader);
      const bool counted = c >= from, with_leader = counted && c == lead_cell;
      const unsigned together = __ballot_sync(active, with_leader);
      if (with_leader) {
        if (lane == leader) atomicAdd(&counters[c], __popc(together));
      } else if (counted) {
        atomicAdd(&counters[c], 1u);
      }
    });
  });
  return nans;
}

// The compacting read's staging: a warp step's values, in rounds of 32, a slice per warp.
template <class T>
constexpr int kStageRounds = kVisitItems<T>;
template <class T>
constexpr int kStageKeys = 32 * kStageRounds<T>;
template <class T>
constexpr std::size_t compact_stage_bytes() {
  return sizeof(T) * kStageKeys<T> * (kBandThreads / 32);
}

// Writes a warp's `fill` staged values (warp-uniform) to their ranges' segments as keys: first
// every round's atomic, then the writes (a key's range recomputed: fewer registers). Not
// inlined: the read calls it rarely (every ~80 steps of a warp at 1 % candidates) and keeps its
// registers.
template <class T, class Cells>
__device__ __noinline__ void flush_stage(const T* slice, int fill, Cells cell_of, unsigned* cursors,
                                         typename KeyTraits<T>::Key* __restrict__ candidates) {
  using Key = typename KeyTraits<T>::Key;
  const unsigned lane = threadIdx.x % 32;
  unsigned peers[kStageRounds<T>], base[kStageRounds<T>];
#pragma unroll
  for (int j = 0; j < kStageRounds<T>; ++j) {
    const int i = j * 32 + static_cast<int>(lane);
    if (i >= fill) continue;
    const unsigned lanes = 0xffffffffu >> (32 - min(32, fill - j * 32));  // the round's staged keys
    const unsigned r = cell_of(KeyTraits<T>::to_key(slice[i]));
    peers[j] = __match_any_sync(lanes, r);
    base[j] = 0;
    if (lane == static_cast<unsigned>(__ffs(peers[j]) - 1)) base[j] = atomicAdd(&cursors[r], __popc(peers[j]));
  }
#pragma unroll
  for (int j = 0; j < kStageRounds<T>; ++j) {
    const int i = j * 32 + static_cast<int>(lane);
    if (i >= fill) continue;
    const Key key = KeyTraits<T>::to_key(slice[i]);
    const unsigned r = cell_of(key);
    const unsigned lanes = 0xffffffffu >> (32 - min(32, fill - j * 32));
    const unsigned first = __shfl_sync(lanes, base[j], __ffs(peers[j]) - 1);
    candidates[first + __popc(peers[j] & ((1u << lane) - 1))] = key;
  }
}

// The compacting read's block body: the values of active ranges written into their ranges'
// segments (as keys) at the block's `cursors` (shared, one per range: where this block's keys of
// the range go). Every value's keep bit first (`kept(r)`: 1 where range r is active; the table
// and keep-table loads of a thread's values in flight together), then one warp scan a step gives
// each lane its place in the warp's slice of shared memory (`stage`: compact_stage_bytes<T>()),
// which holds a whole step's values (a full slice is written out before a step that might not
// fit, so no step overflows); a full slice, and the last, are written out with a shared-memory
// atomic on the cursor per range present in each 32 staged keys. The slices hold the values as
// read (made keys when written out: ~1 kept value in 40; the one launch's read of 2^24 floats
// 25.5 us against 28 with keys staged). Keep tables: a byte a range (ByteKeep) or bit words
// (BitKeep). H200, 2^28 floats, 101 ranks: 0.39 ms against the counting read's 0.27 (0.43 with
// the bit words). Measured and not kept: a ballot and a cursor atomic per value, waited on in
// turn (0.51 ms, with bit words); two vectors a step with 32 registers, two blocks an SM (0.49);
// a 256-key slice (0.43, but a step that overflowed it needed a path no test reaches; a slice
// that a step fills and goes on from: 0.47, doubles 10 % slower than this); the next step asked
// of the L2 ahead of its loads (prefetch.global.L2: the one launch's read of 2^24 floats 31
// against 28 us, the counting read 21 against 19.6); the bit words in 16 interleaved copies, a
// lane reading copy lane % 16, against the bytes' ~3.5-way bank conflicts (ncu: 47 % of the one
// launch's shared wavefronts): 29.8 against 25.5 us, the extra instructions costing more.
template <class T, class Cells, class Kept>
__device__ __forceinline__ void compact_active_ranges(const T* __restrict__ x, std::size_t n, Cells cell_of,
                                                      Kept kept, unsigned* cursors, unsigned char* stage,
                                                      typename KeyTraits<T>::Key* __restrict__ candidates) {
  T* slice = reinterpret_cast<T*>(stage) + threadIdx.x / 32 * kStageKeys<T>;
  unsigned fill = 0;  // values in this warp's slice
  visit_vectors(x, n, [&](const T* values, unsigned valid) {
    unsigned keep = 0;  // bit u: values[u] is kept
    for_each_valid<kVisitItems<T>>(valid, [&](int u) {
      keep += kept(cell_of(KeyTraits<T>::to_key(values[u]))) << u;  // bits apart: + is |
    });
    unsigned total = 0;  // the warp's kept values; `before`: this lane's place among them
    const unsigned before = warp_exclusive_sum(__popc(keep), total);
    if (total == 0) return;  // warp-uniform
    if (fill + total > kStageKeys<T>) {  // then fill != 0: total <= kStageKeys
      __syncwarp();
      flush_stage<T>(slice, static_cast<int>(fill), cell_of, cursors, candidates);
      __syncwarp();
      fill = 0;
    }
    unsigned at = fill + before;
#pragma unroll
    for (int u = 0; u < kVisitItems<T>; ++u)
      if (keep >> u & 1u) slice[at++] = values[u];
    fill += total;
  });
  __syncwarp();
  if (fill != 0) flush_stage<T>(slice, static_cast<int>(fill), cell_of, cursors, candidates);
}

// The compacting read's keep tables (kept(r): 1 where range r is active, else 0).
struct ByteKeep {  // a byte a range: one shared load and a multiply-add
  const unsigned char* flags;
  __device__ unsigned operator()(unsigned r) const { return flags[r]; }
};
struct BitKeep {  // bit words: an eighth of the bytes (the separate form's large tables)
  const unsigned* active;
  __device__ unsigned operator()(unsigned r) const { return is_active(active, r) ? 1u : 0u; }
};

}  // namespace robustfit::selection::cuda::detail::bands
