// fit --plot: the figure's panels and what they carry, the files, large n, and bad paths.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <iostream>
#include <random>
#include <sstream>

#include "cli_runner.hpp"
#include "diagnostic_plots.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path scratch_folder() {
  const auto dir = fs::path(temp_file("plots-keep", "")).parent_path() / "plots";
  fs::create_directories(dir);
  return dir;
}

const plot::Series* series_named(const plot::Axes& axes, const std::string& label) {
  for (const auto& s : axes.series)
    if (s.label == label) return &s;
  return nullptr;
}

std::vector<std::string> label_texts(const plot::Axes& axes) {
  std::vector<std::string> texts;
  for (const auto& l : axes.labels) texts.push_back(l.text);
  std::sort(texts.begin(), texts.end());
  return texts;
}

// A fit without FAST-MCD (--no-mcd): the outlier map panel has no distances to draw.
struct Hbk {
  data::Design design;
  regression::FitResult fit;
  nlohmann::json r;
  Hbk() {
    data::DesignOptions options;
    options.response = "Y";
    design = data::make_design(data::read_csv(dataset_path("hbk.csv")), options);
    regression::LtsOptions lts;
    lts.mcd = false;
    fit = regression::fit_lts(design.X, design.y, lts);
    std::ifstream in(fixture_path("hbk_lts_inference.json"));
    r = nlohmann::json::parse(in);
  }
};

TEST(DiagnosticPlots, FourPanelsWithTheBandAndTheOutliersLabelled) {
  const Hbk hbk;
  const auto figure = app::diagnostic_figure(hbk.fit, {"hbk.csv", &hbk.design, 0.5, 0});
  ASSERT_EQ(figure.panels.size(), 4u);
  EXPECT_EQ(figure.columns, 2);
  const auto& index = figure.panels[0];
  EXPECT_EQ(index.title, "Residuals vs index");
  std::vector<double> band;
  for (const auto& line : index.reference_lines) band.push_back(line.y);
  EXPECT_EQ(band, (std::vector<double>{2.5, -2.5, 0}));
  // Labels go to the 10 rows of weight 0 (hbk rows 1-10, as ltsPlot's id.n), the largest
  // |residual| (row 7) first; those that would overprint another are left out.
  for (std::size_t panel = 0; panel < 3; ++panel) {
    const auto labels = label_texts(figure.panels[panel]);
    EXPECT_GE(labels.size(), 3u) << panel;
    EXPECT_NE(std::find(labels.begin(), labels.end(), "7"), labels.end()) << panel;
    for (const auto& text : labels) EXPECT_LE(std::stoi(text), 10) << panel << ": " << text;
  }
  ASSERT_NE(series_named(index, "outlier (weight 0)"), nullptr);
  EXPECT_EQ(series_named(index, "outlier (weight 0)")->x.size(), 10u);
  // Q-Q: sorted residuals against increasing normal quantiles, symmetric about 0.
  const auto& qq = figure.panels[2];
  std::vector<std::pair<double, double>> points;
  for (const auto& s : qq.series)
    if (s.mark == plot::Mark::points)
      for (std::size_t i = 0; i < s.x.size(); ++i) points.emplace_back(s.x[i], s.y[i]);
  ASSERT_EQ(points.size(), 75u);
  std::sort(points.begin(), points.end());
  for (std::size_t i = 1; i < points.size(); ++i) EXPECT_LE(points[i - 1].second, points[i].second);
  EXPECT_NEAR(points.front().first, -points.back().first, 1e-12);
  EXPECT_NEAR(points.back().first, 2.47473964921948, 1e-12);  // R: qnorm(ppoints(75))[75]
  // No robust distances: the fourth panel says so instead of plotting.
  EXPECT_TRUE(contains(figure.panels[3].message, "robust distances not computed"));
}

TEST(DiagnosticPlots, OutlierMapColoursClassesAndDrawsBothCutoffs) {
  Hbk hbk;
  hbk.fit.robust_distances = hbk.r["robust_distances"].get<std::vector<double>>();
  hbk.fit.rd_cutoff = hbk.r["rd_cutoff"].get<double>();
  const auto figure = app::diagnostic_figure(hbk.fit, {"hbk.csv", &hbk.design, 0.5, 0});
  const auto& map = figure.panels[3];
  EXPECT_TRUE(map.message.empty());
  ASSERT_EQ(map.vertical_lines.size(), 1u);
  EXPECT_EQ(map.vertical_lines[0].x, hbk.fit.rd_cutoff);
  ASSERT_NE(series_named(map, "bad leverage"), nullptr);
  EXPECT_EQ(series_named(map, "bad leverage")->x.size(), 10u);
  ASSERT_NE(series_named(map, "good leverage"), nullptr);
  EXPECT_EQ(series_named(map, "good leverage")->x.size(), 4u);
  EXPECT_EQ(series_named(map, "regular")->x.size(), 61u);
  EXPECT_EQ(series_named(map, "vertical outlier"), nullptr);  // none in hbk
  // ltsPlot labels the rows beyond either cut-off: hbk rows 1-14, the farthest (row 14,
  // RD 34) first; at most 12, none overprinting another.
  const auto labels = label_texts(map);
  EXPECT_GE(labels.size(), 4u);
  EXPECT_LE(labels.size(), 12u);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "14"), labels.end());
  for (const auto& text : labels) EXPECT_LE(std::stoi(text), 14) << text;

  const auto folder = scratch_folder();
  for (const char* name : {"hbk.png", "hbk.svg", "hbk.pdf"}) {
    app::save_diagnostic_plots(folder / name, hbk.fit, {"hbk.csv", &hbk.design, 0.5, 0});
    const std::string bytes = slurp(folder / name);
    EXPECT_GT(bytes.size(), 1000u) << name;
    const auto extension = fs::path(name).extension();
    if (extension == ".png") {
      EXPECT_EQ(bytes.substr(1, 3), "PNG");
    } else if (extension == ".pdf") {
      EXPECT_EQ(bytes.substr(0, 5), "%PDF-");
    } else {
      EXPECT_TRUE(contains(bytes, "<svg"));
    }
  }
  for (const auto& entry : fs::directory_iterator(folder))
    EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp-")) << entry.path();
}

TEST(DiagnosticPlots, LargeNIsBinnedFastAndBounded) {
  // 150000 rows, 10% vertical outliers: the scatters are drawn binned, the Q-Q thinned.
  const std::size_t n = 150000;
  std::mt19937_64 random(5);
  std::normal_distribution<double> normal;
  data::Design design;
  design.response = "y";
  design.predictors = {"x"};
  design.X.resize(static_cast<Eigen::Index>(n), 1);
  design.y.resize(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    design.X(r, 0) = normal(random);
    design.y(r) = 1 + 2 * design.X(r, 0) + normal(random) + (i % 10 == 0 ? 20 : 0);
    design.data_rows.push_back(i + 1);
  }
  regression::LtsOptions options;
  options.backend = regression::Backend::cpu;
  const auto fit = regression::fit_lts(design.X, design.y, options);
  auto start = std::chrono::steady_clock::now();
  const auto figure = app::diagnostic_figure(fit, {"generated.csv", &design, 0.5, 0});
  std::size_t qq_points = 0;
  for (const auto& s : figure.panels[2].series)
    if (s.mark == plot::Mark::points) qq_points += s.x.size();
  EXPECT_LT(qq_points, 30000u);
  const auto folder = scratch_folder();
  const double figure_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();
  app::save_diagnostic_plots(folder / "large.png", fit, {"generated.csv", &design, 0.5, 0});
  const double png_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  app::save_diagnostic_plots(folder / "large.svg", fit, {"generated.csv", &design, 0.5, 0});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "figure " << figure_seconds << " s, png " << png_seconds << " s, png + svg " << seconds << " s\n";
  EXPECT_LT(seconds, 20.0);  // about 2 s on a 2-core machine
  EXPECT_LT(fs::file_size(folder / "large.svg"), 60u << 20);
  EXPECT_LE(figure.panels[0].labels.size(), 12u);
}

TEST(DiagnosticPlots, CliWritesEachFormatAndRejectsBadPaths) {
  const auto folder = scratch_folder();
  const std::string stackloss = dataset_path("stackloss.csv").string();
  for (const char* name : {"cli.png", "cli.svg", "cli.PDF"}) {
    const auto run = run_cli({"fit", stackloss, "-y", "stack.loss", "--plot", (folder / name).string()});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(fs::exists(folder / name)) << name;
  }
  auto run = run_cli({"fit", stackloss, "-y", "stack.loss", "--plot", (folder / "plot.jpg").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "robust-fit: error: --plot: unknown plot file extension '.jpg'")) << run.err;
  EXPECT_TRUE(run.out.empty());
  run = run_cli({"fit", stackloss, "-y", "stack.loss", "--plot", (folder / "missing" / "plot.png").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "does not exist")) << run.err;
  EXPECT_FALSE(fs::exists(folder / "missing"));
  // A folder that exists but cannot be written to (a directory named like the file): exit 1,
  // nothing left behind.
  fs::create_directories(folder / "taken.png");
  run = run_cli({"fit", stackloss, "-y", "stack.loss", "--plot", (folder / "taken.png").string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "cannot write")) << run.err;
  for (const auto& entry : fs::directory_iterator(folder))
    EXPECT_FALSE(contains(entry.path().filename().string(), ".tmp-")) << entry.path();
}

}  // namespace
}  // namespace robustfit::testing
