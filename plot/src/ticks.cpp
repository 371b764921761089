#include "ticks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace robustfit::plot::detail {

Range axis_range(const std::vector<double>& values, Scale scale, std::optional<double> fixed_low,
                 std::optional<double> fixed_high) {
  double low = INFINITY, high = -INFINITY;
  for (const double v : values) {
    if (!std::isfinite(v) || (scale == Scale::log10 && v <= 0)) continue;
    const double u = scale == Scale::log10 ? std::log10(v) : v;
    low = std::min(low, u);
    high = std::max(high, u);
  }
  if (!(low <= high)) low = 0, high = 1;
  if (high - low < 1e-12) {
    const double half = scale == Scale::log10 ? 0.5 : std::max(0.5, std::abs(low) * 0.1);
    low -= half, high += half;
  } else {
    const double pad = 0.05 * (high - low);
    low -= pad, high += pad;
  }
  const auto to_axis = [scale](double v) { return scale == Scale::log10 ? std::log10(v) : v; };
  if (fixed_low && (scale == Scale::linear || *fixed_low > 0)) low = to_axis(*fixed_low);
  if (fixed_high && (scale == Scale::linear || *fixed_high > 0)) high = to_axis(*fixed_high);
  if (high <= low) high = low + 1;
  return {low, high};
}

std::string format_tick(double value) {
  if (value == 0) return "0";
  const double magnitude = std::abs(value);
  char text[32];
  if (magnitude >= 1e5 || magnitude < 1e-3) {
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude) + 1e-9));
    const double mantissa = value / std::pow(10.0, exponent);
    if (std::abs(mantissa - std::round(mantissa)) < 1e-9 && std::abs(std::round(mantissa)) == 1)
      std::snprintf(text, sizeof text, "%s1e%d", mantissa < 0 ? "-" : "", exponent);
    else
      std::snprintf(text, sizeof text, "%.3ge%d", mantissa, exponent);
  } else {
    std::snprintf(text, sizeof text, "%.6g", value);
  }
  return text;
}

std::vector<Tick> axis_ticks(Range range, Scale scale) {
  std::vector<Tick> ticks;
  if (scale == Scale::log10) {
    const int first = static_cast<int>(std::ceil(range.low - 1e-9));
    const int last = static_cast<int>(std::floor(range.high + 1e-9));
    const int decades = last - first + 1;
    const int every = decades > 8 ? (decades + 7) / 8 : 1;
    for (int k = first; k <= last; k += every) ticks.push_back({double(k), format_tick(std::pow(10.0, k))});
    if (decades <= 2) {  // short range: 2 and 5 between the decades
      for (int k = first - 1; k <= last; ++k)
        for (const double m : {2.0, 5.0}) {
          const double position = k + std::log10(m);
          if (position >= range.low && position <= range.high)
            ticks.push_back({position, format_tick(m * std::pow(10.0, k))});
        }
      std::sort(ticks.begin(), ticks.end(), [](const Tick& a, const Tick& b) { return a.position < b.position; });
    }
    return ticks;
  }
  const double span = range.high - range.low;
  const double raw = span / 6;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (span / step <= 7) break;
  }
  for (double v = std::ceil(range.low / step - 1e-9) * step; v <= range.high + 1e-9 * step; v += step) {
    const double clean = std::abs(v) < step * 1e-9 ? 0.0 : v;
    ticks.push_back({clean, format_tick(clean)});
  }
  return ticks;
}

}  // namespace robustfit::plot::detail
