#include "robustfit/distributed/band_intervals.hpp"

#include <algorithm>
#include <bit>

namespace robustfit::distributed {

int band_bucket_bits(std::uint64_t in_band, std::uint64_t sample, std::uint64_t buckets) {
  int bits = 0;
  while (bits < kBandShift && (std::uint64_t{1} << bits) < buckets &&
         Wide(std::uint64_t{1} << bits) * sample < Wide(buckets) * in_band)
    ++bits;
  return bits;
}

std::vector<KeyInterval> band_aligned_intervals(std::span<const std::uint64_t> sorted_sample, std::uint64_t min,
                                                std::uint64_t max, std::uint64_t buckets) {
  std::vector<KeyInterval> intervals;
  auto at = std::lower_bound(sorted_sample.begin(), sorted_sample.end(), band_of_key(min) << kBandShift);
  std::uint64_t first = 0;
  bool unsampled_run = false;  // the last interval is a run of bands without sampled keys
  for (std::uint64_t band = band_of_key(min); band <= band_of_key(max); ++band) {
    const std::uint64_t lo = band << kBandShift, hi = lo + (kBandKeys - 1);
    const auto end = std::upper_bound(at, sorted_sample.end(), hi);
    const auto in_band = static_cast<std::uint64_t>(end - at);
    at = end;
    if (in_band == 0 && unsampled_run) {  // the run goes on: one bucket for all its bands
      intervals.back().hi = hi;
      continue;
    }
    unsampled_run = in_band == 0;
    const int bits = in_band == 0 ? 0 : band_bucket_bits(in_band, sorted_sample.size(), buckets);
    intervals.push_back({lo, hi, std::uint64_t{1} << bits, first});
    first += std::uint64_t{1} << bits;
  }
  return intervals;
}

bool are_band_aligned(std::span<const KeyInterval> intervals) {
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const KeyInterval& interval = intervals[i];
    const bool whole_bands = interval.lo % kBandKeys == 0 && interval.hi >= interval.lo && interval.hi % kBandKeys == kBandKeys - 1;
    const bool one_band = band_of_key(interval.lo) == band_of_key(interval.hi);
    const bool next_band = i == 0 || interval.lo == intervals[i - 1].hi + 1;
    if (!whole_bands || !next_band || !std::has_single_bit(interval.buckets) || interval.buckets > kBandKeys ||
        (!one_band && interval.buckets != 1) || interval.first_bucket != first)
      return false;
    first += interval.buckets;
  }
  return !intervals.empty();
}

}  // namespace robustfit::distributed
