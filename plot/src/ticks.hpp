#pragma once
// Axis ranges and tick positions: "nice" steps (1, 2, 5 x 10^k) on linear axes, decades (with
// 2 and 5 between them on short ranges) on log10 axes.
#include <string>
#include <vector>

#include "robustfit/plot/figure.hpp"

namespace robustfit::plot::detail {

struct Range {
  double low = 0, high = 1;  // in axis units: the value, or log10 of it on a log axis
};

// The padded range of `values` on `scale`, with the optional fixed ends applied.
Range axis_range(const std::vector<double>& values, Scale scale, std::optional<double> fixed_low,
                 std::optional<double> fixed_high);

struct Tick {
  double position;  // axis units
  std::string text;
};
std::vector<Tick> axis_ticks(Range range, Scale scale);

// A compact label for a value: 0.05, 120, 1e6 (no locale).
std::string format_tick(double value);

}  // namespace robustfit::plot::detail
