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

// The distributions arranged as a whole rather than drawn value by value.
bool arranged_as_whole(Distribution distribution) {
  return distribution == Distribution::few_huge || distribution == Distribution::two_values_95 ||
         distribution == Distribution::sorted || distribution == Distribution::reverse_sorted ||
         distribution == Distribution::bucket_killer;
}

// One value of a distribution whose values are independent draws; false for the others.
template <class T>
bool draw_independent(Distribution distribution, Rng& rng, std::size_t distinct, T& value) {
  const auto mix = [&](double first_share, auto first, auto second) {
    return rng.uniform() < first_share ? first() : second();
  };
  const auto normal = [&] { return rng.normal(); };
  const auto half_normal = [&] { return std::fabs(rng.normal()); };
  const auto shifted = [&] { return kOutlierShift + rng.normal(); };
  const auto wide = [&] { return kWideSigma * rng.normal(); };
  switch (distribution) {
    case Distribution::uniform: value = static_cast<T>(rng.uniform()); return true;
    case Distribution::normal: value = static_cast<T>(normal()); return true;
    case Distribution::half_normal: value = static_cast<T>(half_normal()); return true;
    case Distribution::beta_2_5: value = static_cast<T>(beta_2_5(rng)); return true;
    case Distribution::cauchy:
      value = static_cast<T>(std::tan(std::numbers::pi * (rng.uniform_open() - 0.5)));
      return true;
    case Distribution::mixture_normal_66_33: value = static_cast<T>(mix(kTwoThirds, normal, shifted)); return true;
    case Distribution::mixture_normal_50_50: value = static_cast<T>(mix(0.5, normal, shifted)); return true;
    case Distribution::half_normal_10pct_ten:
      value = static_cast<T>(mix(0.9, half_normal, [] { return 10.0; }));
      return true;
    case Distribution::half_normal_wide_66_33: value = static_cast<T>(mix(kTwoThirds, half_normal, wide)); return true;
    case Distribution::half_normal_wide_50_50: value = static_cast<T>(mix(0.5, half_normal, wide)); return true;
    case Distribution::distinct_d:
      if (distinct == 0) throw std::invalid_argument("make_distribution: distinct must be >= 1");
      value = static_cast<T>(static_cast<double>(rng.below(distinct)));
      return true;
    case Distribution::all_equal: value = T(1); return true;
    case Distribution::near_zero_doubles: {
      constexpr T tiny = std::numeric_limits<T>::denorm_min();
      const T magnitude = tiny * static_cast<T>(std::floor(rng.uniform() * kNearZeroMultiples));
      value = rng.uniform() < 0.5 ? -magnitude : magnitude;
      return true;
    }
    case Distribution::signed_zeros_and_infs: {
      constexpr T inf = std::numeric_limits<T>::infinity();
      const double u = rng.uniform();
      value = u < 0.10 ? T(0) : u < 0.20 ? -T(0) : u < 0.25 ? inf : u < 0.30 ? -inf : static_cast<T>(rng.normal());
      return true;
    }
    default: return false;
  }
}

template <class T>
std::vector<T> make_distribution(Distribution distribution, std::size_t n, std::uint64_t seed,
                                 std::size_t distinct) {
  Rng rng(seed);
  if (distribution == Distribution::distinct_d && distinct == 0)
    throw std::invalid_argument("make_distribution: distinct must be >= 1");
  if (!arranged_as_whole(distribution)) {
    std::vector<T> values(n);
    for (auto& x : values) {
      if (!draw_independent(distribution, rng, distinct, x)) throw std::invalid_argument("make_distribution: unknown Distribution value");
    }
    return values;
  }
  switch (distribution) {
    case Distribution::few_huge: return few_huge<T>(n, rng);
    case Distribution::two_values_95: return two_values_95<T>(n, rng);
    case Distribution::sorted:
    case Distribution::reverse_sorted: {
      auto values = draw_each<T>(n, [&] { return rng.uniform(); });
      std::sort(values.begin(), values.end());
      if (distribution == Distribution::reverse_sorted) std::reverse(values.begin(), values.end());
      return values;
    }
    case Distribution::bucket_killer: return bucket_killer<T>(n, rng);
    default: break;
  }
  throw std::invalid_argument("make_distribution: unknown Distribution value");
}

void for_each_distribution_chunk(Distribution distribution, std::size_t n, std::uint64_t seed,
                                 std::size_t distinct,
                                 const std::function<void(std::span<const double>)>& sink) {
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  if (distribution == Distribution::distinct_d && distinct == 0)
    throw std::invalid_argument("make_distribution: distinct must be >= 1");
  if (arranged_as_whole(distribution)) {
    const auto values = make_distribution<double>(distribution, n, seed, distinct);
    for (std::size_t i = 0; i < n; i += kChunk)
      sink(std::span<const double>(values.data() + i, std::min(kChunk, n - i)));
    return;
  }
  Rng rng(seed);
  std::vector<double> chunk;
  for (std::size_t i = 0; i < n; i += kChunk) {
    chunk.resize(std::min(kChunk, n - i));
    for (auto& x : chunk) draw_independent(distribution, rng, distinct, x);
    sink(chunk);
  }
}

template std::vector<float> make_distribution<float>(Distribution, std::size_t, std::uint64_t, std::size_t);
template std::vector<double> make_distribution<double>(Distribution, std::size_t, std::uint64_t, std::size_t);

}  // namespace robustfit::data
