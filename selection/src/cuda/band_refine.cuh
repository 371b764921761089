#pragma once
// Internal: the band one launch's refinement of crowded ranges (band_one_launch.cu, issue 11's
// adversarial inputs). Where a wanted rank's range holds far more values than the table planned
// (ties; a span narrower than its band, such as the benchmark's bucket killer: n - 65 values in
// 2^-32 [1, 1 + 2^-10), all in four of the band's ranges), copying the range would copy most of
// the input, and the edges that answered such calls before cost ~0.1-0.2 ms more on the H200 (8 x
// the uniform time for the bucket killer at 2^26). Instead one more counting read splits each
// crowded range into cells, numbered after the table's ranges (a slot's cells together). Where
// the sample shows long runs (a range holding more than 1/64 of it), its ranges holding more
// than 1/512 of it are split before the first counting read, which then counts their cells
// itself (no read more):
//  - a tie split where most of the range's sampled keys are one key t: cells key < t, t, key > t;
//  - an even split otherwise: 2^bits cells of equal key width (the range's low key bits).
// (The cells' arithmetic: band_cells.hpp.)
// A rank then lands in a cell one key wide (the answer is that key: nothing is copied) or in a
// small cell, copied as any range is. Device code: include from .cu only.
#include <cub/block/block_scan.cuh>

#include "band_cells.hpp"
#include "band_passes.cuh"
#include "band_ranges.hpp"

namespace robustfit::selection::cuda::detail::bands {

// Crowded ranges split at most: a byte a range names its slot (0: not split).
constexpr int kMaxRefined = 255;

// A key's cell: its range, or the range's cell where the range is split.
template <class Key>
struct RefinedCells {
  const unsigned* entries;
  const unsigned char* slot_of;  // per range: 0, or 1 + its slot
  const RefineSlot<Key>* slots;
  __device__ __forceinline__ unsigned operator()(Key key) const {
    const unsigned r = range_of(key, entries);
    const unsigned s = slot_of[r];
    return s == 0 ? r : refined_cell(key, slots[s - 1]);
  }
};

// Per slot, while the splits are chosen (shared, kMaxRefined each).
struct SplitTallies {
  unsigned* first;    // the smallest sample index of the slot's sampled keys
  unsigned* sampled;  // the slot's sampled keys
  unsigned* equal;    // those equal to the first
};

// Chooses the split of slots [first_slot, first_slot + slot_count) from the plan's sample and
// numbers their cells from `first_cell` on, `room` cells at most; every thread of the block calls
// it, each block alike (the same sample, the same answer). The caller has set their .range, .low
// and .range_shift and named them in slot_of. Returns the cells added, 0 where they do not fit.
template <class Key>
__device__ unsigned choose_splits(const Key* __restrict__ sample, int sample_size, const unsigned* entries,
                                  const unsigned char* slot_of, int first_slot, int slot_count,
                                  RefineSlot<Key>* slots, SplitTallies tallies, unsigned first_cell, unsigned room,
                                  typename cub::BlockScan<unsigned, kBandThreads>::TempStorage& scan) {
  const unsigned lane = threadIdx.x % 32;
  const int end_slot = first_slot + slot_count;
  for (int s = first_slot + threadIdx.x; s < end_slot; s += blockDim.x)
    tallies.first[s] = ~0u, tallies.sampled[s] = 0, tallies.equal[s] = 0;
  __syncthreads();
  // The slot of a sampled key among those chosen here, or -1.
  auto chosen_slot = [&](Key key) {
    const int s = static_cast<int>(slot_of[range_of(key, entries)]) - 1;
    return s >= first_slot ? s : -1;
  };
  // A warp's keys of one slot add once: a tie puts most of the sample in one slot. Within a
  // batch a warp's sample indices rise with the lane, so the group's first lane holds its first.
  for_each_sample_key_at(sample, sample_size, [&](Key key, int index) {
    const int s = chosen_slot(key);
    if (s < 0) return;
    const unsigned peers = __match_any_sync(__activemask(), s);
    if (lane == static_cast<unsigned>(__ffs(peers) - 1)) {
      atomicAdd(&tallies.sampled[s], __popc(peers));
      atomicMin(&tallies.first[s], static_cast<unsigned>(index));
    }
  });
  __syncthreads();
  for (int s = first_slot + threadIdx.x; s < end_slot; s += blockDim.x)
    slots[s].tie = tallies.sampled[s] != 0 ? sample[tallies.first[s]] : slots[s].low;
  __syncthreads();
  for_each_sample_key_at(sample, sample_size, [&](Key key, int) {
    const int s = chosen_slot(key);
    if (s < 0) return;
    const unsigned same = __ballot_sync(__activemask(), key == slots[s].tie);
    const unsigned peers = __match_any_sync(__activemask(), s);
    if (lane == static_cast<unsigned>(__ffs(peers) - 1)) atomicAdd(&tallies.equal[s], __popc(same & peers));
  });
  __syncthreads();
  // Most sampled keys one key: the tie split (3 cells); the others share what is left evenly.
  const int mine = first_slot + static_cast<int>(threadIdx.x);
  const bool tie = mine < end_slot && 2 * tallies.equal[mine] > tallies.sampled[mine];
  const unsigned ties = static_cast<unsigned>(__syncthreads_count(tie));
  const int cell_bits = even_split_bits(room, ties, static_cast<unsigned>(slot_count) - ties);
  if (cell_bits < 0) return 0;
  unsigned cells = 0;
  if (mine < end_slot) {
    RefineSlot<Key>& slot = slots[mine];
    slot.cell_shift = tie ? kTieSplit : slot.range_shift - min(slot.range_shift, cell_bits);
    cells = refined_cells(slot);
  }
  unsigned first = 0, added = 0;
  cub::BlockScan<unsigned, kBandThreads>(scan).ExclusiveSum(cells, first, added);
  if (mine < end_slot) slots[mine].first_cell = first_cell + first;
  __syncthreads();
  return added;
}

}  // namespace robustfit::selection::cuda::detail::bands
