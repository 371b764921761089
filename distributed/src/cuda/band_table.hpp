#pragma once
// A shard's count over band-aligned intervals (band_intervals.hpp) by one table load a key: a
// word per band of the 64-bit order key (4096 words, 16 KB: shared memory on the GPU) holding
// the band's first bucket and its shift, so that
//   bucket(key) = first[band] + (mantissa >> shift[band]),  shift = 52 - bits,
// which equals bucket_of over the intervals for every key inside them (bands below the first
// interval answer its first bucket, above the last its last: the count over all values never
// meets them, their keys lie in [min, max]). Plain C++, for the CUDA shard's passes and the CPU
// shard alike (tests/distributed compares it with bucket_of on every key of every distribution;
// the float form below with the 64-bit one on every float class).
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "float_keys.hpp"
#include "robustfit/distributed/band_intervals.hpp"
#include "robustfit/distributed/local_shard.hpp"

#ifdef __CUDACC__
#define ROBUSTFIT_BAND_TABLE_HOST_DEVICE __host__ __device__
#else
#define ROBUSTFIT_BAND_TABLE_HOST_DEVICE
#endif

namespace robustfit::distributed::detail {

constexpr int kKeyBands = 1 << (64 - kBandShift);  // 4096
// Buckets a table may number: the first bucket takes a word's upper 24 bits.
constexpr std::uint64_t kMaxBandTableBuckets = std::uint64_t{1} << 24;

ROBUSTFIT_BAND_TABLE_HOST_DEVICE inline std::uint32_t band_entry(std::uint32_t first, int shift) {
  return first << 8 | static_cast<std::uint32_t>(shift);
}

ROBUSTFIT_BAND_TABLE_HOST_DEVICE inline std::uint32_t band_bucket(std::uint64_t key, const std::uint32_t* entries) {
  const std::uint32_t entry = entries[key >> kBandShift];
  return (entry >> 8) + static_cast<std::uint32_t>((key & (kBandKeys - 1)) >> (entry & 0xffu));
}

// The table of `intervals` when they are band-aligned (are_band_aligned) with at most
// kMaxBandTableBuckets buckets; else false and `entries` untouched.
inline bool make_band_table(std::span<const KeyInterval> intervals, std::vector<std::uint32_t>& entries) {
  if (!are_band_aligned(intervals)) return false;
  const KeyInterval& last = intervals.back();
  if (last.first_bucket + last.buckets > kMaxBandTableBuckets) return false;
  const std::uint64_t first_band = band_of_key(intervals.front().lo);
  entries.assign(kKeyBands, band_entry(static_cast<std::uint32_t>(last.first_bucket + last.buckets - 1), kBandShift));
  for (std::uint64_t band = 0; band < first_band; ++band) entries[band] = band_entry(0, kBandShift);
  for (const KeyInterval& interval : intervals) {
    const int bits = std::countr_zero(interval.buckets);  // a power of two (are_band_aligned)
    // A run of bands has one bucket (bits 0): every band of it answers that bucket.
    for (std::uint64_t band = band_of_key(interval.lo); band <= band_of_key(interval.hi); ++band)
      entries[band] = band_entry(static_cast<std::uint32_t>(interval.first_bucket), kBandShift - bits);
  }
  return true;
}

// The same bucket for a float value from its 32-bit float key (float_keys.hpp), without
// widening it to a 64-bit key: a word per float band (sign and exponent: 512), so that
//   bucket = first + ((key & 0x7fffff) >> (shift - 29))
// for normal floats and infinities, whose doubles have the same mantissa bits above 29 zeros
// (negative values: their keys' complemented mantissas, above 29 ones, which the shift drops as
// well). A sign's zero and subnormals (their doubles spread over 24 bands) take it where all
// those bands are one bucket (bands the sample missed, or below or above the intervals: nearly
// always); else, as for a band cut finer than a float's 23 bits, the entry is kWideBand and the
// value's 64-bit key answers (float_band_bucket<true>; the passes take the form without that
// branch where no entry needs it).
constexpr int kFloatBands = 512;
constexpr std::uint32_t kWideBand = 0xffu;

inline std::vector<std::uint32_t> float_band_table(std::span<const std::uint32_t> entries) {
  std::vector<std::uint32_t> out(kFloatBands, kWideBand);
  constexpr int kDoubleShift = kBandShift - 23;  // 29 bits below a float's mantissa in a double's
  const auto key_band = [](bool positive, int double_exponent) {
    return static_cast<std::size_t>(positive ? 2048 + double_exponent : 2047 - double_exponent);
  };
  for (int band = 0; band < kFloatBands; ++band) {
    const bool positive = band >= 256;
    const int exponent = positive ? band - 256 : 255 - band;  // the float's biased exponent
    if (exponent == 0) {  // zero (a double's exponent 0) and subnormals (doubles' 874 to 896)
      const std::uint32_t zero = entries[key_band(positive, 0)];
      bool one_bucket = (zero & 0xffu) == kBandShift;
      for (int e = 874; e <= 896; ++e) one_bucket = one_bucket && entries[key_band(positive, e)] == zero;
      if (one_bucket) out[static_cast<std::size_t>(band)] = band_entry(zero >> 8, 23);
      continue;
    }
    const std::uint32_t entry = entries[key_band(positive, exponent == 255 ? 2047 : exponent - 127 + 1023)];
    const int shift = static_cast<int>(entry & 0xffu);
    if (shift >= kDoubleShift) out[static_cast<std::size_t>(band)] = band_entry(entry >> 8, shift - kDoubleShift);
  }
  return out;
}

inline bool needs_wide_keys(std::span<const std::uint32_t> float_entries) {
  for (const std::uint32_t entry : float_entries)
    if ((entry & 0xffu) == kWideBand) return true;
  return false;
}

template <bool kWide>
ROBUSTFIT_BAND_TABLE_HOST_DEVICE inline std::uint32_t float_band_bucket(std::uint32_t float_key,
                                                                        const std::uint32_t* float_entries,
                                                                        const std::uint32_t* entries) {
  const std::uint32_t entry = float_entries[float_key >> 23];
  if constexpr (kWide) {
    if ((entry & 0xffu) == kWideBand) return band_bucket(wide_key(float_key), entries);
  }
  return (entry >> 8) + ((float_key & 0x7fffffu) >> (entry & 0xffu));
}

}  // namespace robustfit::distributed::detail
