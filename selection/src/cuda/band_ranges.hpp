#pragma once
// Range arithmetic of the band-table form of sampled multiselection (band_multi_select.cu), for
// host and device, on order-preserving unsigned keys (key_traits.cuh): plain C++ with no CUDA
// header, so that the CPU tests check it against brute force.
//
// A key's band is its sign and exponent bits (the bits above the mantissa: 512 bands for float
// keys, 4096 for double keys). Each band is cut into 2^bits ranges of equal key width, bits
// chosen from a sample so that every range holds about n / ranges values:
//   range(key) = first[band] + (mantissa >> shift[band]),  shift = mantissa bits - bits.
// No search: one table load, a shift and an add (the edges' lookup needs a binary search, ~74
// instructions a value in all). Ranges are numbered in key order, so range is monotone in the
// key and range r holds the keys [low(r), high(r)], high(r) + 1 = low(r + 1).
#include <cstdint>

#include "host_device.hpp"

namespace robustfit::selection::cuda::detail::bands {

template <class Key>
constexpr int mantissa_bits() {
  return sizeof(Key) == 4 ? 23 : 52;
}
template <class Key>
constexpr int band_count() {
  return 1 << (static_cast<int>(sizeof(Key) * 8) - mantissa_bits<Key>());
}
template <class Key>
ROBUSTFIT_HOST_DEVICE int band_of(Key key) {
  return static_cast<int>(key >> mantissa_bits<Key>());
}

// A band's table entry: its first range (< 2^24) and its shift, in one 32-bit word.
ROBUSTFIT_HOST_DEVICE inline unsigned pack_band(unsigned first, int shift) {
  return first << 8 | static_cast<unsigned>(shift);
}
ROBUSTFIT_HOST_DEVICE inline unsigned band_first(unsigned entry) { return entry >> 8; }
ROBUSTFIT_HOST_DEVICE inline int band_shift(unsigned entry) { return static_cast<int>(entry & 0xffu); }
constexpr unsigned kMaxRanges = 1u << 24;

// The ranges of a band holding `in_band` of `sample` sampled keys when about `ranges` ranges are
// wanted in all: the smallest power of two 2^bits >= ranges * in_band / sample (at least one,
// at most one key per range). Returns bits.
template <class Key>
ROBUSTFIT_HOST_DEVICE int band_bits(std::uint64_t in_band, std::uint64_t sample, std::uint64_t ranges) {
  int bits = 0;  // 2^bits < ranges <= 2^24 and sample < 2^32 keep the products below 2^64
  while (bits < mantissa_bits<Key>() && (std::uint64_t{1} << bits) < ranges &&
         (std::uint64_t{1} << bits) * sample < ranges * in_band)
    ++bits;
  return bits;
}

// The range of `key` under the table `entries` (band_count<Key>() words).
template <class Key>
ROBUSTFIT_HOST_DEVICE unsigned range_of(Key key, const unsigned* entries) {
  const unsigned entry = entries[band_of(key)];
  const Key mantissa = key & ((Key{1} << mantissa_bits<Key>()) - 1);
  return band_first(entry) + static_cast<unsigned>(mantissa >> band_shift(entry));
}

// The band holding range r: the last band whose first range is <= r (bands that the sample
// missed still have one range each, so firsts strictly increase).
template <class Key>
ROBUSTFIT_HOST_DEVICE int band_of_range(unsigned r, const unsigned* entries) {
  int lo = 0, hi = band_count<Key>();  // band_first(entries[lo]) <= r < band_first(entries[hi]) (hi: past the end)
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (band_first(entries[mid]) <= r) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The smallest key of range r, and its width in keys minus one (high(r) = low(r) + span).
template <class Key>
ROBUSTFIT_HOST_DEVICE Key range_low(unsigned r, const unsigned* entries) {
  const int b = band_of_range<Key>(r, entries);
  const unsigned entry = entries[b];
  return (Key(b) << mantissa_bits<Key>()) | (Key(r - band_first(entry)) << band_shift(entry));
}
template <class Key>
ROBUSTFIT_HOST_DEVICE Key range_span(unsigned r, const unsigned* entries) {
  const int shift = band_shift(entries[band_of_range<Key>(r, entries)]);
  return shift == 0 ? Key{0} : (Key{1} << shift) - 1;
}

// Whether the edges should answer instead of the table (band_multi_select.cu, step 2), from the
// sample: the table has more than `max_ranges` ranges; one range wider than a key holds more
// than 1/64 of the sample (at least 32 keys: small samples), whose counter would serialise the
// counting read; or the ranges holding the `count` wanted ranks hold `wanted_runs` sampled keys
// in all (repeats counted again), i.e. are expected to hold more values than n / `compared` a
// rank: the edges' buckets by default, n / 2048 (ties, spans the bands cannot split). A plan of
// few sampled keys a range compares with more (the one-launch form: 8192 keys for ~4096 ranges,
// one or two keys a range, whose size-biased count over few ranks would cross n / 2048 by chance).
// long_run alone: the one launch counts such inputs with warp-aggregated atomics and refines the
// crowded ranges instead (band_refine.cuh).
ROBUSTFIT_HOST_DEVICE inline bool long_run(int longest_run, int sample_size) {
  constexpr int kTieShare = 64, kMinTieRun = 32;
  const int tie_run = sample_size / kTieShare > kMinTieRun ? sample_size / kTieShare : kMinTieRun;
  return longest_run > tie_run;
}
ROBUSTFIT_HOST_DEVICE inline bool edges_answer_instead(unsigned total, unsigned max_ranges, int longest_run,
                                                       int sample_size, double wanted_runs, double count, double n,
                                                       double compared = 2048) {
  return total > max_ranges || long_run(longest_run, sample_size) || wanted_runs / sample_size * n > count * n / compared;
}

}  // namespace robustfit::selection::cuda::detail::bands
