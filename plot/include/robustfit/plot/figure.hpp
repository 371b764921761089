#pragma once
// A small chart model: a figure of panels (axes), each with line / scatter series, horizontal
// and vertical reference lines and text labels, linear or log10 axes; drawn by Cairo to PNG,
// SVG or PDF (render.hpp). Colours carry alpha, so dense scatters blend; scatters of more than
// Figure::bin_points_above points are drawn binned (see there).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace robustfit::plot {

struct Color {
  double r = 0, g = 0, b = 0, a = 1;
  Color with_alpha(double alpha) const { return {r, g, b, alpha}; }
};
// A colour-blind-safe palette (Okabe & Ito), cycling.
Color palette(std::size_t index);

enum class Scale { linear, log10 };  // log10 skips values <= 0
enum class Mark { line, points, line_and_points };

struct Series {
  std::string label;  // empty: not in the legend
  std::vector<double> x, y;  // equal lengths; non-finite points are skipped (and break a line)
  Color color;
  Mark mark = Mark::line_and_points;
  double line_width = 2.0;
  double point_radius = 3.5;
  bool dashed = false;
};

struct ReferenceLine {  // a horizontal line across the panel at y
  double y = 0;
  std::string label;
  Color color{0.35, 0.35, 0.35, 1};
  bool dashed = true;
};

struct VerticalLine {  // a vertical line across the panel at x
  double x = 0;
  std::string label;
  Color color{0.35, 0.35, 0.35, 1};
  bool dashed = true;
};

struct TextLabel {  // text placed at data coordinates (its left end, baseline centred)
  double x = 0, y = 0;
  std::string text;
  Color color;
  double offset = 0;  // pixels (points) to the right of (x, y), so a label beside a point clears it
};

struct Axes {
  std::string title, x_label, y_label;  // put units in the labels: "time (s)"
  Scale x_scale = Scale::linear, y_scale = Scale::linear;
  std::optional<double> x_min, x_max, y_min, y_max;  // default: the data's range, padded
  std::vector<Series> series;
  std::vector<ReferenceLine> reference_lines;
  std::vector<VerticalLine> vertical_lines;
  std::vector<TextLabel> labels;
  bool legend = true;
  // When not empty the panel shows only its title, a frame and this text in the middle (a panel
  // that has nothing to plot says why).
  std::string message;

  Series& add_line(std::string label, std::vector<double> x, std::vector<double> y, Color color);
  Series& add_points(std::string label, std::vector<double> x, std::vector<double> y, Color color);
};

struct Figure {
  int width = 800, height = 500;  // pixels (PNG) or points (SVG)
  std::string title;              // above all panels; may be empty
  int columns = 1;                // panels are laid out row by row
  std::vector<Axes> panels;
  // A points series with more usable points than this is drawn as a 2-pixel grid of cells,
  // each filled with the colour of its k points blended over each other (alpha 1 - (1 - a)^k):
  // the look of alpha blending at a cost that does not grow with the number of points drawn,
  // and vector files (SVG, PDF) of bounded size.
  std::size_t bin_points_above = 100000;

  Axes& add_panel() { return panels.emplace_back(); }
};

}  // namespace robustfit::plot
