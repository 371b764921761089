#pragma once
// Order-preserving map from floating-point values to unsigned keys (Alabi et al., radixSelect):
// negative values have all bits inverted, non-negative ones only the sign bit, so that
// x < y implies key(x) < key(y). -0 maps just below +0 (they compare equal as values, so
// either is a correct answer). Positive NaNs land above +inf, negative NaNs below -inf.
// Plain C++ apart from ROBUSTFIT_HOST_DEVICE: the CPU tests use it too.
#include <cstdint>

#include "host_device.hpp"

namespace robustfit::selection::cuda::detail {

template <class T>
struct KeyTraits;

template <>
struct KeyTraits<float> {
  using Key = std::uint32_t;
  static constexpr int kBits = 32;
  ROBUSTFIT_HOST_DEVICE static Key to_key(float x) {
    Key u;
    __builtin_memcpy(&u, &x, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  ROBUSTFIT_HOST_DEVICE static float from_key(Key key) {
    const Key u = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
    float x;
    __builtin_memcpy(&x, &u, sizeof x);
    return x;
  }
};

template <>
struct KeyTraits<double> {
  using Key = std::uint64_t;
  static constexpr int kBits = 64;
  static constexpr Key kSign = Key{1} << 63;
  ROBUSTFIT_HOST_DEVICE static Key to_key(double x) {
    Key u;
    __builtin_memcpy(&u, &x, sizeof u);
    return (u & kSign) ? ~u : (u | kSign);
  }
  ROBUSTFIT_HOST_DEVICE static double from_key(Key key) {
    const Key u = (key & kSign) ? (key & ~kSign) : ~key;
    double x;
    __builtin_memcpy(&x, &u, sizeof x);
    return x;
  }
};

}  // namespace robustfit::selection::cuda::detail
