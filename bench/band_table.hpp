#pragma once
// The exponent-band table weighed for issue 11's many-rank counting read (not in the library):
// a key's range is offset[band] + (mantissa >> shift[band]), band = the key's sign and exponent
// bits, each band given a power of two of ranges in proportion to its share of a sample (at
// least one; bands the sample missed get one). No search: a table load, a shift and an add.
// Host code shared by the simulation (multiselect_lookup_sim.cpp) and the GPU counting
// experiment (multiselect_band_count.cu).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace robustfit::bench {

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
  static constexpr int kMantissa = BandBits<T>::kMantissa;
  static constexpr int kBands = 1 << (sizeof(Key) * 8 - kMantissa);
  std::vector<int> shift;           // kBands
  std::vector<std::size_t> offset;  // kBands + 1: offset[kBands] is the number of ranges

  std::size_t ranges() const { return offset[kBands]; }
  std::size_t range(Key k) const {
    const auto b = static_cast<std::size_t>(k >> kMantissa);
    return offset[b] + static_cast<std::size_t>((k & ((Key{1} << kMantissa) - 1)) >> shift[b]);
  }
};

// About `ranges` ranges (1.3-2 x that after the rounding up) from `sample` (keys, any order).
template <class T>
BandTable<T> make_band_table(const std::vector<typename BandBits<T>::Key>& sample, int ranges) {
  using Table = BandTable<T>;
  std::vector<double> share(Table::kBands, 0.0);
  for (const auto k : sample) share[k >> Table::kMantissa] += 1.0 / static_cast<double>(sample.size());
  Table table;
  table.shift.resize(Table::kBands);
  table.offset.assign(Table::kBands + 1, 0);
  for (int b = 0; b < Table::kBands; ++b) {
    int bits = 0;
    while (bits < Table::kMantissa && static_cast<double>(std::uint64_t{1} << bits) < ranges * share[b]) ++bits;
    table.shift[b] = Table::kMantissa - bits;
    table.offset[b + 1] = table.offset[b] + (std::size_t{1} << bits);
  }
  return table;
}

}  // namespace robustfit::bench
