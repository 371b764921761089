#pragma once
// Bucket arithmetic of sampled multiselection (sampled_multi_select.cu), for host and device, on
// order-preserving unsigned keys (key_traits.cuh): plain C++ with no CUDA header, so that the CPU
// tests check it against std::upper_bound.
//
// Sorted distinct edge keys e[0] < ... < e[E-1] cut the key line into 2E + 1 buckets, in order:
//   bucket 0 = keys below e[0], bucket 2j+1 = {e[j]}, bucket 2j+2 = keys strictly between e[j]
//   and e[j+1] (the last one: above e[E-1]).
// Equal keys always share a bucket, and a key equal to an edge has a bucket of its own (even
// buckets are open intervals, odd ones equality buckets), so a rank that falls among heavy ties
// is answered by the edge itself, without copying its ties.
//
// Lookup: the key line above e[0] is cut into `bins` ranges of 2^shift keys (the last one open
// to the top, keys below e[0] in the first); a table gives, for each range, the edges inside it
// (first and end index packed in one 32-bit word: one shared-memory load); a binary search among
// those (a few, for most inputs) finishes. Edge counts stay below 2^16.
// Any shift gives the right bucket (the range of a key is monotone in the key); a good one
// spreads the edges over the ranges.
#include <cstdint>

#include "host_device.hpp"

namespace robustfit::selection::cuda::detail::sampled {

// The sample position of candidate edge j of `edges` (0 <= j < edges <= sample_size): the middle
// of the j-th of `edges` equal parts of the sorted sample.
ROBUSTFIT_HOST_DEVICE inline std::int64_t edge_sample_position(int j, int edges, std::int64_t sample_size) {
  return ((2 * std::int64_t{j} + 1) * sample_size) / (2 * std::int64_t{edges});
}

ROBUSTFIT_HOST_DEVICE inline bool is_equality_bucket(int bucket) { return bucket % 2 == 1; }
// The edge whose value an equality bucket holds.
ROBUSTFIT_HOST_DEVICE inline int edge_of_equality_bucket(int bucket) { return (bucket - 1) / 2; }

// The smallest shift that puts e[E-1] (= hi) into one of the `bins` ranges above base = e[0].
template <class Key>
ROBUSTFIT_HOST_DEVICE int shift_for(Key base, Key hi, int bins) {
  int shift = 0;
  while (shift < static_cast<int>(sizeof(Key) * 8) && ((hi - base) >> shift) >= static_cast<Key>(bins)) ++shift;
  return shift;
}

// The range of `key`: 0 for keys at or below base, bins - 1 for keys beyond the last range.
template <class Key>
ROBUSTFIT_HOST_DEVICE int range_of(Key key, Key base, int shift, int bins) {
  if (key <= base) return 0;
  const Key range = shift >= static_cast<int>(sizeof(Key) * 8) ? Key{0} : (key - base) >> shift;
  return range >= static_cast<Key>(bins - 1) ? bins - 1 : static_cast<int>(range);
}

// Table entry b (0 <= b <= bins): how many edges lie in ranges below b.
template <class Key>
ROBUSTFIT_HOST_DEVICE int table_entry(const Key* edges, int count, Key base, int shift, int bins, int b) {
  int lo = 0, hi = count;  // first edge whose range is >= b
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (range_of(edges[mid], base, shift, bins) < b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The table's word for a range whose edges are [first, end).
ROBUSTFIT_HOST_DEVICE inline unsigned pack_range(int first, int end) {
  return static_cast<unsigned>(first) | static_cast<unsigned>(end) << 16;
}
// The table's word for range r: its edges are [table_entry(r), table_entry(r + 1)).
template <class Key>
ROBUSTFIT_HOST_DEVICE unsigned range_entry(const Key* edges, int count, Key base, int shift, int bins, int r) {
  return pack_range(table_entry(edges, count, base, shift, bins, r), table_entry(edges, count, base, shift, bins, r + 1));
}
ROBUSTFIT_HOST_DEVICE inline int range_first(unsigned entry) { return static_cast<int>(entry & 0xffffu); }
ROBUSTFIT_HOST_DEVICE inline int range_end(unsigned entry) { return static_cast<int>(entry >> 16); }

// The compacting read's filter (sampled_multi_select.cu): one bit per slice of the key line,
// kFineSlices slices per table range (2^fine_shift(shift) keys each), set where a slice may hold
// a key of a bucket that holds a wanted rank. Finer than the table, whose ranges hold several
// edges where the values crowd (normal data: dozens), so that few values need their bucket.
constexpr int kFineSlices = 8;
ROBUSTFIT_HOST_DEVICE inline int fine_shift(int shift) { return shift > 3 ? shift - 3 : 0; }
template <class Key>
ROBUSTFIT_HOST_DEVICE int slice_of(Key key, Key base, int shift, int bins) {
  return range_of(key, base, fine_shift(shift), kFineSlices * bins);
}
// The filter is a bitmap of 32-bit words, bit s of word s / 32 for slice s. Marks slices
// first..last through or_word(word, mask) (an atomic OR on the device).
template <class OrWord>
ROBUSTFIT_HOST_DEVICE void mark_slices(int first, int last, OrWord or_word) {
  for (int w = first >> 5; w <= last >> 5; ++w) {
    const unsigned from = w == first >> 5 ? first & 31 : 0, to = w == last >> 5 ? last & 31 : 31;
    or_word(w, (~0u >> (31 - to)) & (~0u << from));
  }
}
// Whether slice s is marked, read a byte at a time (little-endian words: byte s / 8 holds slices
// s & ~7 .. s | 7), so that an unmarked byte answers for its 8 slices with one test.
ROBUSTFIT_HOST_DEVICE inline bool slice_marked(const unsigned char* bitmap_bytes, int s) {
  const unsigned eight = bitmap_bytes[s >> 3];
  return eight != 0 && (eight >> (s & 7) & 1u);
}

// The edges and their lookup table: arrays in shared or global memory (device) or host memory.
template <class Key>
struct EdgeTable {
  const Key* edges;        // count sorted distinct keys, 1 <= count < 2^16
  const unsigned* ranges;  // bins entries: ranges[r] = range_entry(..., r)
  Key base;                // edges[0]
  int shift, count, bins;

  // How many edges are <= key.
  ROBUSTFIT_HOST_DEVICE int edges_at_or_below(Key key) const {
    const unsigned entry = ranges[range_of(key, base, shift, bins)];
    int lo = range_first(entry), hi = range_end(entry);  // the edges in the key's range; below lo all are < key
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (edges[mid] <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // An edge of a lower range is below the key (range_of is monotone), so only an edge of the
  // key's own range can equal it: keys of a range without edges ≤ them need no edge load.
  ROBUSTFIT_HOST_DEVICE int bucket_of(Key key) const {
    const unsigned entry = ranges[range_of(key, base, shift, bins)];
    const int first = range_first(entry);
    int lo = first, hi = range_end(entry);
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (edges[mid] <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo > first && edges[lo - 1] == key ? 2 * lo - 1 : 2 * lo;
  }

  // The smallest and largest key of open bucket `bucket` (even): [low, high].
  ROBUSTFIT_HOST_DEVICE Key bucket_low(int bucket) const { return bucket == 0 ? Key{0} : edges[bucket / 2 - 1] + 1; }
  ROBUSTFIT_HOST_DEVICE Key bucket_high(int bucket) const {
    return bucket / 2 < count ? edges[bucket / 2] - 1 : ~Key{0};
  }

  ROBUSTFIT_HOST_DEVICE int buckets() const { return 2 * count + 1; }
};

}  // namespace robustfit::selection::cuda::detail::sampled
