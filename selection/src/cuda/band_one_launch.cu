// Band-table multiselection in one cooperative launch (issue 11: below ~2^26 values the separate
// kernels of band_multi_select.cu are bound by their seven launches and one-block steps, not by
// their two reads: 101 percentiles of 2^24 floats took 0.138 ms there, 5.7 x one read). The same
// plan, reads and finish (band_passes.cuh, segment_select.cuh), and so the same answers:
//  1. Every block draws its share of the sample (the positions multi::draw_sample draws, into the
//     same slot, so that the edges can take it over) and zeroes its share of the range counters;
//     the ranks come in the kernel's parameter. grid.sync().
//  2. Every block plans the ranges from the whole sample alike (bands::plan_ranges), so all
//     blocks hold the same table with no further wait.
//  3. The counting read (warp-aggregated atomics where the sample shows a range holding a long
//     run: ties would serialise one counter): a block's counts added to the global ones and kept
//     per block. grid.sync().
//  4. Every block alike: the prefix sums of the range counts in its shared memory, each rank's
//     range. Ranges crowded far beyond the plan (ties, narrow spans) are split into cells by one
//     more counting read (band_refine.cuh; grid.sync()). A rank whose range or cell is one key
//     wide has its answer; the others' ranges and cells are copied: their segments, then the
//     block's own cursor in each (the earlier blocks' counts of it added up).
//  5. The compacting read at those cursors (none where nothing is copied). grid.sync().
//  6. A block per rank selects it within its segment and writes the answer to pinned host
//     memory; block 0 writes the status.
// Per call: 1 cooperative launch, 1 host synchronisation, no copies, no memset (the separate
// kernels: 7 launches, 2 copies). Declined (the separate kernels answer): more than
// kOneLaunchMaxRanks ranks, a table of more than kOneLaunchRanges ranges, more candidates than
// its buffer, a device without cooperative launch. The edges answer where more than
// bands::kMaxRefined ranges are crowded or their cells do not fit.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>

#include "band_passes.cuh"
#include "band_ranges.hpp"
#include "band_refine.cuh"
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
// A rank's range is crowded, and split by the refinement (band_refine.cuh), where it holds more
// than n / kCrowdedShare values and more than one key: 8 x the ~n / 4096 the table plans, which
// smooth inputs stay below (a band's ranges share its values within ~2 x) and ties and narrow
// spans exceed by far (the bucket killer n / 4, 16 distinct values n / 16).
constexpr std::size_t kCrowdedShare = 512;
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
// flags of step 4-5, the refinement's slots, then one region each step uses in turn (the plan's
// tally, the block's counters, the prefix sums, the compaction's slices, the finish's digit
// counts).
template <class T>
struct Layout {
  using Key = typename KeyTraits<T>::Key;
  static constexpr std::size_t align(std::size_t bytes) { return (bytes + 15) / 16 * 16; }
  static constexpr std::size_t ranks = 0;
  static constexpr std::size_t rank_cell = ranks + align(sizeof(std::size_t) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_low = rank_cell + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_top = rank_low + align(sizeof(Key) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_within = rank_top + align(sizeof(int) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_start = rank_within + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t rank_length = rank_start + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t active_list = rank_length + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t active_start = active_list + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t entries = active_start + align(sizeof(unsigned) * kOneLaunchMaxRanks);
  static constexpr std::size_t cursors = entries + align(sizeof(unsigned) * bands::band_count<Key>());
  static constexpr std::size_t flags = cursors + align(sizeof(unsigned) * kOneLaunchRanges);
  static constexpr std::size_t slot_of = flags + align(kOneLaunchRanges);
  static constexpr std::size_t slots = slot_of + align(kOneLaunchRanges);
  static constexpr std::size_t tallies = slots + align(sizeof(bands::RefineSlot<Key>) * bands::kMaxRefined);
  static constexpr std::size_t work = tallies + align(3 * sizeof(unsigned) * bands::kMaxRefined);
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
// Where the sample shows long runs (RangeCells: a warp's values of one range add once) or with
// split ranges (RefinedCells): every value counted in its cell from cell `from` on (0: the
// counting read; the first new cell: the refinement's read).
template <class T, class Cells>
__device__ __noinline__ unsigned count_read_cells(const T* __restrict__ x, std::size_t n, Cells cells, unsigned from,
                                                  unsigned* counters) {
  return bands::count_cells_aggregated(x, n, cells, from, counters);
}
template <class T, class Cells>
__device__ __noinline__ void compact_read(const T* __restrict__ x, std::size_t n, Cells cells,
                                          const unsigned char* flags, unsigned* cursors, unsigned char* stage,
                                          typename KeyTraits<T>::Key* __restrict__ candidates) {
  bands::compact_active_ranges<T>(x, n, cells, bands::ByteKeep{flags}, cursors, stage, candidates);
}

// A block's counts of cells [first, end) into its row of the per-block counts (the cursors'
// source) and added to the global ones.
__device__ void publish_counts(const unsigned* counters, unsigned first, unsigned end, unsigned* row,
                               Control* control) {
  for (unsigned c = first + threadIdx.x; c < end; c += kBandThreads) {
    const unsigned k = counters[c];
    row[c] = k;
    if (k != 0) atomicAdd(&control->counts[c], k);
  }
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

// The block's views of its dynamic shared memory (Layout).
template <class T>
struct SharedViews {
  using Key = typename KeyTraits<T>::Key;
  using L = Layout<T>;
  explicit __device__ SharedViews(unsigned char* shared)
      : ranks(reinterpret_cast<std::size_t*>(shared + L::ranks)),
        rank_cell(reinterpret_cast<unsigned*>(shared + L::rank_cell)),
        rank_low(reinterpret_cast<Key*>(shared + L::rank_low)),
        rank_top(reinterpret_cast<int*>(shared + L::rank_top)),
        rank_within(reinterpret_cast<unsigned*>(shared + L::rank_within)),
        rank_start(reinterpret_cast<unsigned*>(shared + L::rank_start)),
        rank_length(reinterpret_cast<unsigned*>(shared + L::rank_length)),
        active_list(reinterpret_cast<unsigned*>(shared + L::active_list)),
        active_start(reinterpret_cast<unsigned*>(shared + L::active_start)),
        entries(reinterpret_cast<unsigned*>(shared + L::entries)),
        cursors(reinterpret_cast<unsigned*>(shared + L::cursors)),
        flags(shared + L::flags),
        slot_of(shared + L::slot_of),
        slots(reinterpret_cast<bands::RefineSlot<Key>*>(shared + L::slots)),
        tallies{reinterpret_cast<unsigned*>(shared + L::tallies),
                reinterpret_cast<unsigned*>(shared + L::tallies) + bands::kMaxRefined,
                reinterpret_cast<unsigned*>(shared + L::tallies) + 2 * bands::kMaxRefined},
        work(shared + L::work) {}
  std::size_t* ranks;     // the wanted ranks
  unsigned* rank_cell;    // each rank's range, or its cell where the range is split
  Key* rank_low;          // the cell's smallest key
  int* rank_top;          // the bit width of the cell's keys minus rank_low (0: one key, the answer)
  unsigned* rank_within;  // the rank within its cell
  unsigned* rank_start;   // its segment's start among the candidates
  unsigned* rank_length;  // its cell's values
  unsigned* active_list;  // the cells copied, in the order of their first ranks
  unsigned* active_start;
  unsigned* entries;  // the band table
  unsigned* cursors;
  unsigned char* flags;    // 1: the cell is copied
  unsigned char* slot_of;  // per range: 0, or 1 + its refinement slot
  bands::RefineSlot<Key>* slots;
  bands::SplitTallies tallies;
  unsigned char* work;
};

using BlockScanTemp = typename cub::BlockScan<unsigned, kBandThreads>::TempStorage;

// Opens refinement slot `slot` for range r.
template <class T>
__device__ void open_slot(unsigned r, int slot, const SharedViews<T>& v) {
  using Key = typename KeyTraits<T>::Key;
  v.slot_of[r] = static_cast<unsigned char>(slot + 1);
  v.slots[slot].range = r;
  v.slots[slot].low = bands::range_low<Key>(r, v.entries);
  v.slots[slot].range_shift = bands::band_shift(v.entries[bands::band_of_range<Key>(r, v.entries)]);
}

// Step 2's split from the sample (band_refine.cuh), where the sample shows long runs: the ranges
// holding more than plan_sample / kCrowdedShare of its keys and more than one key are split
// before the counting read, which then counts their cells (one read fewer than the refinement
// after it, and a crowded range's values spread over its cells' counters). `sampled_before`: the
// plan's prefix sums of the sampled keys per range. Every block alike. Returns the cells in all
// (`total` where none is split, more than kMaxRefined would be or their cells do not fit) and
// the slots opened in `slot_count`.
template <class T>
__device__ unsigned split_sampled_crowds(unsigned total, const unsigned* sampled_before,
                                         const typename KeyTraits<T>::Key* sample, int plan_sample,
                                         const SharedViews<T>& v, BlockScanTemp& scan, int& slot_count) {
  using Key = typename KeyTraits<T>::Key;
  const unsigned crowd = static_cast<unsigned>(plan_sample) / kCrowdedShare;
  auto crowded = [&](unsigned r) {
    return sampled_before[r + 1] - sampled_before[r] > crowd && bands::range_span<Key>(r, v.entries) != 0;
  };
  unsigned mine = 0;
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    const unsigned r = threadIdx.x * kScanItems + j;
    mine += r < total && crowded(r);
  }
  unsigned first = 0, opened = 0;
  cub::BlockScan<unsigned, kBandThreads>(scan).ExclusiveSum(mine, first, opened);
  slot_count = 0;
  if (opened == 0 || opened > static_cast<unsigned>(bands::kMaxRefined)) return total;
  for (int j = 0; j < kScanItems; ++j) {
    const unsigned r = threadIdx.x * kScanItems + j;
    if (r < total && crowded(r)) open_slot(r, static_cast<int>(first++), v);
  }
  __syncthreads();
  const unsigned added = bands::choose_splits(sample, plan_sample, v.entries, v.slot_of, 0, static_cast<int>(opened),
                                              v.slots, v.tallies, total, kOneLaunchRanges - total, scan);
  if (added == 0) {
    for (unsigned s = threadIdx.x; s < opened; s += kBandThreads) v.slot_of[v.slots[s].range] = 0;
    __syncthreads();
    return total;
  }
  slot_count = static_cast<int>(opened);
  return total + added;
}

// After a counting read that counted split ranges in their cells: each split range's count, the
// sum of its cells' (a warp a slot), added to the global counts, so that the ranks are located
// among the ranges first.
template <class Key>
__device__ void add_split_range_counts(const bands::RefineSlot<Key>* slots, int slot_count, const unsigned* counters,
                                       Control* control) {
  const unsigned lane = threadIdx.x % 32;
  for (int s = threadIdx.x / 32; s < slot_count; s += kBandThreads / 32) {
    const unsigned first = slots[s].first_cell, end = first + bands::refined_cells(slots[s]);
    unsigned sum = 0;
    for (unsigned c = first + lane; c < end; c += 32) sum += counters[c];
    sum = __reduce_add_sync(0xffffffffu, sum);
    if (lane == 0 && sum != 0) atomicAdd(&control->counts[slots[s].range], sum);
  }
}

// Step 4's refinement (band_refine.cuh), in every block alike: the crowded ranges of the ranks
// that step 2 did not split get slots (after its `split_slots`, in the order of their first
// ranks) and splits, and one more read counts their cells; then the ranks of every split range
// move to their cells. The work region then holds the prefix sums of all cells' counts. `cells`:
// the table's ranges and step 2's cells. Returns the cells in all, 0 where the splits do not fit
// (the edges answer).
template <class T>
__device__ unsigned refine_crowded_ranges(const T* __restrict__ x, std::size_t n, int count, unsigned total,
                                          unsigned cells, int split_slots, const typename KeyTraits<T>::Key* sample,
                                          int plan_sample, Control* control, unsigned* row, const SharedViews<T>& v,
                                          BlockScanTemp& scan, cooperative_groups::grid_group& grid) {
  using Key = typename KeyTraits<T>::Key;
  const unsigned long long crowded_above = n / kCrowdedShare;
  auto crowded = [&](int i) {
    return v.slot_of[v.rank_cell[i]] == 0 && v.rank_length[i] > crowded_above && v.rank_top[i] != 0;
  };
  for (int i = threadIdx.x; i < count; i += kBandThreads)
    if (crowded(i)) atomicMin(&v.cursors[v.rank_cell[i]], static_cast<unsigned>(i));
  __syncthreads();
  const int t = static_cast<int>(threadIdx.x);
  const bool owner = t < count && crowded(t) && v.cursors[v.rank_cell[t]] == static_cast<unsigned>(t);
  unsigned slot = 0, opened = 0;
  cub::BlockScan<unsigned, kBandThreads>(scan).ExclusiveSum(owner ? 1u : 0u, slot, opened);
  if (split_slots + opened > static_cast<unsigned>(bands::kMaxRefined)) return 0;
  if (owner) open_slot(v.rank_cell[t], split_slots + static_cast<int>(slot), v);
  __syncthreads();
  auto* counters = reinterpret_cast<unsigned*>(v.work);
  if (opened != 0) {
    const unsigned added = bands::choose_splits(sample, plan_sample, v.entries, v.slot_of, split_slots,
                                                static_cast<int>(opened), v.slots, v.tallies, cells,
                                                kOneLaunchRanges - cells, scan);
    if (added == 0) return 0;
    for (unsigned c = cells + threadIdx.x; c < cells + added; c += kBandThreads) counters[c] = 0;
    __syncthreads();
    count_read_cells<T>(x, n, bands::RefinedCells<Key>{v.entries, v.slot_of, v.slots}, cells, counters);
    __syncthreads();
    publish_counts(counters, cells, cells + added, row, control);
    grid.sync();
    cells += added;
  }
  unsigned* before = counters;
  load_counts(control, cells, before);
  block_prefix_sums(cells, [before](unsigned c) { return before[c]; }, before, scan);
  for (int i = t; i < count; i += kBandThreads) {
    const unsigned r = v.rank_cell[i];
    if (r >= total || v.slot_of[r] == 0) continue;
    const bands::RefineSlot<Key>& split = v.slots[v.slot_of[r] - 1];
    const unsigned first = split.first_cell;
    const unsigned at = before[first] + v.rank_within[i];
    const unsigned c = first + static_cast<unsigned>(multi::bucket_of_rank(
                                   before + first, static_cast<int>(bands::refined_cells(split)), at));
    v.rank_cell[i] = c;
    v.rank_within[i] = at - before[c];
    v.rank_length[i] = before[c + 1] - before[c];
    const bands::CellBounds<Key> bounds = bands::refined_cell_bounds(c, split);
    v.rank_low[i] = bounds.low;
    v.rank_top[i] = segments::bit_width<Key>(bounds.span);
  }
  __syncthreads();
  return cells;
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
  extern __shared__ __align__(16) unsigned char shared[];
  const SharedViews<T> v(shared);
  __shared__ BlockScanTemp scan;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  int phase = 0;  // phase_stamps.cuh
  stamp_phase(stamps, phase++);

  // 1. The ranks into shared memory (the plan and step 4 read them there: read through a pointer
  // into the parameter, the plan's pass over them took ~6 us, H200), the sample's share, the
  // zeroed counters.
  if (static_cast<int>(threadIdx.x) < count) v.ranks[threadIdx.x] = ranks.k[threadIdx.x];
  for (int r = threadIdx.x; r < kOneLaunchRanges; r += kBandThreads) v.flags[r] = 0, v.slot_of[r] = 0;
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

  // 2. The plan, in every block alike, from the sample's first plan_sample keys (no verdict on the
  // ranks: crowded ranges are refined in step 4).
  const bands::PlanVerdict verdict = bands::plan_ranges<Key, kOneLaunchRanges>(
      sample, plan_sample, wanted, v.ranks, static_cast<std::size_t>(count), n, reinterpret_cast<unsigned*>(v.work),
      v.entries, bands::kNoRankVerdict, [&] { stamp_phase(stamps, phase++); });
  if (verdict.total > static_cast<unsigned>(kOneLaunchRanges)) return write_status(result, kDeclined, 0, 0);
  const unsigned total = verdict.total;
  // Long runs in the sample: its crowded ranges split now (band_refine.cuh).
  int split_slots = 0;
  unsigned cells = total;
  if (verdict.long_runs)
    cells = split_sampled_crowds<T>(total, reinterpret_cast<const unsigned*>(v.work), sample, plan_sample, v, scan,
                                    split_slots);
  stamp_phase(stamps, phase++);

  // 3. The counting read.
  auto* counters = reinterpret_cast<unsigned*>(v.work);
  for (unsigned r = threadIdx.x; r < cells; r += kBandThreads) counters[r] = 0;
  __syncthreads();
  unsigned nans = split_slots != 0
                      ? count_read_cells<T>(x, n, bands::RefinedCells<Key>{v.entries, v.slot_of, v.slots}, 0, counters)
                  : verdict.long_runs ? count_read_cells<T>(x, n, bands::RangeCells{v.entries}, 0, counters)
                                      : count_read(x, n, v.entries, counters);
  __syncthreads();
  stamp_phase(stamps, phase++);
  unsigned* row = block_counts + std::size_t(blockIdx.x) * kOneLaunchRanges;
  publish_counts(counters, 0, cells, row, control);
  add_split_range_counts(v.slots, split_slots, counters, control);
  add_warp_sum(nans, &control->nans);
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);
  const unsigned long long all_nans = __ldcg(&control->nans);
  if (all_nans != 0) return write_status(result, kNan, all_nans, 0);

  // 4. Each rank's range, in every block alike; crowded ranges split into cells (one more read).
  auto* before = reinterpret_cast<unsigned*>(v.work);
  load_counts(control, total, before);
  block_prefix_sums(total, [before](unsigned r) { return before[r]; }, before, scan);
  bool crowded = false;  // or in a range split in step 2
  for (int i = threadIdx.x; i < count; i += kBandThreads) {
    const int r = multi::bucket_of_rank(before, static_cast<int>(total), v.ranks[i]);
    v.rank_cell[i] = static_cast<unsigned>(r);
    v.rank_within[i] = static_cast<unsigned>(v.ranks[i] - before[r]);
    v.rank_length[i] = before[r + 1] - before[r];
    v.rank_low[i] = bands::range_low<Key>(static_cast<unsigned>(r), v.entries);
    v.rank_top[i] = segments::bit_width<Key>(bands::range_span<Key>(static_cast<unsigned>(r), v.entries));
    v.cursors[r] = ~0u;  // for the elections of refine_crowded_ranges
    crowded = crowded || (v.rank_length[i] > n / kCrowdedShare && v.rank_top[i] != 0) || v.slot_of[r] != 0;
  }
  if (__syncthreads_or(crowded)) {
    cells = refine_crowded_ranges<T>(x, n, count, total, cells, split_slots, sample, plan_sample, control, row, v,
                                     scan, grid);
    if (cells == 0) return write_status(result, kUseEdges, 0, 0);
  }
  // A cell one key wide answers its ranks at once; the others are copied.
  for (int i = threadIdx.x; i < count; i += kBandThreads)
    if (v.rank_top[i] != 0) v.flags[v.rank_cell[i]] = 1, v.cursors[v.rank_cell[i]] = ~0u;
  __syncthreads();
  stamp_phase(stamps, phase++);
  const unsigned candidate_count = block_prefix_sums(
      cells, [&](unsigned c) { return v.flags[c] ? before[c + 1] - before[c] : 0u; }, before, scan);
  if (candidate_count > capacity) return write_status(result, kDeclined, 0, candidate_count);
  // The copied cells in the order of their first ranks (the same order in every block): a cell
  // holding several ranks is listed once.
  for (int i = threadIdx.x; i < count; i += kBandThreads) {
    if (v.rank_top[i] == 0) continue;
    v.rank_start[i] = before[v.rank_cell[i]];
    atomicMin(&v.cursors[v.rank_cell[i]], static_cast<unsigned>(i));
  }
  __syncthreads();
  const int t = static_cast<int>(threadIdx.x);
  const bool owner = t < count && v.rank_top[t] != 0 && v.cursors[v.rank_cell[t]] == static_cast<unsigned>(t);
  unsigned slot = 0, actives = 0;
  cub::BlockScan<unsigned, kBandThreads>(scan).ExclusiveSum(owner ? 1u : 0u, slot, actives);
  if (owner) {
    v.active_list[slot] = v.rank_cell[t];
    v.active_start[slot] = v.rank_start[t];
  }
  __syncthreads();
  if (actives != 0) {  // the same in every block
    // The block's cursor in each copied cell.
    place_active_ranges(block_counts, v.active_list, v.active_start, actives, positions);
    stamp_phase(stamps, phase++);
    grid.sync();
    for (unsigned e = threadIdx.x; e < actives; e += kBandThreads)
      v.cursors[v.active_list[e]] = __ldcg(&positions[std::size_t(e) * gridDim.x + blockIdx.x]);
    __syncthreads();  // the cursors set; `before` is dead (its bytes become the slices)
    stamp_phase(stamps, phase++);

    // 5. The compacting read.
    if (cells != total)
      compact_read<T>(x, n, bands::RefinedCells<Key>{v.entries, v.slot_of, v.slots}, v.flags, v.cursors, v.work,
                      candidates);
    else
      compact_read<T>(x, n, bands::RangeCells{v.entries}, v.flags, v.cursors, v.work, candidates);
    stamp_phase(stamps, phase++);
    grid.sync();
    stamp_phase(stamps, phase++);
  }

  // 6. A block per rank.
  if (blockIdx.x == 0) write_status(result, kAnswered, 0, candidate_count);
  auto& select = *reinterpret_cast<segments::SelectShared*>(v.work);
  for (int i = blockIdx.x; i < count; i += gridDim.x) {
    if (v.rank_top[i] == 0) {  // block-uniform
      if (threadIdx.x == 0) answers[i] = KeyTraits<T>::from_key(v.rank_low[i]);
      continue;
    }
    const Segment<Key> segment{candidates + v.rank_start[i], v.rank_length[i], v.rank_low[i], v.rank_top[i]};
    const Key known = segments::select_in_segment(segment, v.rank_within[i], nullptr, 0, select);
    if (threadIdx.x == 0) answers[i] = KeyTraits<T>::from_key(segment.low + known);
  }
  stamp_phase(stamps, phase);
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

// Whether the one launch takes the call: below band_one_launch_below values, and with more than
// kFewRanks ranks below half that. H200 (bench/results/selection_band_one_launch_h200_2026-12-03,
// call d), 2^26 floats: 11 and 101 ranks 0.22 / 0.26 ms in one launch against 0.27 / 0.29 in the
// separate kernels, 1001 ranks 0.69 against 0.49 (its table of ~4096 ranges leaves twice the
// candidates of their ~8192); at 2^24 1001 ranks 0.25 either way. Counts are 32-bit: n < 2^31.
bool band_one_launch_takes(std::size_t n, std::size_t count, const SampledMultiParams& params) {
  const std::size_t below = params.band_one_launch_below;
  return n < (std::size_t{1} << 31) && n < below && (count <= static_cast<std::size_t>(kFewRanks) || n < below / 2);
}

template <class T>
std::optional<BandOutcome> band_multi_select_one_launch(const T* d_values, std::size_t n, const std::size_t* ks,
                                                        std::size_t count, T* out, const SampledMultiParams& params,
                                                        Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  if (count == 0 || count > static_cast<std::size_t>(kOneLaunchMaxRanks) || !band_one_launch_takes(n, count, params))
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
