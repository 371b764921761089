#pragma once
// The project's one random number generator: xoshiro256** seeded through splitmix64, with its
// own transforms, so that a seed gives the same stream on every platform and standard library
// (std:: distributions do not). Used for elemental subsets, scenarios and test distributions.
#include <cmath>
#include <cstdint>
#include <numbers>

namespace robustfit::common {

__extension__ typedef unsigned __int128 Uint128;  // GCC/Clang extension: full 64x64 product

class Random {
 public:
  // Independent streams of one seed: stream s starts from splitmix64 outputs 4s .. 4s+3.
  explicit Random(std::uint64_t seed, unsigned stream = 0) {
    std::uint64_t mix = seed;
    for (unsigned skip = 0; skip < 4 * stream; ++skip) splitmix64(mix);
    for (auto& word : state_) word = splitmix64(mix);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform integer in [0, bound), bound >= 1, unbiased (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t bound) {
    Uint128 m = static_cast<Uint128>(next()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<Uint128>(next()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }              // [0, 1)
  double uniform_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  double uniform(double low, double high) { return low + (high - low) * uniform(); }

  // Standard normal by Marsaglia's polar method; the second value of a pair is kept.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0, v = 0, s = 0;
    do {
      u = 2 * uniform() - 1;
      v = 2 * uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s == 0);
    const double factor = std::sqrt(-2 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

  // Standard Cauchy by the inverse CDF.
  double cauchy() { return std::tan(std::numbers::pi * (uniform_open() - 0.5)); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  std::uint64_t state_[4]{};
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace robustfit::common
