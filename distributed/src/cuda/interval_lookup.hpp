#pragma once
// std::upper_bound(lows, lows + count, key) - 1 (at least 0) over a nondecreasing array, for the
// GPU without a binary search per key: the span [lows[0], lows[count-1]] is cut into at most
// `max_bins` equal bins of 2^shift keys, and each bin records the first and last index its keys
// can have; a bin that holds no low (most of them) answers at once, the others search only
// their few indices. The CUDA shard finds each candidate's interval this way (by key among the
// intervals' lows, or by position among the segments' starts). Equal to std::upper_bound for
// every input (tests/distributed_gpu compare them on the host).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#ifdef __CUDACC__
#define ROBUSTFIT_LOOKUP_HOST_DEVICE __host__ __device__
#else
#define ROBUSTFIT_LOOKUP_HOST_DEVICE
#endif

namespace robustfit::distributed::detail {

struct IntervalLookup {
  std::uint64_t base = 0;   // lows[0]
  std::uint64_t bins = 1;   // keys with (key - base) >> shift >= bins are at or above the last low
  std::uint32_t shift = 0;
  std::uint32_t last = 0;   // count - 1
};

// Fills `table` with {first, last} index per bin. lows: nondecreasing, not empty, fewer than 2^32.
inline IntervalLookup make_interval_lookup(std::span<const std::uint64_t> lows, std::uint64_t max_bins,
                                           std::vector<std::uint32_t>& table) {
  IntervalLookup lookup;
  lookup.base = lows.front();
  lookup.last = static_cast<std::uint32_t>(lows.size() - 1);
  const std::uint64_t range = lows.back() - lookup.base;
  max_bins = std::max<std::uint64_t>(max_bins, 2);
  while ((range >> lookup.shift) >= max_bins) ++lookup.shift;  // ends below 64: range < 2^64 <= max_bins 2^63
  lookup.bins = (range >> lookup.shift) + 1;
  const std::uint64_t width_less_one = (std::uint64_t{1} << lookup.shift) - 1;
  // upper_bound - 1 of the bins' first and last keys, both increasing: one sweep over the lows
  // each (a call costs O(bins + count), not a search per bin).
  std::size_t at_start = 0, at_end = 0;
  const auto advance = [&](std::size_t& at, std::uint64_t key) {
    while (at + 1 < lows.size() && lows[at + 1] <= key) ++at;
    return static_cast<std::uint32_t>(at);
  };
  table.resize(2 * lookup.bins);
  for (std::uint64_t bin = 0; bin < lookup.bins; ++bin) {
    const std::uint64_t start = lookup.base + (bin << lookup.shift);
    const std::uint64_t end = start + std::min(width_less_one, ~std::uint64_t{0} - start);
    table[2 * bin] = advance(at_start, start);
    table[2 * bin + 1] = advance(at_end, end);
  }
  return lookup;
}

// Key: the 64-bit lows the lookup was built from, or 32-bit lows whose widened values it was
// built from (float_keys.hpp: then its base and span fit in 32 bits and its shift is below 32).
// Entry: the table's type (std::uint16_t for a copy of it narrowed where count <= 65536: half
// the bytes, so twice the bins in the same shared memory).
template <class Key, class Entry = std::uint32_t>
ROBUSTFIT_LOOKUP_HOST_DEVICE inline std::uint32_t interval_of(const IntervalLookup& lookup, const Entry* table,
                                                              const Key* lows, Key key) {
  const auto base = static_cast<Key>(lookup.base);
  if (key < base) return 0;
  const Key bin = (key - base) >> lookup.shift;
  if (bin >= lookup.bins) return lookup.last;
  std::uint32_t low = table[2 * bin], high = table[2 * bin + 1];  // lows[low] <= key < lows[high + 1]
  while (low < high) {
    const std::uint32_t middle = low + (high - low + 1) / 2;
    if (lows[middle] <= key) low = middle;
    else high = middle - 1;
  }
  return low;
}

}  // namespace robustfit::distributed::detail
