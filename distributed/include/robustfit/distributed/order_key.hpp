#pragma once
// Order-preserving 64-bit keys of doubles: key(a) < key(b) exactly when a < b (with -0 < +0 and
// +-inf ordinary values), so the distributed algorithms compute bucket projections and bracket
// bisections in exact integer arithmetic, free of overflow, subnormals and infinite widths.
// Keys 0 and 2^64-1 belong to NaNs only (NaN input is refused before keys are made).
#include <bit>
#include <cstdint>

namespace robustfit::distributed {

constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

constexpr std::uint64_t order_key(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  return (bits & kSignBit) != 0 ? ~bits : bits | kSignBit;
}

constexpr double from_order_key(std::uint64_t key) {
  return std::bit_cast<double>((key & kSignBit) != 0 ? key & ~kSignBit : ~key);
}

}  // namespace robustfit::distributed
