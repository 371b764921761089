// Cairo drawing of a Figure: panels in a grid, each with a frame, grid lines at the ticks, tick
// labels, axis labels, series clipped to the plot area, reference lines and a legend placed in
// the corner where it covers the fewest points.
#include "robustfit/plot/render.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <unordered_map>

#include "ticks.hpp"

namespace robustfit::plot {
namespace {

constexpr const char* kFont = "DejaVu Sans";
constexpr double kTitleSize = 17, kPanelTitleSize = 14.5, kLabelSize = 13, kTickSize = 11.5, kLegendSize = 12;

struct Box {
  double x, y, w, h;
};

void set_color(cairo_t* cr, const Color& c) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a); }

void font(cairo_t* cr, double size, bool bold = false) {
  cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, text.c_str(), &e);
  return e.x_advance;
}

// Draws text with its anchor at (x, y): align 0 left, 0.5 centre, 1 right; baseline at y + shift
// so that the text's middle sits on y.
void text_at(cairo_t* cr, const std::string& text, double x, double y, double align) {
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  cairo_move_to(cr, x - align * text_width(cr, text), y + (fe.ascent - fe.descent) / 2);
  cairo_show_text(cr, text.c_str());
}

struct Mapper {
  Box area;
  detail::Range xr, yr;
  Scale xs, ys;
  double px(double x) const {
    const double u = xs == Scale::log10 ? std::log10(x) : x;
    return area.x + (u - xr.low) / (xr.high - xr.low) * area.w;
  }
  double py(double y) const {
    const double u = ys == Scale::log10 ? std::log10(y) : y;
    return area.y + area.h - (u - yr.low) / (yr.high - yr.low) * area.h;
  }
  bool usable(double x, double y) const {
    return std::isfinite(x) && std::isfinite(y) && (xs == Scale::linear || x > 0) && (ys == Scale::linear || y > 0);
  }
};

void draw_legend(cairo_t* cr, const Axes& axes, const Mapper& map) {
  std::vector<const Series*> entries;
  for (const auto& s : axes.series)
    if (!s.label.empty()) entries.push_back(&s);
  std::vector<const ReferenceLine*> lines;
  for (const auto& r : axes.reference_lines)
    if (!r.label.empty()) lines.push_back(&r);
  std::vector<ReferenceLine> verticals;  // in the legend like horizontal ones
  for (const auto& v : axes.vertical_lines)
    if (!v.label.empty()) verticals.push_back({v.x, v.label, v.color, v.dashed});
  for (const auto& v : verticals) lines.push_back(&v);
  if (!axes.legend || (entries.empty() && lines.empty())) return;
  font(cr, kLegendSize);
  double widest = 0;
  for (const auto* s : entries) widest = std::max(widest, text_width(cr, s->label));
  for (const auto* r : lines) widest = std::max(widest, text_width(cr, r->label));
  const double row = kLegendSize * 1.45, swatch = 26, pad = 7;
  const double w = pad * 2 + swatch + 6 + widest, h = pad * 2 + row * double(entries.size() + lines.size());
  // The corner covering the fewest data points.
  const std::array<Box, 4> corners = {{{map.area.x + map.area.w - w - 6, map.area.y + 6, w, h},
                                       {map.area.x + 6, map.area.y + 6, w, h},
                                       {map.area.x + map.area.w - w - 6, map.area.y + map.area.h - h - 6, w, h},
                                       {map.area.x + 6, map.area.y + map.area.h - h - 6, w, h}}};
  std::size_t best = 0, best_count = SIZE_MAX;
  for (std::size_t c = 0; c < corners.size(); ++c) {
    std::size_t count = 0;
    for (const auto& s : axes.series)
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        if (!map.usable(s.x[i], s.y[i])) continue;
        const double x = map.px(s.x[i]), y = map.py(s.y[i]);
        const Box& b = corners[c];
        count += x >= b.x - 4 && x <= b.x + b.w + 4 && y >= b.y - 4 && y <= b.y + b.h + 4;
      }
    if (count < best_count) best = c, best_count = count;
  }
  const Box& b = corners[best];
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_set_source_rgba(cr, 1, 1, 1, 0.88);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  double y = b.y + pad + row / 2;
  for (const auto* s : entries) {
    set_color(cr, s->color);
    if (s->mark != Mark::points) {
      cairo_set_line_width(cr, s->line_width);
      if (s->dashed) {
        const double dash[] = {6, 4};
        cairo_set_dash(cr, dash, 2, 0);
      }
      cairo_move_to(cr, b.x + pad, y);
      cairo_line_to(cr, b.x + pad + swatch, y);
      cairo_stroke(cr);
      cairo_set_dash(cr, nullptr, 0, 0);
    }
    if (s->mark != Mark::line) {
      cairo_arc(cr, b.x + pad + swatch / 2, y, s->point_radius, 0, 2 * M_PI);
      cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, s->label, b.x + pad + swatch + 6, y, 0);
    y += row;
  }
  for (const auto* r : lines) {
    set_color(cr, r->color);
    cairo_set_line_width(cr, 1.5);
    const double dash[] = {6, 4};
    if (r->dashed) cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, b.x + pad, y);
    cairo_line_to(cr, b.x + pad + swatch, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, r->label, b.x + pad + swatch + 6, y, 0);
    y += row;
  }
}

// A panel with nothing to plot: its title, a frame and the message in the middle.
void draw_message_panel(cairo_t* cr, const Axes& axes, Box cell) {
  const Box a{cell.x + 40, cell.y + 34, cell.w - 58, cell.h - 70};
  font(cr, kPanelTitleSize, true);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (!axes.title.empty()) text_at(cr, axes.title, a.x + a.w / 2, cell.y + 17, 0.5);
  cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, std::round(a.x) + 0.5, std::round(a.y) + 0.5, std::round(a.w), std::round(a.h));
  cairo_stroke(cr);
  font(cr, kLabelSize);
  cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
  text_at(cr, axes.message, a.x + a.w / 2, a.y + a.h / 2, 0.5);
}

// Many points: counts on a grid of 2-unit cells, each cell filled once with the colour of its
// k points composited over each other (alpha 1 - (1 - a)^k).
void draw_binned_points(cairo_t* cr, const Series& s, const Mapper& map) {
  constexpr double kCell = 2;
  const auto columns = static_cast<std::size_t>(std::ceil(map.area.w / kCell)) + 1;
  std::unordered_map<std::size_t, std::size_t> counts;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    if (!map.usable(s.x[i], s.y[i])) continue;
    const double cx = std::floor((map.px(s.x[i]) - map.area.x) / kCell), cy = std::floor((map.py(s.y[i]) - map.area.y) / kCell);
    if (cx < 0 || cy < 0 || cx >= double(columns) || cy * kCell > map.area.h + kCell) continue;
    ++counts[static_cast<std::size_t>(cy) * columns + static_cast<std::size_t>(cx)];
  }
  // Cells sorted by position, so the file's content does not depend on the hash order.
  std::vector<std::pair<std::size_t, std::size_t>> cells(counts.begin(), counts.end());
  std::sort(cells.begin(), cells.end());
  for (const auto& [cell, count] : cells) {
    const double alpha = 1 - std::pow(1 - s.color.a, static_cast<double>(count));
    cairo_set_source_rgba(cr, s.color.r, s.color.g, s.color.b, alpha);
    cairo_rectangle(cr, map.area.x + double(cell % columns) * kCell, map.area.y + double(cell / columns) * kCell, kCell, kCell);
    cairo_fill(cr);
  }
}

std::size_t usable_points(const Series& s, const Mapper& map) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i) count += map.usable(s.x[i], s.y[i]);
  return count;
}

void draw_panel(cairo_t* cr, const Axes& axes, Box cell, std::size_t bin_points_above) {
  if (!axes.message.empty()) return draw_message_panel(cr, axes, cell);
  // Room for the y tick labels: measured from the labels themselves.
  std::vector<double> xs, ys;
  for (const auto& s : axes.series) {
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("plot: series '" + s.label + "' has " + std::to_string(s.x.size()) + " x and " +
                                  std::to_string(s.y.size()) + " y values");
    xs.insert(xs.end(), s.x.begin(), s.x.end());
    ys.insert(ys.end(), s.y.begin(), s.y.end());
  }
  for (const auto& r : axes.reference_lines) ys.push_back(r.y);
  for (const auto& v : axes.vertical_lines) xs.push_back(v.x);
  for (const auto& t : axes.labels) xs.push_back(t.x), ys.push_back(t.y);
  const auto xr = detail::axis_range(xs, axes.x_scale, axes.x_min, axes.x_max);
  const auto yr = detail::axis_range(ys, axes.y_scale, axes.y_min, axes.y_max);
  const auto xticks = detail::axis_ticks(xr, axes.x_scale), yticks = detail::axis_ticks(yr, axes.y_scale);
  font(cr, kTickSize);
  double ytick_width = 0;
  for (const auto& t : yticks) ytick_width = std::max(ytick_width, text_width(cr, t.text));

  const double top = axes.title.empty() ? 12 : 34;
  const double left = 14 + (axes.y_label.empty() ? 0 : kLabelSize + 10) + ytick_width + 8;
  const double bottom = 10 + kTickSize + 8 + (axes.x_label.empty() ? 0 : kLabelSize + 12);
  const Mapper map{{cell.x + left, cell.y + top, cell.w - left - 18, cell.h - top - bottom},
                   xr, yr, axes.x_scale, axes.y_scale};
  const Box& a = map.area;

  if (!axes.title.empty()) {
    font(cr, kPanelTitleSize, true);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, axes.title, a.x + a.w / 2, cell.y + 17, 0.5);
  }
  // Grid and tick labels.
  cairo_set_line_width(cr, 1);
  font(cr, kTickSize);
  for (const auto& t : xticks) {
    const double x = a.x + (t.position - xr.low) / (xr.high - xr.low) * a.w;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, std::round(x) + 0.5, a.y);
    cairo_line_to(cr, std::round(x) + 0.5, a.y + a.h);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text_at(cr, t.text, x, a.y + a.h + 6 + kTickSize / 2, 0.5);
  }
  for (const auto& t : yticks) {
    const double y = a.y + a.h - (t.position - yr.low) / (yr.high - yr.low) * a.h;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, a.x, std::round(y) + 0.5);
    cairo_line_to(cr, a.x + a.w, std::round(y) + 0.5);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text_at(cr, t.text, a.x - 6, y, 1);
  }
  cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
  cairo_rectangle(cr, std::round(a.x) + 0.5, std::round(a.y) + 0.5, std::round(a.w), std::round(a.h));
  cairo_stroke(cr);
  // Axis labels.
  font(cr, kLabelSize);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (!axes.x_label.empty()) text_at(cr, axes.x_label, a.x + a.w / 2, cell.y + cell.h - 8 - kLabelSize / 2, 0.5);
  if (!axes.y_label.empty()) {
    cairo_save(cr);
    cairo_translate(cr, cell.x + 12 + kLabelSize / 2, a.y + a.h / 2);
    cairo_rotate(cr, -M_PI / 2);
    text_at(cr, axes.y_label, 0, 0, 0.5);
    cairo_restore(cr);
  }

  cairo_save(cr);
  cairo_rectangle(cr, a.x, a.y, a.w, a.h);
  cairo_clip(cr);
  for (const auto& r : axes.reference_lines) {
    if (axes.y_scale == Scale::log10 && r.y <= 0) continue;
    set_color(cr, r.color);
    cairo_set_line_width(cr, 1.5);
    const double dash[] = {6, 4};
    if (r.dashed) cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, a.x, map.py(r.y));
    cairo_line_to(cr, a.x + a.w, map.py(r.y));
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
  }
  for (const auto& v : axes.vertical_lines) {
    if (axes.x_scale == Scale::log10 && v.x <= 0) continue;
    set_color(cr, v.color);
    cairo_set_line_width(cr, 1.5);
    const double dash[] = {6, 4};
    if (v.dashed) cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, map.px(v.x), a.y);
    cairo_line_to(cr, map.px(v.x), a.y + a.h);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
  }
  for (const auto& s : axes.series) {
    set_color(cr, s.color);
    if (s.mark != Mark::points) {
      cairo_set_line_width(cr, s.line_width);
      cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
      const double dash[] = {6, 4};
      if (s.dashed) cairo_set_dash(cr, dash, 2, 0);
      bool pen_down = false;
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        if (!map.usable(s.x[i], s.y[i])) {
          pen_down = false;
          continue;
        }
        if (pen_down)
          cairo_line_to(cr, map.px(s.x[i]), map.py(s.y[i]));
        else
          cairo_move_to(cr, map.px(s.x[i]), map.py(s.y[i]));
        pen_down = true;
      }
      cairo_stroke(cr);
      cairo_set_dash(cr, nullptr, 0, 0);
    }
    if (s.mark == Mark::points && usable_points(s, map) > bin_points_above) {
      draw_binned_points(cr, s, map);
    } else if (s.mark != Mark::line) {
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        if (!map.usable(s.x[i], s.y[i])) continue;
        cairo_new_sub_path(cr);
        cairo_arc(cr, map.px(s.x[i]), map.py(s.y[i]), s.point_radius, 0, 2 * M_PI);
      }
      cairo_fill(cr);
    }
  }
  font(cr, kTickSize);
  for (const auto& t : axes.labels) {
    if (!map.usable(t.x, t.y)) continue;
    set_color(cr, t.color);
    text_at(cr, t.text, map.px(t.x) + t.offset, map.py(t.y), 0);
  }
  cairo_restore(cr);
  draw_legend(cr, axes, map);
}

void draw(cairo_t* cr, const Figure& figure) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  const double title_height = figure.title.empty() ? 0 : 36;
  if (!figure.title.empty()) {
    font(cr, kTitleSize, true);
    cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
    text_at(cr, figure.title, figure.width / 2.0, 20, 0.5);
  }
  const int columns = std::max(1, std::min<int>(figure.columns, static_cast<int>(figure.panels.size())));
  const int rows = (static_cast<int>(figure.panels.size()) + columns - 1) / columns;
  const double cell_w = figure.width / double(columns), cell_h = (figure.height - title_height) / rows;
  for (std::size_t i = 0; i < figure.panels.size(); ++i) {
    const int r = static_cast<int>(i) / columns, c = static_cast<int>(i) % columns;
    draw_panel(cr, figure.panels[i], {c * cell_w, title_height + r * cell_h, cell_w, cell_h}, figure.bin_points_above);
  }
}

void check(const Figure& figure) {
  if (figure.panels.empty()) throw std::invalid_argument("plot: a figure needs at least one panel");
  if (figure.width < 1 || figure.height < 1) throw std::invalid_argument("plot: figure size must be positive");
}

void check_status(cairo_status_t status, const std::filesystem::path& path) {
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error("cannot write '" + path.string() + "': " + cairo_status_to_string(status));
}

// Owners that release the surface and context when draw() throws (a series with mismatched
// x and y): LeakSanitizer found the 1.6 MB image surface leaked on that path.
using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

void draw_on(cairo_surface_t* surface, const Figure& figure) {
  const Context cr(cairo_create(surface), &cairo_destroy);
  draw(cr.get(), figure);
}

// Each writer reports failures under `shown`, the name the caller asked for (save() writes a
// temporary file first).
void write_png(const Figure& figure, const std::filesystem::path& path, const std::filesystem::path& shown) {
  check(figure);
  const Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, figure.width, figure.height),
                        &cairo_surface_destroy);
  draw_on(surface.get(), figure);
  check_status(cairo_surface_write_to_png(surface.get(), path.c_str()), shown);
}

template <class Create>
void write_vector(const Figure& figure, const std::filesystem::path& path, const std::filesystem::path& shown,
                  Create create) {
  check(figure);
  const Surface surface(create(path.c_str(), double(figure.width), double(figure.height)), &cairo_surface_destroy);
  draw_on(surface.get(), figure);
  cairo_surface_finish(surface.get());
  check_status(cairo_surface_status(surface.get()), shown);
}

}  // namespace

void save_png(const Figure& figure, const std::filesystem::path& path) { write_png(figure, path, path); }

void save_svg(const Figure& figure, const std::filesystem::path& path) {
  write_vector(figure, path, path, cairo_svg_surface_create);
}

void save_pdf(const Figure& figure, const std::filesystem::path& path) {
  write_vector(figure, path, path, cairo_pdf_surface_create);
}

FileFormat file_format(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".png") return FileFormat::png;
  if (extension == ".svg") return FileFormat::svg;
  if (extension == ".pdf") return FileFormat::pdf;
  throw std::invalid_argument("unknown plot file extension '" + path.extension().string() + "' in '" + path.string() +
                              "' (expected .png, .svg or .pdf)");
}

void save(const Figure& figure, const std::filesystem::path& path) {
  const FileFormat format = file_format(path);
  check(figure);
  // Beside the target, so that rename() stays within one file system.
  std::filesystem::path temporary = path;
  temporary += ".tmp-" + std::to_string(std::random_device{}());
  try {
    switch (format) {
      case FileFormat::png: write_png(figure, temporary, path); break;
      case FileFormat::svg: write_vector(figure, temporary, path, cairo_svg_surface_create); break;
      case FileFormat::pdf: write_vector(figure, temporary, path, cairo_pdf_surface_create); break;
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) throw std::runtime_error("cannot write '" + path.string() + "': " + error.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

}  // namespace robustfit::plot
