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
#include <cstring>
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

// The lookup's bins over `count` nondecreasing lows from first_low to last_low (its table not
// filled): at most max_bins equal bins of 2^shift keys.
inline IntervalLookup interval_lookup_shape(std::uint64_t first_low, std::uint64_t last_low, std::size_t count,
                                            std::uint64_t max_bins) {
  IntervalLookup lookup;
  lookup.base = first_low;
  lookup.last = static_cast<std::uint32_t>(count - 1);
  const std::uint64_t range = last_low - lookup.base;
  max_bins = std::max<std::uint64_t>(max_bins, 2);
  while ((range >> lookup.shift) >= max_bins) ++lookup.shift;  // ends below 64: range < 2^64 <= max_bins 2^63
  lookup.bins = (range >> lookup.shift) + 1;
  return lookup;
}

// Fills `table` with {first, last} index per bin. lows: nondecreasing, not empty, fewer than 2^32.
inline IntervalLookup make_interval_lookup(std::span<const std::uint64_t> lows, std::uint64_t max_bins,
                                           std::vector<std::uint32_t>& table) {
  const IntervalLookup lookup = interval_lookup_shape(lows.front(), lows.back(), lows.size(), max_bins);
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
// The last index in [low, high] whose low is at most key, where lows[low] <= key < lows[high + 1].
// (Tried: a first probe where evenly spread lows would be, for crowded bins: more instructions
// a value in passes that are bound by them, 20-25 % slower on an H200.)
template <class Key>
ROBUSTFIT_LOOKUP_HOST_DEVICE inline std::uint32_t search_in_bin(std::uint32_t low, std::uint32_t high, const Key* lows, Key key) {
  while (low < high) {
    const std::uint32_t middle = low + (high - low + 1) / 2;
    if (lows[middle] <= key) low = middle;
    else high = middle - 1;
  }
  return low;
}

// The bin of key >= base: keys at or above the last low's bin answer lookup.last. The compares
// are in the keys' width (lookup.bins is at most max_bins, far below 2^32).
template <class Key>
ROBUSTFIT_LOOKUP_HOST_DEVICE inline Key bin_of(const IntervalLookup& lookup, Key key) {
  return (key - static_cast<Key>(lookup.base)) >> lookup.shift;
}

template <class Key, class Entry = std::uint32_t>
ROBUSTFIT_LOOKUP_HOST_DEVICE inline std::uint32_t interval_of(const IntervalLookup& lookup, const Entry* table,
                                                              const Key* lows, Key key) {
  if (key < static_cast<Key>(lookup.base)) return 0;
  const Key bin = bin_of(lookup, key);
  if (bin >= static_cast<Key>(lookup.bins)) return lookup.last;
  if constexpr (sizeof(Entry) == 2) {  // the bin's pair in one 32-bit read (little-endian: first, last)
#ifdef __CUDA_ARCH__
    const std::uint32_t pair = reinterpret_cast<const std::uint32_t*>(table)[bin];  // 4-byte aligned tables
#else
    std::uint32_t pair;
    std::memcpy(&pair, table + 2 * bin, sizeof pair);
#endif
    return search_in_bin(pair & 0xFFFFu, pair >> 16, lows, key);
  } else {
    return search_in_bin(table[2 * bin], table[2 * bin + 1], lows, key);  // lows[low] <= key < lows[high + 1]
  }
}

// A pass that needs only values[i] of each key's index i (the reduce's slot, -1 for none) reads
// one word a key where the lookup can answer directly: a bin whose keys all have one index
// (table's first == last, most bins) holds kDirectAnswer | (values[first] + 1); any other bin its
// index range, first | last << 16. Needs count <= 65536 and values >= -1.
constexpr std::uint32_t kDirectAnswer = 0x80000000u;
inline std::vector<std::uint32_t> direct_answers(const IntervalLookup& lookup, std::span<const std::uint32_t> table,
                                                 std::span<const std::int32_t> values) {
  std::vector<std::uint32_t> words(lookup.bins);
  for (std::uint64_t bin = 0; bin < lookup.bins; ++bin) {
    const std::uint32_t first = table[2 * bin], last = table[2 * bin + 1];
    words[bin] = first == last ? kDirectAnswer | static_cast<std::uint32_t>(values[first] + 1) : first | last << 16;
  }
  return words;
}

// values[interval_of(...)] through direct_answers' words.
template <class Key>
ROBUSTFIT_LOOKUP_HOST_DEVICE inline std::int32_t answer_of(const IntervalLookup& lookup, const std::uint32_t* words,
                                                           const Key* lows, const std::int32_t* values, Key key) {
  if (key < static_cast<Key>(lookup.base)) return values[0];
  const Key bin = bin_of(lookup, key);
  if (bin >= static_cast<Key>(lookup.bins)) return values[lookup.last];
  const std::uint32_t word = words[bin];
  if ((word & kDirectAnswer) != 0) return static_cast<std::int32_t>(word & ~kDirectAnswer) - 1;
  return values[search_in_bin(word & 0xFFFFu, word >> 16, lows, key)];
}

}  // namespace robustfit::distributed::detail
