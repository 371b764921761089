// save(): the format by extension, PDF output, atomic writes, and binned dense scatters.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "robustfit/plot/render.hpp"

namespace rp = robustfit::plot;
namespace fs = std::filesystem;

namespace {

// One folder per test: CTest runs the tests of this file in parallel, and one test's
// in-flight temporaries must not show up in another's no_temporaries() check.
fs::path folder() {
  const auto dir = fs::temp_directory_path() / "robustfit-plot-save-test" /
                   ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::create_directories(dir);
  return dir;
}

std::string head(const fs::path& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string s(bytes, '\0');
  in.read(s.data(), static_cast<std::streamsize>(bytes));
  return s;
}

rp::Figure scatter(std::size_t n) {
  rp::Figure f;
  auto& a = f.add_panel();
  std::mt19937_64 random(1);
  std::normal_distribution<double> normal;
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = normal(random), y[i] = normal(random);
  a.add_points("points", x, y, rp::palette(0).with_alpha(0.3));
  a.vertical_lines.push_back({1.0, "cut-off"});
  a.labels.push_back({0, 0, "origin", rp::palette(1), 5});
  auto& b = f.add_panel();
  b.title = "empty";
  b.message = "nothing to plot";
  f.columns = 2;
  return f;
}

bool no_temporaries() {
  for (const auto& entry : fs::directory_iterator(folder()))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) return false;
  return true;
}

TEST(PlotSave, PicksTheFormatByExtension) {
  EXPECT_EQ(rp::file_format("a.png"), rp::FileFormat::png);
  EXPECT_EQ(rp::file_format("a.SVG"), rp::FileFormat::svg);
  EXPECT_EQ(rp::file_format("dir.x/a.pdf"), rp::FileFormat::pdf);
  EXPECT_THROW(rp::file_format("a.jpg"), std::invalid_argument);
  EXPECT_THROW(rp::file_format("a"), std::invalid_argument);
  const auto f = scatter(100);
  rp::save(f, folder() / "s.png");
  rp::save(f, folder() / "s.svg");
  rp::save(f, folder() / "s.pdf");
  EXPECT_EQ(head(folder() / "s.png", 4), "\x89PNG");
  EXPECT_EQ(head(folder() / "s.svg", 5), "<?xml");
  EXPECT_EQ(head(folder() / "s.pdf", 5), "%PDF-");
  EXPECT_TRUE(no_temporaries());
}

TEST(PlotSave, FailureLeavesNothingBehind) {
  fs::create_directories(folder() / "a-directory.png");
  EXPECT_THROW(rp::save(scatter(10), folder() / "a-directory.png"), std::runtime_error);
  EXPECT_THROW(rp::save(scatter(10), folder() / "missing" / "x.svg"), std::runtime_error);
  EXPECT_THROW(rp::save(scatter(10), folder() / "x.gif"), std::invalid_argument);
  EXPECT_FALSE(fs::exists(folder() / "x.gif"));
  EXPECT_TRUE(no_temporaries());
}

TEST(PlotSave, DenseScattersAreBinnedSoVectorFilesStayBounded) {
  // Above bin_points_above the SVG holds grid cells, not one path per point: 10x the points
  // gives about the same file.
  rp::Figure small = scatter(150000), large = scatter(1500000);
  rp::save(small, folder() / "small.svg");
  rp::save(large, folder() / "large.svg");
  const auto small_size = fs::file_size(folder() / "small.svg"), large_size = fs::file_size(folder() / "large.svg");
  EXPECT_LT(large_size, 2 * small_size);
  // Not binned: the file grows with the points.
  small.bin_points_above = large.bin_points_above = SIZE_MAX;
  small.panels[0].series[0].x.resize(20000);
  small.panels[0].series[0].y.resize(20000);
  large.panels[0].series[0].x.resize(200000);
  large.panels[0].series[0].y.resize(200000);
  rp::save(small, folder() / "small-points.svg");
  rp::save(large, folder() / "large-points.svg");
  EXPECT_GT(fs::file_size(folder() / "large-points.svg"), 5 * fs::file_size(folder() / "small-points.svg"));
}

}  // namespace
