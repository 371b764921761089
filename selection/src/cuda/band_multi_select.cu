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
//     where one range holds more than 1/64 of the sample, the one launch answers instead
//     (band_one_launch.cu splits crowded ranges into cells; up to kOneLaunchMaxRanks ranks, n <
//     2^31), else the edges (their equality buckets need no copying), as beyond kBandMaxRanges
//     ranges.
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
#include <limits>

#include "band_passes.cuh"
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
#include "warp_scan.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using segments::Segment;

constexpr int kPlanThreads = bands::kBandThreads;
constexpr int kPassThreads = bands::kBandThreads;
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
  int crowded;  // the edges' verdict for ties or spans, not for a table beyond kBandMaxRanges
};

using bands::is_active;

// Step 2 (one block): the table and the sample's verdict (bands::plan_ranges), zeroed counts.
// Dynamic shared memory: kBandMaxRanges + 1 counters (the keys per band first, then per range).
constexpr std::size_t kPlanSharedBytes = sizeof(unsigned) * (kBandMaxRanges + 1);

template <class Key>
__global__ __launch_bounds__(kPlanThreads) void plan_bands(const Key* __restrict__ sample, int sample_size,
                                                           int wanted, const std::size_t* __restrict__ ks,
                                                           std::size_t count, std::size_t n,
                                                           unsigned long long capacity, BandPlan<Key>* plan,
                                                           BandStatus* status) {
  constexpr int kBands = bands::band_count<Key>();
  __shared__ unsigned entries[kBands];
  extern __shared__ unsigned tally[];
  const bands::PlanVerdict verdict =
      bands::plan_ranges<Key, kBandMaxRanges>(sample, sample_size, wanted, ks, count, n, tally, entries);
  for (int b = threadIdx.x; b < kBands; b += blockDim.x) plan->entries[b] = entries[b];
  if (threadIdx.x == 0) {
    plan->total = verdict.total;
    plan->use_edges = verdict.use_edges;
    plan->capacity = capacity;
    status->nans = 0;
    status->candidates = 0;
    status->use_edges = verdict.use_edges;
    status->crowded = verdict.use_edges && verdict.total <= static_cast<unsigned>(kBandMaxRanges);
  }
  if (verdict.use_edges) return;
  for (unsigned r = threadIdx.x; r < verdict.total; r += blockDim.x) plan->counts[r] = 0;
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
  unsigned nans = bands::count_ranges(x, n, entries, counters);
  __syncthreads();
  seed::flush_counts(counters, total, plan->counts);
  unsigned* mine = block_counts + std::size_t(blockIdx.x) * kBandMaxRanges;
  for (int r = threadIdx.x; r < total; r += blockDim.x) mine[r] = counters[r];
  add_warp_sum(nans, &status->nans);
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
    Sum round = 0;
    items[j] = carry + warp_exclusive_sum(items[j], round);  // exclusive, within the warp
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

// Step 5: the compacting read (bands::compact_active_ranges), at the block's cursors
// (place_bands). Skipped when every rank was answered, or when the candidates do not fit this
// call's buffer (the host sees the count and retries). Dynamic shared memory: the slices, 64 KB a
// block, then the cursors, 4 bytes a range.
template <class T>
constexpr std::size_t compact_shared_bytes() {
  return bands::compact_stage_bytes<T>() + sizeof(unsigned) * kBandMaxRanges;
}

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
  auto* cursors = reinterpret_cast<unsigned*>(stage_bytes + bands::compact_stage_bytes<T>());
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
  if constexpr (kByteFlags)
    bands::compact_active_ranges<T>(x, n, bands::RangeCells{entries}, bands::ByteKeep{flags}, cursors, stage_bytes, candidates);
  else
    bands::compact_active_ranges<T>(x, n, bands::RangeCells{entries}, bands::BitKeep{active}, cursors, stage_bytes, candidates);
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
  if (const auto one = band_multi_select_one_launch(d_values, n, ks, count, out, params, workspace, stream)) {
    timer.mark("one launch");
    timer.report();
    return *one;
  }
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
  if (status.crowded && params.band_one_launch_on_ties && !band_one_launch_takes(n, count, params)) {
    // Ties or a span the table cannot split, above the one launch's sizes: it splits the crowded
    // ranges into cells (band_refine.cuh) where the edges took 2-8 x the uniform time.
    SampledMultiParams any_size = params;
    any_size.band_one_launch_below = std::numeric_limits<std::size_t>::max();
    const auto one = band_multi_select_one_launch(d_values, n, ks, count, out, any_size, workspace, stream);
    timer.mark("one launch (crowded)");
    if (one) {
      timer.report();
      return *one;
    }
  }
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
