// sort_parallel: an LSD radix sort on the values' bits, by fixed row chunks.
#include "robustfit/selection/cpu_sort.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "robustfit/common/parallel.hpp"

namespace robustfit::selection {
namespace {

constexpr int kDigitBits = 8;  // 8 passes over 64-bit keys (4 over 32-bit); 256 buckets keep the scatter in L1
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;

template <class T>
using KeyOf = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

// Unsigned keys in the order of the values: negatives have every bit flipped, others the sign bit.
template <class T>
KeyOf<T> key_of(T v) {
  using Key = KeyOf<T>;
  constexpr Key sign = Key{1} << (sizeof(Key) * 8 - 1);
  const auto u = std::bit_cast<Key>(v);
  return (u & sign) ? static_cast<Key>(~u) : static_cast<Key>(u | sign);
}

template <class T>
T value_of(KeyOf<T> key) {
  using Key = KeyOf<T>;
  constexpr Key sign = Key{1} << (sizeof(Key) * 8 - 1);
  return std::bit_cast<T>((key & sign) ? static_cast<Key>(key & ~sign) : static_cast<Key>(~key));
}

// One stable counting-sort pass on the digit at `shift`, keys -> out, by fixed row chunks:
// every chunk writes its keys of digit d after those of the earlier chunks. Returns false
// (nothing written) when all keys share that digit.
template <class Key>
bool radix_pass(std::span<const Key> keys, std::span<Key> out, int shift) {
  const std::size_t n = keys.size(), chunks = common::row_chunk_count(n);
  auto digit = [shift](Key key) { return static_cast<std::size_t>(key >> shift) & (kBuckets - 1); };
  std::vector<std::size_t> at(kBuckets * chunks);  // [digit][chunk]: counts, then write positions
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::array<std::size_t, kBuckets> count{};
    for (std::size_t i = begin; i < end; ++i) ++count[digit(keys[i])];
    for (std::size_t d = 0; d < kBuckets; ++d) at[d * chunks + c] = count[d];
  });
  std::size_t next = 0;
  for (std::size_t d = 0; d < kBuckets; ++d) {
    const auto first = at.begin() + static_cast<std::ptrdiff_t>(d * chunks), last = first + static_cast<std::ptrdiff_t>(chunks);
    if (std::accumulate(first, last, std::size_t{0}) == n) return false;
    for (auto a = first; a != last; ++a) next += std::exchange(*a, next);
  }
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::array<std::size_t, kBuckets> position;
    for (std::size_t d = 0; d < kBuckets; ++d) position[d] = at[d * chunks + c];
    for (std::size_t i = begin; i < end; ++i) out[position[digit(keys[i])]++] = keys[i];
  });
  return true;
}

}  // namespace

template <class T>
void sort_parallel(std::span<const T> values, std::span<T> sorted) {
  const std::size_t n = values.size();
  if (sorted.size() != n)
    throw std::invalid_argument("sort_parallel: the output holds " + std::to_string(sorted.size()) +
                                " values, the input " + std::to_string(n));
  if (common::row_chunk_count(n) == 1) {
    std::copy(values.begin(), values.end(), sorted.begin());
    std::sort(sorted.begin(), sorted.end());
    return;
  }
  using Key = KeyOf<T>;
  // Uninitialised buffers: their pages are first touched by the parallel passes.
  auto keys = std::make_unique_for_overwrite<Key[]>(n), spare = std::make_unique_for_overwrite<Key[]>(n);
  common::parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) keys[i] = key_of(values[i]);
  });
  for (int shift = 0; shift < static_cast<int>(sizeof(Key) * 8); shift += kDigitBits)
    if (radix_pass<Key>({keys.get(), n}, {spare.get(), n}, shift)) keys.swap(spare);
  common::parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) sorted[i] = value_of<T>(keys[i]);
  });
}

template void sort_parallel<float>(std::span<const float>, std::span<float>);
template void sort_parallel<double>(std::span<const double>, std::span<double>);

}  // namespace robustfit::selection
