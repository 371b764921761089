// Selection inputs of docs/BENCHMARKS.md. Every value comes from one seeded xoshiro256**
// stream, converted with our own transforms (polar normals, order statistics for Beta), so the
// output is identical across standard libraries and platforms.
#include "robustfit/data/distributions.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "robustfit/common/random.hpp"

namespace robustfit::data {
namespace {

constexpr std::array<Distribution, 19> kAll = {
    Distribution::uniform,
    Distribution::normal,
    Distribution::half_normal,
    Distribution::beta_2_5,
    Distribution::cauchy,
    Distribution::mixture_normal_66_33,
    Distribution::mixture_normal_50_50,
    Distribution::half_normal_10pct_ten,
    Distribution::half_normal_wide_66_33,
    Distribution::half_normal_wide_50_50,
    Distribution::few_huge,
    Distribution::distinct_d,
    Distribution::all_equal,
    Distribution::two_values_95,
    Distribution::sorted,
    Distribution::reverse_sorted,
    Distribution::bucket_killer,
    Distribution::near_zero_doubles,
    Distribution::signed_zeros_and_infs,
};

constexpr std::array<std::string_view, kAll.size()> kNames = {
    "uniform",
    "normal",
    "half_normal",
    "beta_2_5",
    "cauchy",
    "mixture_normal_66_33",
    "mixture_normal_50_50",
    "half_normal_10pct_ten",
    "half_normal_wide_66_33",
    "half_normal_wide_50_50",
    "few_huge",
    "distinct_d",
    "all_equal",
    "two_values_95",
    "sorted",
    "reverse_sorted",
    "bucket_killer",
    "near_zero_doubles",
    "signed_zeros_and_infs",
};

// Parameters of Beliakov's mixtures (the paper's text lost them; these are our choices).
constexpr double kOutlierShift = 10.0;       // mean of the outlying normal component
constexpr double kWideSigma = 10.0;          // sigma of the "wider normal"
constexpr double kTwoThirds = 2.0 / 3.0;     // "66.6% / 33.3%"
constexpr double kHugeValue = 1e30;          // few_huge magnitude
constexpr std::size_t kHugeCount = 3;        // few_huge: at most this many huge values
constexpr int kKillerLowestPower = -32;      // bucket killer: 2^-32 .. 2^32
constexpr int kKillerPowers = 65;
constexpr double kKillerJitter = 0x1p-10;    // the n-65 values lie in 2^-32 * [1, 1 + jitter)
constexpr double kNearZeroMultiples = 0x1p24;  // near_zero: |x| < 2^24 * denorm_min

using Rng = common::Random;

// Beta(2,5) is the 2nd smallest of 6 uniforms (integer parameters: an order statistic).
double beta_2_5(Rng& rng) {
  std::array<double, 6> u{};
  for (auto& x : u) x = rng.uniform();
  std::partial_sort(u.begin(), u.begin() + 2, u.end());
  return u[1];
}

template <class T>
void shuffle(std::vector<T>& values, Rng& rng) {  // Fisher-Yates with our generator
  for (std::size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[rng.below(i)]);
}

template <class T, class Draw>
std::vector<T> draw_each(std::size_t n, Draw draw) {
  std::vector<T> values(n);
  for (auto& x : values) x = static_cast<T>(draw());
  return values;
}

template <class T>
std::vector<T> bucket_killer(std::size_t n, Rng& rng) {
  std::vector<T> values;
  values.reserve(n);
  for (int i = 0; i < kKillerPowers && values.size() < n; ++i)
    values.push_back(static_cast<T>(std::ldexp(1.0, kKillerLowestPower + i)));
  const double base = std::ldexp(1.0, kKillerLowestPower);
  while (values.size() < n) values.push_back(static_cast<T>(base * (1.0 + kKillerJitter * rng.uniform())));
  shuffle(values, rng);
  return values;
}

template <class T>
std::vector<T> two_values_95(std::size_t n, Rng& rng) {
  std::vector<T> values(n, T(1));
  std::fill(values.begin() + static_cast<std::ptrdiff_t>(n - n / 20), values.end(), T(2));
  shuffle(values, rng);
  return values;
}

template <class T>
std::vector<T> few_huge(std::size_t n, Rng& rng) {
  auto values = draw_each<T>(n, [&] { return rng.normal(); });
  const std::size_t count = std::min(n, kHugeCount);
  for (std::size_t i = 0; i < count; ++i)
    values[rng.below(n)] = static_cast<T>(kHugeValue * (1.0 + rng.uniform()));
  return values;
}

template <class T>
std::vector<T> signed_zeros_and_infs(std::size_t n, Rng& rng) {
  constexpr T inf = std::numeric_limits<T>::infinity();
  return draw_each<T>(n, [&]() -> T {
    const double u = rng.uniform();
    if (u < 0.10) return T(0);
    if (u < 0.20) return -T(0);
    if (u < 0.25) return inf;
    if (u < 0.30) return -inf;
    return static_cast<T>(rng.normal());
  });
}

}  // namespace

std::span<const Distribution> all_distributions() { return kAll; }

std::string_view to_string(Distribution distribution) {
  for (std::size_t i = 0; i < kAll.size(); ++i)
    if (kAll[i] == distribution) return kNames[i];
  throw std::invalid_argument("to_string: unknown Distribution value");
}

Distribution parse_distribution(std::string_view name) {
  for (std::size_t i = 0; i < kAll.size(); ++i)
    if (kNames[i] == name) return kAll[i];
  std::string message = "unknown distribution '" + std::string(name) + "'; expected one of:";
  for (auto known : kNames) message += " " + std::string(known);
  throw std::invalid_argument(message);
}

template <class T>
std::vector<T> make_distribution(Distribution distribution, std::size_t n, std::uint64_t seed,
                                 std::size_t distinct) {
  Rng rng(seed);
  const auto mix = [&](double first_share, auto first, auto second) {
    return draw_each<T>(n, [&] { return rng.uniform() < first_share ? first() : second(); });
  };
  const auto normal = [&] { return rng.normal(); };
  const auto half_normal = [&] { return std::fabs(rng.normal()); };
  const auto shifted = [&] { return kOutlierShift + rng.normal(); };
  const auto wide = [&] { return kWideSigma * rng.normal(); };
  switch (distribution) {
    case Distribution::uniform: return draw_each<T>(n, [&] { return rng.uniform(); });
    case Distribution::normal: return draw_each<T>(n, normal);
    case Distribution::half_normal: return draw_each<T>(n, half_normal);
    case Distribution::beta_2_5: return draw_each<T>(n, [&] { return beta_2_5(rng); });
    case Distribution::cauchy:
      return draw_each<T>(n, [&] { return std::tan(std::numbers::pi * (rng.uniform_open() - 0.5)); });
    case Distribution::mixture_normal_66_33: return mix(kTwoThirds, normal, shifted);
    case Distribution::mixture_normal_50_50: return mix(0.5, normal, shifted);
    case Distribution::half_normal_10pct_ten: return mix(0.9, half_normal, [] { return 10.0; });
    case Distribution::half_normal_wide_66_33: return mix(kTwoThirds, half_normal, wide);
    case Distribution::half_normal_wide_50_50: return mix(0.5, half_normal, wide);
    case Distribution::few_huge: return few_huge<T>(n, rng);
    case Distribution::distinct_d: {
      if (distinct == 0) throw std::invalid_argument("make_distribution: distinct must be >= 1");
      return draw_each<T>(n, [&] { return static_cast<double>(rng.below(distinct)); });
    }
    case Distribution::all_equal: return std::vector<T>(n, T(1));
    case Distribution::two_values_95: return two_values_95<T>(n, rng);
    case Distribution::sorted:
    case Distribution::reverse_sorted: {
      auto values = draw_each<T>(n, [&] { return rng.uniform(); });
      std::sort(values.begin(), values.end());
      if (distribution == Distribution::reverse_sorted) std::reverse(values.begin(), values.end());
      return values;
    }
    case Distribution::bucket_killer: return bucket_killer<T>(n, rng);
    case Distribution::near_zero_doubles: {
      constexpr T tiny = std::numeric_limits<T>::denorm_min();
      return draw_each<T>(n, [&] {
        const T magnitude = tiny * static_cast<T>(std::floor(rng.uniform() * kNearZeroMultiples));
        return rng.uniform() < 0.5 ? -magnitude : magnitude;
      });
    }
    case Distribution::signed_zeros_and_infs: return signed_zeros_and_infs<T>(n, rng);
  }
  throw std::invalid_argument("make_distribution: unknown Distribution value");
}

template std::vector<float> make_distribution<float>(Distribution, std::size_t, std::uint64_t, std::size_t);
template std::vector<double> make_distribution<double>(Distribution, std::size_t, std::uint64_t, std::size_t);

}  // namespace robustfit::data
