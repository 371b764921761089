#pragma once
// Classifying float values with 32-bit compares. A float's 64-bit order key (of the value as a
// double, order_key.hpp) and its 32-bit float key are both monotone in the value (float -> double
// is exact), so for every non-NaN float, key64 >= edge exactly when key32 >= float_threshold(edge).
// A sorted array of 64-bit edges maps to a sorted array of 32-bit thresholds, and the last edge
// at or below a value's key is the last threshold at or below its float key: the CUDA shard's
// passes over float values then neither widen each value to a 64-bit key nor compare in 64 bits.
// Equal to the 64-bit lookups for every float (tests/distributed_gpu compare them on the host).
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "interval_lookup.hpp"
#include "robustfit/distributed/order_key.hpp"

#ifdef __CUDACC__
#define ROBUSTFIT_FLOAT_KEYS_HOST_DEVICE __host__ __device__
#else
#define ROBUSTFIT_FLOAT_KEYS_HOST_DEVICE
#endif

namespace robustfit::distributed::detail {

constexpr std::uint32_t kFloatSignBit = 0x80000000u;
constexpr std::uint32_t kLowestFloatKey = 0x007FFFFFu;   // -inf's
constexpr std::uint32_t kHighestFloatKey = 0xFF800000u;  // +inf's

ROBUSTFIT_FLOAT_KEYS_HOST_DEVICE inline std::uint32_t float_key(float value) {
#ifdef __CUDA_ARCH__
  const std::uint32_t bits = __float_as_uint(value);
#else
  const auto bits = std::bit_cast<std::uint32_t>(value);
#endif
  return (bits & kFloatSignBit) != 0 ? ~bits : bits | kFloatSignBit;
}

// The 64-bit order key of the float whose float key is `key` (not a NaN's).
ROBUSTFIT_FLOAT_KEYS_HOST_DEVICE inline std::uint64_t wide_key(std::uint32_t key) {
  const std::uint32_t bits = (key & kFloatSignBit) != 0 ? key & ~kFloatSignBit : ~key;
#ifdef __CUDA_ARCH__
  const float value = __uint_as_float(bits);
#else
  const auto value = std::bit_cast<float>(bits);
#endif
  return order_key(static_cast<double>(value));
}

// The least non-NaN float key k with wide_key(k) >= edge (kHighestFloatKey + 1 when none): a few
// steps from the float nearest the edge's double. (On the device too: the CUDA shard builds
// its float count's tables there.)
ROBUSTFIT_FLOAT_KEYS_HOST_DEVICE inline std::uint32_t float_threshold(std::uint64_t edge) {
  if (edge <= wide_key(kLowestFloatKey)) return kLowestFloatKey;
  if (edge > wide_key(kHighestFloatKey)) return kHighestFloatKey + 1;
  const double value = from_order_key(edge);  // not a NaN here
  constexpr double kMaxFloat = std::numeric_limits<float>::max();
  std::uint32_t k = value > kMaxFloat    ? kHighestFloatKey
                    : value < -kMaxFloat ? kLowestFloatKey
                                         : float_key(static_cast<float>(value));
  while (k > kLowestFloatKey && wide_key(k - 1) >= edge) --k;
  while (wide_key(k) < edge) ++k;  // ends at kHighestFloatKey at the latest
  return k;
}

inline std::vector<std::uint32_t> float_thresholds(std::span<const std::uint64_t> edges) {
  std::vector<std::uint32_t> out;
  out.reserve(edges.size());
  for (const std::uint64_t edge : edges) out.push_back(float_threshold(edge));
  return out;
}

}  // namespace robustfit::distributed::detail
