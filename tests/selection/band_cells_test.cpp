// The cells of the band one launch's split crowded ranges (selection/src/cuda/band_cells.hpp),
// against brute force: every key of a split range lands in a cell of its slot whose bounds hold
// it, the cells tile the range in key order (tie splits around a tie at either end or inside),
// and the even splits share the cells left as the largest power of two that fits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "selection/src/cuda/band_cells.hpp"

namespace {

namespace bands = robustfit::selection::cuda::detail::bands;

template <class Key>
bands::RefineSlot<Key> slot_for(Key low, int range_shift, int cell_shift, Key tie, unsigned first_cell) {
  bands::RefineSlot<Key> s{};
  s.range = 7;
  s.low = low;
  s.tie = tie;
  s.first_cell = first_cell;
  s.range_shift = range_shift;
  s.cell_shift = cell_shift;
  return s;
}

// Every key of a 64-key range, every even split and every tie position: the cell is the one the
// definition gives, and its bounds hold the key.
template <class Key>
void expect_small_range_exact(Key low) {
  constexpr int kShift = 6;
  const Key width = Key{1} << kShift;
  for (int cell_shift = bands::kTieSplit; cell_shift <= kShift; ++cell_shift) {
    for (Key t = 0; t < (cell_shift == bands::kTieSplit ? width : 1); ++t) {
      const auto s = slot_for<Key>(low, kShift, cell_shift, low + t, 100);
      for (Key offset = 0; offset < width; ++offset) {
        const Key key = low + offset;
        const unsigned expected = cell_shift == bands::kTieSplit ? 100u + (offset < t ? 0u : offset == t ? 1u : 2u)
                                                                 : 100u + static_cast<unsigned>(offset >> cell_shift);
        const unsigned cell = bands::refined_cell(key, s);
        ASSERT_EQ(cell, expected) << "offset " << offset << " cell_shift " << cell_shift << " tie " << t;
        ASSERT_LT(cell - 100u, bands::refined_cells(s));
        const auto b = bands::refined_cell_bounds(cell, s);
        ASSERT_LE(b.low, key);
        ASSERT_LE(key - b.low, b.span) << "offset " << offset << " cell_shift " << cell_shift << " tie " << t;
      }
    }
  }
}

TEST(BandCells, SmallRangeEveryKeyEverySplit) {
  expect_small_range_exact<std::uint32_t>(0x3f800000u);
  expect_small_range_exact<std::uint32_t>(0u);
  expect_small_range_exact<std::uint32_t>(0xffffffc0u);  // the last range of the key line
  expect_small_range_exact<std::uint64_t>(0x3ff0000000000000ull);
  expect_small_range_exact<std::uint64_t>(0xffffffffffffffc0ull);
}

// Wide ranges (up to a whole band), random splits: the non-empty cells' bounds tile the range in
// key order, and random keys, the range's ends and the keys around the tie land in cells that
// hold them.
template <class Key>
void expect_cells_tile_wide_ranges(int mantissa_bits) {
  std::mt19937_64 rng(91);
  for (int trial = 0; trial < 2000; ++trial) {
    const int range_shift = 1 + static_cast<int>(rng() % mantissa_bits);
    const Key low = static_cast<Key>(rng()) >> range_shift << range_shift;
    const Key high = low + ((Key{1} << range_shift) - 1);
    const bool tie_split = rng() % 2 == 0;
    const int cell_shift = tie_split ? bands::kTieSplit
                                     : range_shift - static_cast<int>(rng() % (std::min(range_shift, 13) + 1));
    const Key tie = trial % 3 == 0 ? low : trial % 3 == 1 ? high : low + static_cast<Key>(rng()) % (high - low + 1);
    const auto s = slot_for<Key>(low, range_shift, cell_shift, tie, static_cast<unsigned>(rng() % 10000));
    // The cells that hold keys, in order, cover [low, high] without gaps or overlaps.
    Key next = low;
    bool covered = false;
    for (unsigned j = 0; j < bands::refined_cells(s); ++j) {
      if (tie_split && ((j == 0 && tie == low) || (j == 2 && tie == high))) continue;  // empty
      const auto b = bands::refined_cell_bounds(s.first_cell + j, s);
      ASSERT_EQ(b.low, next) << "trial " << trial << " cell " << j;
      if (b.low + b.span == high) {
        covered = j + 1 == bands::refined_cells(s) || (tie_split && j == 1 && tie == high);
        break;
      }
      next = b.low + b.span + 1;
    }
    ASSERT_TRUE(covered) << "trial " << trial;
    std::vector<Key> keys{low, high, tie};
    if (tie > low) keys.push_back(tie - 1);
    if (tie < high) keys.push_back(tie + 1);
    for (int i = 0; i < 64; ++i) keys.push_back(low + static_cast<Key>(rng()) % (high - low + 1));
    for (const Key key : keys) {
      const unsigned cell = bands::refined_cell(key, s);
      ASSERT_GE(cell, s.first_cell);
      ASSERT_LT(cell - s.first_cell, bands::refined_cells(s));
      const auto b = bands::refined_cell_bounds(cell, s);
      ASSERT_LE(b.low, key) << "trial " << trial;
      ASSERT_LE(key - b.low, b.span) << "trial " << trial;
    }
  }
}

TEST(BandCells, CellsTileWideRanges) {
  expect_cells_tile_wide_ranges<std::uint32_t>(23);
  expect_cells_tile_wide_ranges<std::uint64_t>(52);
}

// The even splits' bits against the definition: the largest power of two of at least 2 cells
// that `evens` ranges fit in what the ties leave.
TEST(BandCells, EvenSplitBitsAgainstBruteForce) {
  for (unsigned room = 0; room <= 300; ++room)
    for (unsigned ties = 0; ties <= 100; ++ties)
      for (unsigned evens = 0; evens <= 40; ++evens) {
        int expected = -1;
        if (3 * ties <= room) {
          if (evens == 0) expected = 0;
          else
            for (int bits = 1; bits < 31 && evens * (1ull << bits) <= room - 3 * ties; ++bits) expected = bits;
        }
        ASSERT_EQ(bands::even_split_bits(room, ties, evens), expected)
            << "room " << room << " ties " << ties << " evens " << evens;
      }
}

}  // namespace
