#pragma once
// Band-aligned bucket intervals for DIBMS's Phase 1 (DibmsOptions::band_intervals): each interval
// is one band of the 64-bit order key — its top 12 bits, a double's sign and exponent — cut into
// 2^bits buckets, bits from the band's share of the merged sample (bands the sample missed: runs
// of them one bucket). A key's bucket is then
// first + (mantissa >> (52 - bits)): no search among pivots, the arithmetic of the selection
// module's band table (selection/src/cuda/band_ranges.hpp), so that a shard can count with one
// table load a value. bucket_of (local_shard.hpp) gives the same bucket for any interval list.
#include <cstdint>
#include <span>
#include <vector>

#include "robustfit/distributed/local_shard.hpp"

namespace robustfit::distributed {

constexpr int kBandShift = 52;  // mantissa bits of a double: a band is 2^52 consecutive keys
constexpr std::uint64_t kBandKeys = std::uint64_t{1} << kBandShift;

constexpr std::uint64_t band_of_key(std::uint64_t key) { return key >> kBandShift; }

// The bits of a band holding `in_band` of `sample` sampled keys when about `buckets` buckets are
// wanted in all: the smallest 2^bits >= buckets * in_band / sample (0 bits: one bucket), at most
// kBandShift.
int band_bucket_bits(std::uint64_t in_band, std::uint64_t sample, std::uint64_t buckets);

// Intervals covering every band from band_of_key(min) to band_of_key(max), in key order, each
// a whole band with 2^bits buckets (band_bucket_bits of the sorted merged sample's keys in it),
// or a run of consecutive bands without sampled keys with one bucket (values of both signs span
// two thousand bands between -1 and 1, nearly all of them empty), numbered from 0.
std::vector<KeyInterval> band_aligned_intervals(std::span<const std::uint64_t> sorted_sample, std::uint64_t min,
                                                std::uint64_t max, std::uint64_t buckets);

// Whether `intervals` are consecutive, each a whole band with a power-of-two bucket count or a
// run of whole bands with one bucket, numbered in order (what band_aligned_intervals makes): a
// shard may then find buckets by band arithmetic (src/cuda/band_table.hpp).
bool are_band_aligned(std::span<const KeyInterval> intervals);

}  // namespace robustfit::distributed
