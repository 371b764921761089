// Band-table multiselection in one cooperative launch (issue 11: below ~2^26 values the separate
// kernels of band_multi_select.cu are bound by their seven launches and one-block steps, not by
// their two reads: 101 percentiles of 2^24 floats took 0.138 ms there, 5.7 x one read). The same
// plan, reads and finish (band_passes.cuh, segment_select.cuh), and so the same answers:
//  1. Every block draws its share of the sample (the positions multi::draw_sample draws, into the
//     same slot, so that the edges can take it over) and zeroes its share of the range counters;
//     each thread of a block loads one wanted rank from pinned host memory. grid.sync().
//  2. Every block plans the ranges from the whole sample alike (bands::plan_ranges), so all
//     blocks hold the same table and verdict with no further wait.
//  3. The counting read: a block's counts added to the global ones and kept per block.
//     grid.sync().
//  4. Every block alike: the prefix sums of the range counts in its shared memory, each rank's
//     range, the active ranges and their segments; then the block's own cursor in each active
//     range (the earlier blocks' counts of it added up).
//  5. The compacting read at those cursors. grid.sync().
//  6. A block per rank selects it within its segment and writes the answer to pinned host
//     memory; block 0 writes the status.
// Per call: 1 cooperative launch, 1 host synchronisation, no copies, no memset (the separate
// kernels: 7 launches, 2 copies). Declined (the separate kernels answer): more than
// kOneLaunchMaxRanks ranks, a table of more than kOneLaunchRanges ranges, more candidates than
// its buffer, a device without cooperative launch.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>

#include "band_passes.cuh"
#include "band_ranges.hpp"
#include "cuda_check.cuh"
#include "dynamic_shared_memory.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "multi_select_common.cuh"
#include "phase_stamps.cuh"
#include "sampled_multi_select.cuh"
#include "seed_common.cuh"
#include "segment_select.cuh"
#include "warp_scan.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using bands::kBandThreads;
using segments::Segment;
static_assert(segments::kSelectThreads == kBandThreads, "the finish runs in the launch's blocks");

// The table's ranges at most (shared memory: a counter, a cursor and a flag byte per range) and
// the ranges asked of the plan: a band's ranges are a power of two, so a table comes out at up
// to twice the ranges asked, plus one per band the sample missed (512 for floats, 4096 for
// doubles).
constexpr int kOneLaunchRanges = 12288;
constexpr int kOneLaunchWanted = 4096;
constexpr int kOneLaunchPlanSample = 8192;
// The verdict compares a wanted rank's expected values with n / 1024 (the separate kernels, with
// 16384 keys for ~8192 ranges: n / 2048): 8192 keys for ~4096 ranges put one to three in a
// range, and the size-biased count of a few ranks' ranges crossed n / 2048 by chance (H200,
// 2^22 uniform floats, 11 ranks: the edges answered, 0.19 against 0.10 ms).
constexpr double kOneLaunchEdgesCompared = 1024;
constexpr int kScanItems = (kOneLaunchRanges + 1 + kBandThreads - 1) / kBandThreads;

enum Status : int { kPending = 0, kAnswered = 1, kNan = 2, kUseEdges = 3, kDeclined = 4 };

// Global state, zeroed by the kernel's first step.
struct Control {
  unsigned counts[kOneLaunchRanges];
  unsigned long long nans;
};

// The wanted ranks, passed by value as the kernel's parameter (CUDA 12.1 and later take
// parameters up to 32 KB): read from pinned host memory instead, they took every block ~10 us
// before its first step (H200). Two sizes: 8 KB of parameters made the launch ~4 us slower
// than 1 KB.
template <int kRanks>
struct Ranks {
  std::size_t k[kRanks];
};
constexpr int kFewRanks = 128;

// What block 0 writes to pinned host memory; the answers follow it.
struct Result {
  int status;
  unsigned long long nans, candidates;
};

// Dynamic shared memory: the ranks and what step 4 finds for each, the table, the cursors and
// flags of step 4-5, then one region each step uses in turn (the plan's tally, the block's
// counters, the prefix sums, the compaction's slices, the finish's digit counts).
template <class T>
struct Layout {
  using Key = typename KeyTraits<T>::Key;
  static constexpr std::size_t align(std::size_t bytes) { return (bytes + 15) / 16 * 16; }
  static constexpr std::size_t ranks = 0;
  static constexpr std::size_t rank_range = ranks + align(sizeof(std::size_t) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_within = rank_range + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_start = rank_within + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_length = rank_start + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t active_list = rank_length + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t active_start = active_list + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t entries = active_start + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t cursors = entries + align(sizeof(unsigned) * bands::band_count<Key>());
  static constexpr std::size_t flags = cursors + align(sizeof(unsigned) * kOneLaunchRanges);
  static constexpr std::size_t work = flags + align(kOneLaunchRanges);
  static constexpr std::size_t work_bytes = std::max({bands::compact_stage_bytes<T>(),
                                                      sizeof(unsigned) * (kOneLaunchRanges + 1),
                                                      sizeof(segments::SelectShared)});
  static constexpr std::size_t bytes = work + align(work_bytes);
};

__device__ void write_status(Result* result, int status, unsigned long long nans, unsigned long long candidates) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  result->nans = nans;
  result->candidates = candidates;
  result->status = status;
  __threadfence_system();
}

// Exclusive prefix sums of values(r), r < total, into out[0..total] (shared, out[total] the sum),
// a thread kScanItems consecutive places; returns the sum. Every thread calls it; `out` may be
// what values() reads (all are read before any is written).
template <class Values>
__device__ unsigned block_prefix_sums(unsigned total, Values values, unsigned* out,
                                      typename cub::BlockScan<unsigned, kBandThreads>::TempStorage& temp) {
  unsigned items[kScanItems];
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    const unsigned r = threadIdx.x * kScanItems + j;
    items[j] = r < total ? values(r) : 0u;
  }
  __syncthreads();
  unsigned sum = 0;
  cub::BlockScan<unsigned, kBandThreads>(temp).ExclusiveSum(items, items, sum);
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    const unsigned r = threadIdx.x * kScanItems + j;
    if (r <= total) out[r] = items[j];
  }
  __syncthreads();
  return sum;
}

// Step 4's share of one block in the cursors: for the active ranges e = blockIdx.x + gridDim.x w
// (w a warp of the block), the range's counts by block (block_counts: a row of kOneLaunchRanges
// a block) summed over the blocks before each, plus the range's segment start, into
// positions[e * gridDim.x + b] for every block b. A warp per range, its lanes over the blocks
// (all of a lane's loads in flight together). Each block then reads its own column after a
// grid.sync(): ~1 us and a grid.sync() where each block summing its earlier blocks' rows itself
// took the last block ~10 us (132 rows of scattered loads, H200).
constexpr int kMostBlocks = 8 * 32;  // the launch's blocks at most: 8 loads a lane
__device__ void place_active_ranges(const unsigned* __restrict__ block_counts, const unsigned* active_list,
                                    const unsigned* segment_start, unsigned actives, unsigned* positions) {
  const unsigned lane = threadIdx.x % 32;
  for (unsigned e = blockIdx.x + gridDim.x * (threadIdx.x / 32); e < actives; e += gridDim.x * (kBandThreads / 32)) {
    const unsigned r = active_list[e];
    unsigned counts[kMostBlocks / 32];
#pragma unroll
    for (int j = 0; j < kMostBlocks / 32; ++j) {
      const unsigned b = lane + 32 * j;
      counts[j] = b < gridDim.x ? __ldcg(&block_counts[std::size_t(b) * kOneLaunchRanges + r]) : 0u;
    }
    unsigned carry = segment_start[e];
#pragma unroll
    for (int j = 0; j < kMostBlocks / 32; ++j) {
      if (32 * j >= gridDim.x) break;  // warp-uniform
      unsigned sum = 0;
      const unsigned before = warp_exclusive_sum(counts[j], sum);
      const unsigned b = lane + 32 * j;
      if (b < gridDim.x) positions[std::size_t(e) * gridDim.x + b] = carry + before;
      carry += sum;
    }
  }
}

// The two reads, each in a function of its own (not inlined): ptxas then gives each read the
// registers it needs, not what the kernel keeps live across its steps (inlined: ~240 bytes of
// spills a thread, in the reads' loops).
template <class T>
__device__ __noinline__ unsigned count_read(const T* __restrict__ x, std::size_t n, const unsigned* entries,
                                            unsigned* counters) {
  return bands::count_ranges(x, n, entries, counters);
}
template <class T>
__device__ __noinline__ void compact_read(const T* __restrict__ x, std::size_t n, const unsigned* entries,
                                          const unsigned char* flags, unsigned* cursors, unsigned char* stage,
                                          typename KeyTraits<T>::Key* __restrict__ candidates) {
  bands::compact_active_ranges<T>(x, n, entries, bands::ByteKeep{flags}, cursors, stage, candidates);
}

// The counters' copy into shared memory, a thread's loads in flight together.
__device__ void load_counts(const Control* control, unsigned total, unsigned* out) {
  constexpr int kItems = (kOneLaunchRanges + kBandThreads - 1) / kBandThreads;
  unsigned c[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const unsigned r = threadIdx.x + j * kBandThreads;
    c[j] = r < total ? __ldcg(&control->counts[r]) : 0u;
  }
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const unsigned r = threadIdx.x + j * kBandThreads;
    if (r < total) out[r] = c[j];
  }
  __syncthreads();
}

// One block of kBandThreads an SM: the reads need the 64 registers a thread.
template <class T, int kRanks>
__global__ __launch_bounds__(kBandThreads, 1) void band_one_launch(
    const T* __restrict__ x, std::size_t n, const __grid_constant__ Ranks<kRanks> ranks, int count, int sample_size,
    int plan_sample, int wanted, typename KeyTraits<T>::Key* sample, Control* control,
    unsigned* __restrict__ block_counts, unsigned* __restrict__ positions,
    typename KeyTraits<T>::Key* __restrict__ candidates, unsigned long long capacity, Result* result, T* answers,
    std::uint64_t* stamps) {
  using Key = typename KeyTraits<T>::Key;
  using L = Layout<T>;
  extern __shared__ __align__(16) unsigned char shared[];
  auto* wanted_ranks = reinterpret_cast<std::size_t*>(shared + L::ranks);
  auto* rank_range = reinterpret_cast<unsigned*>(shared + L::rank_range);
  auto* rank_within = reinterpret_cast<unsigned*>(shared + L::rank_within);
  auto* rank_start = reinterpret_cast<unsigned*>(shared + L::rank_start);
  auto* rank_length = reinterpret_cast<unsigned*>(shared + L::rank_length);
  auto* active_list = reinterpret_cast<unsigned*>(shared + L::active_list);
  auto* active_start = reinterpret_cast<unsigned*>(shared + L::active_start);
  auto* entries = reinterpret_cast<unsigned*>(shared + L::entries);
  auto* cursors = reinterpret_cast<unsigned*>(shared + L::cursors);
  auto* flags = shared + L::flags;
  unsigned char* work = shared + L::work;
  __shared__ typename cub::BlockScan<unsigned, kBandThreads>::TempStorage scan;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  int phase = 0;  // phase_stamps.cuh
  stamp_phase(stamps, phase++);

  // 1. The ranks into shared memory (the plan and step 4 read them there: read through a pointer
  // into the parameter, the plan's pass over them took ~6 us, H200), the sample's share, the
  // zeroed counters.
  if (static_cast<int>(threadIdx.x) < count) wanted_ranks[threadIdx.x] = ranks.k[threadIdx.x];
  for (int r = threadIdx.x; r < kOneLaunchRanges; r += kBandThreads) flags[r] = 0;
  const int per_block = (sample_size + gridDim.x - 1) / gridDim.x;
  for (int i = blockIdx.x * per_block + threadIdx.x; i < min(sample_size, (blockIdx.x + 1) * per_block);
       i += kBandThreads)
    sample[i] = KeyTraits<T>::to_key(x[seed::sample_index(std::uint64_t(i) + 1, n)]);
  for (int r = blockIdx.x * kBandThreads + threadIdx.x; r < kOneLaunchRanges; r += gridDim.x * kBandThreads)
    control->counts[r] = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) control->nans = 0;
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);

  // 2. The plan, in every block alike, from the sample's first plan_sample keys.
  const bands::PlanVerdict verdict = bands::plan_ranges<Key, kOneLaunchRanges>(
      sample, plan_sample, wanted, wanted_ranks, static_cast<std::size_t>(count), n, reinterpret_cast<unsigned*>(work),
      entries, kOneLaunchEdgesCompared, [&] { stamp_phase(stamps, phase++); });
  if (verdict.total > static_cast<unsigned>(kOneLaunchRanges)) return write_status(result, kDeclined, 0, 0);
  if (verdict.use_edges) return write_status(result, kUseEdges, 0, 0);
  const unsigned total = verdict.total;
  stamp_phase(stamps, phase++);

  // 3. The counting read.
  auto* counters = reinterpret_cast<unsigned*>(work);
  for (unsigned r = threadIdx.x; r < total; r += kBandThreads) counters[r] = 0;
  __syncthreads();
  unsigned nans = count_read(x, n, entries, counters);
  __syncthreads();
  stamp_phase(stamps, phase++);
  unsigned* row = block_counts + std::size_t(blockIdx.x) * kOneLaunchRanges;
  for (unsigned r = threadIdx.x; r < total; r += kBandThreads) {
    const unsigned c = counters[r];
    row[r] = c;
    if (c != 0) atomicAdd(&control->counts[r], c);
  }
  for (int offset = 16; offset > 0; offset /= 2) nans += __shfl_down_sync(0xffffffffu, nans, offset);
  if (threadIdx.x % 32 == 0 && nans != 0) atomicAdd(&control->nans, static_cast<unsigned long long>(nans));
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);
  const unsigned long long all_nans = __ldcg(&control->nans);
  if (all_nans != 0) return write_status(result, kNan, all_nans, 0);

  // 4. Each rank's range and segment, in every block alike.
  auto* before = reinterpret_cast<unsigned*>(work);
  load_counts(control, total, before);
  block_prefix_sums(total, [before](unsigned r) { return before[r]; }, before, scan);
  for (int i = threadIdx.x; i < count; i += kBandThreads) {
    const int r = multi::bucket_of_rank(before, static_cast<int>(total), wanted_ranks[i]);
    rank_range[i] = static_cast<unsigned>(r);
    rank_within[i] = static_cast<unsigned>(wanted_ranks[i] - before[r]);
    rank_length[i] = before[r + 1] - before[r];
    flags[r] = 1;
    cursors[r] = ~0u;  // for the owners' election below
  }
  __syncthreads();
  stamp_phase(stamps, phase++);
  const unsigned candidate_count = block_prefix_sums(
      total, [&](unsigned r) { return flags[r] ? before[r + 1] - before[r] : 0u; }, before, scan);
  if (candidate_count > capacity) return write_status(result, kDeclined, 0, candidate_count);
  // The active ranges in the order of their first ranks (the same order in every block): a range
  // holding several ranks is listed once.
  for (int i = threadIdx.x; i < count; i += kBandThreads) {
    rank_start[i] = before[rank_range[i]];
    atomicMin(&cursors[rank_range[i]], static_cast<unsigned>(i));
  }
  __syncthreads();
  const bool owner = static_cast<int>(threadIdx.x) < count && cursors[rank_range[threadIdx.x]] == threadIdx.x;
  unsigned slot = 0, actives = 0;
  cub::BlockScan<unsigned, kBandThreads>(scan).ExclusiveSum(owner ? 1u : 0u, slot, actives);
  if (owner) {
    active_list[slot] = rank_range[threadIdx.x];
    active_start[slot] = rank_start[threadIdx.x];
  }
  __syncthreads();
  // The block's cursor in each active range.
  place_active_ranges(block_counts, active_list, active_start, actives, positions);
  stamp_phase(stamps, phase++);
  grid.sync();
  for (unsigned e = threadIdx.x; e < actives; e += kBandThreads)
    cursors[active_list[e]] = __ldcg(&positions[std::size_t(e) * gridDim.x + blockIdx.x]);
  __syncthreads();  // the cursors set; `before` is dead (its bytes become the slices)
  stamp_phase(stamps, phase++);

  // 5. The compacting read.
  compact_read<T>(x, n, entries, flags, cursors, work, candidates);
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);

  // 6. A block per rank.
  if (blockIdx.x == 0) write_status(result, kAnswered, 0, candidate_count);
  auto& select = *reinterpret_cast<segments::SelectShared*>(work);
  for (int i = blockIdx.x; i < count; i += gridDim.x) {
    const unsigned r = rank_range[i];
    const Segment<Key> segment{candidates + rank_start[i], rank_length[i], bands::range_low<Key>(r, entries),
                               segments::bit_width<Key>(bands::range_span<Key>(r, entries))};
    const Key known = segments::select_in_segment(segment, rank_within[i], nullptr, 0, select);
    if (threadIdx.x == 0) answers[i] = KeyTraits<T>::from_key(segment.low + known);
  }
  stamp_phase(stamps, phase);
}

// Whether the one launch takes the call: below band_one_launch_below values, and with more than
// kFewRanks ranks below half that. H200 (bench/results/selection_band_one_launch_h200_2026-12-03,
// call d), 2^26 floats: 11 and 101 ranks 0.22 / 0.26 ms in one launch against 0.27 / 0.29 in the
// separate kernels, 1001 ranks 0.69 against 0.49 (its table of ~4096 ranges leaves twice the
// candidates of their ~8192); at 2^24 1001 ranks 0.25 either way. Counts are 32-bit: n < 2^31.
bool one_launch_takes(std::size_t n, std::size_t count, const SampledMultiParams& params) {
  const std::size_t below = params.band_one_launch_below;
  return n < (std::size_t{1} << 31) && n < below && (count <= static_cast<std::size_t>(kFewRanks) || n < below / 2);
}

// What one call needs besides the ranks.
template <class T>
struct LaunchArgs {
  using Key = typename KeyTraits<T>::Key;
  const T* x;
  std::size_t n;
  int count, sample_size, plan_sample, wanted;
  Key* sample;
  Control* control;
  unsigned* block_counts;
  unsigned* positions;
  Key* candidates;
  unsigned long long capacity;
  Result* result;
  T* answers;
};

// The kernel with room for kRanks ranks in its parameter; false where the grid cannot be
// resident (the separate kernels answer).
template <class T, int kRanks>
bool launch(LaunchArgs<T> a, const std::size_t* ks, unsigned grid, std::size_t bytes, cudaStream_t stream) {
  Ranks<kRanks> ranks{};
  std::copy(ks, ks + a.count, ranks.k);
  std::uint64_t* stamps = phase_stamps();
  void* args[] = {&a.x,           &a.n,         &ranks,     &a.count,      &a.sample_size,
                  &a.plan_sample, &a.wanted,    &a.sample,  &a.control,    &a.block_counts,
                  &a.positions,   &a.candidates, &a.capacity, &a.result, &a.answers, &stamps};
  return launch_cooperative(reinterpret_cast<const void*>(band_one_launch<T, kRanks>), grid, kBandThreads, args,
                            bytes, stream);
}

// Blocks an SM both kernels of a type hold (the same shared memory and registers; 0: none).
template <class T>
int one_launch_blocks_per_sm() {
  static const int blocks = [] {
    constexpr std::size_t bytes = Layout<T>::bytes;
    detail::allow_dynamic_shared_memory(band_one_launch<T, kFewRanks>, bytes);
    detail::allow_dynamic_shared_memory(band_one_launch<T, kOneLaunchMaxRanks>, bytes);
    return std::min(cooperative_blocks_per_sm(band_one_launch<T, kFewRanks>, kBandThreads, bytes),
                    cooperative_blocks_per_sm(band_one_launch<T, kOneLaunchMaxRanks>, kBandThreads, bytes));
  }();
  return blocks;
}

}  // namespace

template <class T>
std::optional<BandOutcome> band_multi_select_one_launch(const T* d_values, std::size_t n, const std::size_t* ks,
                                                        std::size_t count, T* out, const SampledMultiParams& params,
                                                        Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  if (count == 0 || count > static_cast<std::size_t>(kOneLaunchMaxRanks) || !one_launch_takes(n, count, params))
    return std::nullopt;
  const int blocks_per_sm = one_launch_blocks_per_sm<T>();
  if (blocks_per_sm == 0) return std::nullopt;
  const unsigned grid = static_cast<unsigned>(std::min(multiprocessor_count() * blocks_per_sm, kMostBlocks));
  LaunchArgs<T> a{};
  a.x = d_values;
  a.n = n;
  a.count = static_cast<int>(count);
  // The sample drawn whole (where the edges answer instead, they sort it), planned from its
  // first kOneLaunchPlanSample keys: each block plans alone.
  a.sample_size = std::max(1, params.band_sample_size);
  a.plan_sample = std::min(a.sample_size, kOneLaunchPlanSample);
  a.wanted = std::clamp(params.band_ranges, 1, kOneLaunchWanted);
  // The candidates of a rank: its range's values, ~n / wanted where the ranges split as planned.
  const double max_candidates = params.max_candidate_fraction * static_cast<double>(n);
  a.capacity = multi::initial_capacity(params.initial_capacity < 0 ? -1 : params.initial_capacity, 2 * count, n,
                                       a.wanted, max_candidates);
  a.sample = workspace.device_as<Key>(kSampledMultiSample, a.sample_size);
  a.control = workspace.device_as<Control>(kBandMultiPlan, 1);
  a.block_counts = workspace.device_as<unsigned>(kSampledMultiBlockCounts, std::size_t{grid} * kOneLaunchRanges);
  a.candidates = workspace.device_as<Key>(kSampledMultiCandidates, std::max<unsigned long long>(a.capacity, 1));
  a.positions = workspace.device_as<unsigned>(kSampledMultiBlockOffsets, std::size_t{grid} * count);
  const std::size_t answers_at = (sizeof(Result) + alignof(T) - 1) / alignof(T) * alignof(T);
  auto* h_back = workspace.host_as<unsigned char>(kBandMultiStatus, answers_at + count * sizeof(T));
  a.result = reinterpret_cast<Result*>(h_back);
  a.answers = reinterpret_cast<T*>(h_back + answers_at);
  *a.result = Result{};

  constexpr std::size_t bytes = Layout<T>::bytes;
  const bool launched = count <= static_cast<std::size_t>(kFewRanks)
                            ? launch<T, kFewRanks>(a, ks, grid, bytes, stream)
                            : launch<T, kOneLaunchMaxRanks>(a, ks, grid, bytes, stream);
  if (!launched) return std::nullopt;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const Result got = *a.result;
  switch (got.status) {
    case kAnswered:
      std::copy(a.answers, a.answers + count, out);
      return BandOutcome::answered;
    case kNan:
      return BandOutcome::nan;
    case kUseEdges:
      return BandOutcome::use_edges;
    default:
      return std::nullopt;
  }
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                               \
  template std::optional<BandOutcome> band_multi_select_one_launch<T>(const T*, std::size_t, const std::size_t*, \
                                                                      std::size_t, T*, const SampledMultiParams&, \
                                                                      Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
