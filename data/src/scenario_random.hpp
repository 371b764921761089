#pragma once
// Private: the scenario generators' random numbers. xoshiro256** seeded by splitmix64, with
// our own transforms (polar normals, inverse-CDF Cauchy) so that a seed gives the same data
// with every standard library.
#include <cmath>
#include <cstdint>
#include <numbers>

namespace robustfit::data::scenario_detail {

class ScenarioRandom {
 public:
  // Independent streams of one seed: stream k takes splitmix64 outputs 4k..4k+3 as its state.
  ScenarioRandom(std::uint64_t seed, unsigned stream) {
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

  // Uniform on [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }

  // Standard normal by Marsaglia's polar method; the second value of a pair is kept.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0.0;
    double v = 0.0;
    double s = 0.0;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

  // Standard Cauchy by the inverse CDF, on the open interval (0, 1).
  double cauchy() {
    const double u = (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
    return std::tan(std::numbers::pi * (u - 0.5));
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  std::uint64_t state_[4]{};
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace robustfit::data::scenario_detail
