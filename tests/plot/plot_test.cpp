// The plotting module: PNG and SVG files of the stated size, with the text they should carry.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "robustfit/plot/render.hpp"

namespace rp = robustfit::plot;

namespace {

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "robustfit-plot-test";
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Width and height from a PNG's IHDR chunk (big-endian at bytes 16..23), after the signature.
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(bytes.substr(12, 4), "IHDR");
  const auto word = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {word(16), word(20)};
}

rp::Figure sample_figure() {
  rp::Figure f;
  f.width = 640;
  f.height = 400;
  f.title = "A title";
  f.columns = 2;
  auto& a = f.add_panel();
  a.title = "log-log";
  a.x_label = "n (rows)";
  a.y_label = "time (s)";
  a.x_scale = a.y_scale = rp::Scale::log10;
  a.add_line("fast", {1e3, 1e4, 1e5}, {1e-3, 1e-2, 1e-1}, rp::palette(0));
  a.add_points("scatter", {1e3, 1e5}, {2e-3, 0.0 /* skipped on a log axis */}, rp::palette(1).with_alpha(0.4));
  a.reference_lines.push_back({0.05, "reference"});
  a.labels.push_back({1e4, 0.05, "a label", rp::palette(2)});
  auto& b = f.add_panel();
  b.x_label = "eps";
  b.y_label = "error";
  b.add_line("", {0, 0.1, 0.2}, {0.1, 5, 10}, rp::palette(3));
  return f;
}

}  // namespace

TEST(Plot, PngHasTheStatedPixelSize) {
  const auto path = scratch("figure.png");
  rp::save_png(sample_figure(), path);
  const auto [w, h] = png_size(slurp(path));
  EXPECT_EQ(w, 640u);
  EXPECT_EQ(h, 400u);
}

TEST(Plot, SvgHasTheStatedSize) {
  const auto path = scratch("figure.svg");
  rp::save_svg(sample_figure(), path);
  const std::string svg = slurp(path);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("width=\"640\""), std::string::npos) << svg.substr(0, 300);
  EXPECT_NE(svg.find("height=\"400\""), std::string::npos) << svg.substr(0, 300);
}

TEST(Plot, DrawsSomethingBesidesTheBackground) {
  // A blank figure and one with a line differ: the series is drawn.
  rp::Figure empty;
  empty.add_panel();
  rp::Figure with_line = empty;
  with_line.panels[0].add_line("x", {0, 1}, {0, 1}, rp::palette(0));
  rp::save_png(empty, scratch("empty.png"));
  rp::save_png(with_line, scratch("line.png"));
  EXPECT_NE(slurp(scratch("empty.png")), slurp(scratch("line.png")));
}

TEST(Plot, ErrorsNameTheProblem) {
  rp::Figure none;
  EXPECT_THROW(rp::save_png(none, scratch("none.png")), std::invalid_argument);
  rp::Figure bad;
  bad.add_panel().add_line("uneven", {1, 2, 3}, {1, 2}, rp::palette(0));
  try {
    rp::save_png(bad, scratch("bad.png"));
    FAIL() << "no std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("uneven"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rp::save_png(sample_figure(), "/nonexistent-folder/x.png"), std::runtime_error);
}
