#include "parallel.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <utility>

namespace robustfit::regression::detail {

namespace {

constexpr int kDigitBits = 8;  // 8 passes over 64-bit keys; 256 buckets keep the scatter in L1
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
constexpr std::uint64_t kSign = std::uint64_t{1} << 63;

// Unsigned keys in the order of the doubles: negatives have every bit flipped, others the sign bit.
std::uint64_t key_of(double v) {
  const auto u = std::bit_cast<std::uint64_t>(v);
  return (u & kSign) ? ~u : u | kSign;
}

double value_of(std::uint64_t key) { return std::bit_cast<double>((key & kSign) ? key & ~kSign : ~key); }

// One stable counting-sort pass on the digit at `shift`, keys -> out, by fixed row chunks:
// every chunk writes its keys of digit d after those of the earlier chunks. Returns false
// (nothing written) when all keys share that digit.
bool radix_pass(std::span<const std::uint64_t> keys, std::span<std::uint64_t> out, int shift) {
  const std::size_t n = keys.size(), chunks = row_chunk_count(n);
  auto digit = [shift](std::uint64_t key) { return static_cast<std::size_t>(key >> shift) & (kBuckets - 1); };
  std::vector<std::size_t> at(kBuckets * chunks);  // [digit][chunk]: counts, then write positions
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
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
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::array<std::size_t, kBuckets> position;
    for (std::size_t d = 0; d < kBuckets; ++d) position[d] = at[d * chunks + c];
    for (std::size_t i = begin; i < end; ++i) out[position[digit(keys[i])]++] = keys[i];
  });
  return true;
}

}  // namespace

void parallel_sort_copy(std::span<const double> values, std::span<double> sorted) {
  const std::size_t n = values.size();
  if (row_chunk_count(n) == 1) {
    std::copy(values.begin(), values.end(), sorted.begin());
    std::sort(sorted.begin(), sorted.end());
    return;
  }
  // Uninitialised buffers: their pages are first touched by the parallel passes.
  auto keys = std::make_unique_for_overwrite<std::uint64_t[]>(n), spare = std::make_unique_for_overwrite<std::uint64_t[]>(n);
  parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) keys[i] = key_of(values[i]);
  });
  for (int shift = 0; shift < 64; shift += kDigitBits)
    if (radix_pass({keys.get(), n}, {spare.get(), n}, shift)) keys.swap(spare);
  parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) sorted[i] = value_of(keys[i]);
  });
}

}  // namespace robustfit::regression::detail
