#pragma once
// The regular sample that brackets ranks of n values, shared by the serial bracketed selections
// (cpu_select_bracketed.cpp) and the column selections (cpu_select_columns.cpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <utility>

namespace robustfit::selection::detail {

// Below this size a copy and std::nth_element cost about as much as sampling.
constexpr std::size_t kMinBracketed = 4096;
// Sample ranks either side of k's place: 6 standard deviations of a sample quantile.
constexpr double kMarginSigmas = 6.0;

// The sample size s ~ 2 n^(2/3) balances selecting in the sample (~s) against selecting among
// the values inside the bracket (~n / sqrt(s)); s <= n / 4, so the stride n / s is at least 4.
inline std::size_t sample_size(std::size_t n) {
  return std::min(n / 4, static_cast<std::size_t>(2.0 * std::cbrt(static_cast<double>(n) * static_cast<double>(n))));
}

// A regular sample of s values into `sample`; false when it holds a NaN.
template <class T>
bool take_sample(std::span<const T> values, std::size_t s, T* sample) {
  const std::size_t stride = values.size() / s;
  for (std::size_t i = 0; i < s; ++i) sample[i] = values[i * stride];
  return std::none_of(sample, sample + s, [](T v) { return std::isnan(v); });
}

// [low, high] around ranks k_low .. k_high of n from the sample's order statistics, kMarginSigmas
// standard deviations of a sample quantile below k_low's place and above k_high's (an infinite
// end where that passes the sample's end). Reorders the sample.
template <class T>
std::pair<T, T> sample_bracket(T* sample, std::size_t s, std::size_t n, std::size_t k_low, std::size_t k_high) {
  const auto place = [&](std::size_t k) {
    const double q = static_cast<double>(k) / static_cast<double>(n);
    const auto centre = static_cast<std::size_t>(q * static_cast<double>(s));
    const auto margin = static_cast<std::size_t>(kMarginSigmas * std::sqrt(static_cast<double>(s) * std::max(q * (1 - q), 0.01))) + 2;
    return std::pair{centre, margin};
  };
  constexpr T inf = std::numeric_limits<T>::infinity();
  T low = -inf, high = inf;
  std::size_t upper_from = 0;
  if (const auto [centre, margin] = place(k_low); centre >= margin) {
    upper_from = centre - margin;
    std::nth_element(sample, sample + upper_from, sample + s);
    low = sample[upper_from];
  }
  if (const auto [centre, margin] = place(k_high); centre + margin < s) {
    std::nth_element(sample + upper_from, sample + centre + margin, sample + s);
    high = sample[centre + margin];
  }
  return {low, high};
}

}  // namespace robustfit::selection::detail
