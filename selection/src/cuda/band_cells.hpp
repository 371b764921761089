#pragma once
// Cell arithmetic of the band one launch's split of crowded ranges (band_refine.cuh), for host and
// device, on order-preserving unsigned keys: plain C++ with no CUDA header, so that the CPU tests
// check it against brute force. A split range spans 2^range_shift keys from `low` (ranges are
// aligned: low's bits below range_shift are 0); its cells are numbered from first_cell on:
//  - tie split: first_cell (keys < tie), first_cell + 1 (tie), first_cell + 2 (keys > tie);
//  - even split: 2^(range_shift - cell_shift) cells of 2^cell_shift keys each, in key order.
#include "host_device.hpp"

namespace robustfit::selection::cuda::detail::bands {

constexpr int kTieSplit = -1;

// How one crowded range is split.
template <class Key>
struct RefineSlot {
  unsigned range;       // the range split
  Key low;              // the range's smallest key
  Key tie;              // the tie split's key (one of the range's sampled keys)
  unsigned first_cell;  // the slot's first cell
  int range_shift;      // the range spans 2^range_shift keys
  int cell_shift;       // the even split's cells span 2^cell_shift keys; kTieSplit: the tie split
};

template <class Key>
ROBUSTFIT_HOST_DEVICE unsigned refined_cells(const RefineSlot<Key>& s) {
  return s.cell_shift == kTieSplit ? 3u : 1u << (s.range_shift - s.cell_shift);
}

// The cell of a key of the slot's range.
template <class Key>
ROBUSTFIT_HOST_DEVICE unsigned refined_cell(Key key, const RefineSlot<Key>& s) {
  if (s.cell_shift == kTieSplit) return s.first_cell + (key >= s.tie) + (key > s.tie);
  return s.first_cell + static_cast<unsigned>((key - s.low) >> s.cell_shift);
}

// A cell's smallest key and its width in keys minus one (only asked of cells holding keys: the
// tie split's lower cell is empty where the tie is the range's smallest key, its upper cell where
// it is the largest).
template <class Key>
struct CellBounds {
  Key low, span;
};
template <class Key>
ROBUSTFIT_HOST_DEVICE CellBounds<Key> refined_cell_bounds(unsigned cell, const RefineSlot<Key>& s) {
  const unsigned j = cell - s.first_cell;
  if (s.cell_shift != kTieSplit) return {s.low + (Key(j) << s.cell_shift), (Key{1} << s.cell_shift) - 1};
  const Key high = s.low + ((Key{1} << s.range_shift) - 1);
  if (j == 0) return {s.low, s.tie - 1 - s.low};
  if (j == 1) return {s.tie, Key{0}};
  return {s.tie + 1, high - s.tie - 1};
}

// The even splits' cells: `evens` ranges share what `room` cells leave after 3 for each of `ties`
// tie splits, in cells of 2^bits each (at least 2). Returns bits, or -1 where they do not fit.
ROBUSTFIT_HOST_DEVICE inline int even_split_bits(unsigned room, unsigned ties, unsigned evens) {
  if (3 * ties > room) return -1;
  if (evens == 0) return 0;
  const unsigned each = (room - 3 * ties) / evens;
  if (each < 2) return -1;
  int bits = 0;
  while (2u << bits <= each) ++bits;
  return bits;
}

}  // namespace robustfit::selection::cuda::detail::bands
