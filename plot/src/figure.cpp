#include "robustfit/plot/figure.hpp"

#include <array>

namespace robustfit::plot {

Color palette(std::size_t index) {
  // Okabe & Ito (2008), without yellow (too light on white) and black (kept for text).
  static constexpr std::array<Color, 7> kColors = {{
      {0.000, 0.447, 0.698, 1},  // blue
      {0.835, 0.369, 0.000, 1},  // vermillion
      {0.000, 0.620, 0.451, 1},  // bluish green
      {0.800, 0.475, 0.655, 1},  // reddish purple
      {0.902, 0.624, 0.000, 1},  // orange
      {0.337, 0.706, 0.914, 1},  // sky blue
      {0.40, 0.40, 0.40, 1},     // grey
  }};
  return kColors[index % kColors.size()];
}

Series& Axes::add_line(std::string label, std::vector<double> x, std::vector<double> y, Color color) {
  Series& s = series.emplace_back();
  s.label = std::move(label);
  s.x = std::move(x);
  s.y = std::move(y);
  s.color = color;
  s.mark = Mark::line_and_points;
  return s;
}

Series& Axes::add_points(std::string label, std::vector<double> x, std::vector<double> y, Color color) {
  Series& s = add_line(std::move(label), std::move(x), std::move(y), color);
  s.mark = Mark::points;
  return s;
}

}  // namespace robustfit::plot
