#pragma once
// The exponent-band table of sampled multiselection's band form (the library's
// selection/src/cuda/band_ranges.hpp does the arithmetic) built on the host from a sample, for
// the host simulation (multiselect_lookup_sim.cpp) and the counting experiment
// (multiselect_band_count.cu). A key's range is first[band] + (mantissa >> shift[band]).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../selection/src/cuda/band_ranges.hpp"

namespace robustfit::bench {

namespace bands = robustfit::selection::cuda::detail::bands;

// Order-preserving unsigned keys (as the library's key_traits.cuh), sign and exponent on top.
template <class T> struct BandBits;
template <> struct BandBits<float> { using Key = std::uint32_t; static constexpr int kMantissa = 23; };
template <> struct BandBits<double> { using Key = std::uint64_t; static constexpr int kMantissa = 52; };

template <class T>
typename BandBits<T>::Key band_key(T v) {
  using Key = typename BandBits<T>::Key;
  constexpr Key kSign = Key{1} << (sizeof(Key) * 8 - 1);
  Key u;
  std::memcpy(&u, &v, sizeof u);
  return (u & kSign) ? ~u : (u | kSign);
}

template <class T>
struct BandTable {
  using Key = typename BandBits<T>::Key;
  static constexpr int kMantissa = bands::mantissa_bits<Key>();
  static constexpr int kBands = bands::band_count<Key>();
  std::vector<unsigned> entries;  // kBands packed words (bands::pack_band), as the device reads them
  std::size_t total = 0;          // ranges

  std::size_t ranges() const { return total; }
  std::size_t range(Key k) const { return bands::range_of(k, entries.data()); }
  int shift(int band) const { return bands::band_shift(entries[static_cast<std::size_t>(band)]); }
};

// About `ranges` ranges (1.3-2 x that after the rounding up) from `sample` (keys, any order), as
// the library's plan kernel shares them out (bands::band_bits).
template <class T>
BandTable<T> make_band_table(const std::vector<typename BandBits<T>::Key>& sample, int ranges) {
  using Table = BandTable<T>;
  std::vector<std::uint64_t> in_band(Table::kBands, 0);
  for (const auto k : sample) ++in_band[bands::band_of(k)];
  Table table;
  table.entries.resize(Table::kBands);
  unsigned first = 0;
  for (int b = 0; b < Table::kBands; ++b) {
    const int bits = bands::band_bits<typename Table::Key>(in_band[b], sample.size(), static_cast<std::uint64_t>(ranges));
    table.entries[b] = bands::pack_band(first, Table::kMantissa - bits);
    first += 1u << bits;
  }
  table.total = first;
  return table;
}

}  // namespace robustfit::bench
