#include "bench_report.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "bench_output.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/plot/render.hpp"

namespace robustfit::app {
namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  return m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
}

std::string html(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fixed(double value, int digits) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string general(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// What distinguishes one curve: the estimator, and backend / selection where the grid varies them.
struct CurveNamer {
  bool backends = false, selections = false;
  explicit CurveNamer(const std::vector<BenchRun>& runs) {
    std::set<std::string> b, s;
    for (const auto& r : runs) {
      if (r.backend != "r") b.insert(r.backend);
      if (r.selection != "-") s.insert(r.selection);
    }
    backends = b.size() > 1 || (b.size() == 1 && *b.begin() != "cpu");
    selections = s.size() > 1;
  }
  std::string operator()(const BenchRun& r) const {
    std::string name = r.estimator;
    if (r.backend == "r") return name;
    if (backends && r.estimator != "ls") name += " " + r.backend;
    if (selections && r.selection != "-") name += " " + r.selection;
    return name;
  }
};

// Median of `value` over repeats (and any other runs the filter lets through), by curve and x.
template <class Filter, class X, class Y>
std::map<std::string, std::map<double, double>> curves(const std::vector<BenchRun>& runs, const CurveNamer& name,
                                                       Filter keep, X x_of, Y y_of) {
  std::map<std::string, std::map<double, std::vector<double>>> values;
  for (const auto& r : runs) {
    if (!keep(r)) continue;
    const std::optional<double> y = y_of(r);
    if (y) values[name(r)][x_of(r)].push_back(*y);
  }
  std::map<std::string, std::map<double, double>> out;
  for (const auto& [curve, by_x] : values)
    for (const auto& [x, ys] : by_x) out[curve][x] = median(ys);
  return out;
}

void add_curves(plot::Axes& axes, const std::map<std::string, std::map<double, double>>& data,
                std::map<std::string, plot::Color>& colours) {
  for (const auto& [curve, by_x] : data) {
    std::vector<double> x, y;
    for (const auto& [xv, yv] : by_x) x.push_back(xv), y.push_back(yv);
    if (!colours.count(curve)) colours[curve] = plot::palette(colours.size());
    auto& series = axes.add_line(curve, x, y, colours[curve]);
    if (curve.find("(R)") != std::string::npos) series.dashed = true;
  }
}

struct Writer {
  std::filesystem::path folder;
  std::vector<std::string> files;
  std::ostringstream page;

  void figure(const plot::Figure& f, const std::string& stem, const std::string& caption) {
    plot::save_png(f, folder / (stem + ".png"));
    plot::save_svg(f, folder / (stem + ".svg"));
    files.push_back(stem + ".png");
    files.push_back(stem + ".svg");
    page << "<figure><img src=\"" << stem << ".png\" width=\"" << f.width << "\" height=\"" << f.height
         << "\" alt=\"" << html(caption) << "\"><figcaption>" << html(caption) << " (<a href=\"" << stem
         << ".svg\">SVG</a>)</figcaption></figure>\n";
  }
};

int rows_for(std::size_t panels, int columns) { return static_cast<int>((panels + columns - 1) / columns); }

}  // namespace

std::vector<std::string> write_bench_report(const std::filesystem::path& folder, const BenchGrid& grid,
                                            const BenchResults& results, const std::string& command_line) {
  std::error_code failure;
  std::filesystem::create_directories(folder, failure);
  if (failure || !std::filesystem::is_directory(folder))
    throw data::DataError("--report: cannot create folder '" + folder.string() + "': " + failure.message());
  Writer w{folder, {}, {}};
  const auto& runs = results.runs;
  const CurveNamer name(runs);
  std::map<std::string, plot::Color> colours;
  const std::size_t n_max = *std::max_element(grid.ns.begin(), grid.ns.end());
  const int columns = std::min<int>(2, static_cast<int>(grid.ps.size()));

  auto& page = w.page;
  page << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>robust-fit bench report</title>\n"
          "<style>body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1000px;margin:24px auto;padding:0 16px;"
          "color:#222}h1{font-size:24px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #ccc}"
          "table{border-collapse:collapse;font-size:13px;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 7px;"
          "text-align:right}th{background:#f2f2f2}td.l,th.l{text-align:left}code{background:#f4f4f4;padding:1px 4px}"
          "figure{margin:16px 0}img{max-width:100%;height:auto;border:1px solid #ddd}figcaption{font-size:13px;"
          "color:#555}</style></head><body>\n";
  page << "<h1>robust-fit bench report</h1>\n<p>Command: <code>" << html(command_line) << "</code></p>\n";
  page << "<p>Repeats per cell: " << grid.repeats << " (data and fit seeds " << grid.seed << " to "
       << grid.seed + grid.repeats - 1 << "); curves and tables show medians over repeats. "
       << html(breakdown_rule()) << ".</p>\n";
  for (const auto& note : results.notes) page << "<p><b>Note:</b> " << html(note) << "</p>\n";

  // Breakdown table.
  page << "<h2>Breakdown</h2>\n<table><tr><th class=l>scenario</th><th>n</th><th>p</th><th class=l>estimator</th>"
          "<th>e0</th><th>threshold</th><th>breaks down at &epsilon;</th></tr>\n";
  for (const auto& b : results.breakdowns) {
    if (b.max_epsilon == 0) continue;
    page << "<tr><td class=l>" << html(b.scenario) << "</td><td>" << b.n << "</td><td>" << b.p << "</td><td class=l>"
         << html(b.estimator + (b.backend == "r" || b.estimator == "ls" ? "" : " " + b.backend) +
                 (b.selection == "-" || b.selection == "auto" ? "" : " " + b.selection))
         << "</td><td>" << (b.baseline_error ? general(*b.baseline_error) : "-") << "</td><td>" << general(b.threshold)
         << "</td><td>" << (b.breakdown_epsilon ? general(*b.breakdown_epsilon) : "none up to " + general(b.max_epsilon))
         << "</td></tr>\n";
  }
  page << "</table>\n";

  // Breakdown curves and precision / recall, per contaminated scenario, at the largest n.
  for (const auto& scenario : grid.scenarios) {
    if (scenario.contamination == data::Contamination::none || grid.epsilons.size() < 2) continue;
    page << "<h2>" << html(scenario.name) << "</h2>\n";
    plot::Figure f;
    f.width = kReportImageWidth;
    f.columns = columns;
    f.height = kReportImageHeight * rows_for(grid.ps.size(), columns) - (grid.ps.size() > 1 ? 120 : 0);
    f.title = "Error of the fit against contamination: " + scenario.name + ", n = " + std::to_string(n_max);
    for (const std::size_t p : grid.ps) {
      auto& axes = f.add_panel();
      axes.title = "p = " + std::to_string(p);
      axes.x_label = "contamination ε (fraction of rows)";
      axes.y_label = "‖β̂ − β‖₂ (log scale)";
      axes.y_scale = plot::Scale::log10;
      add_curves(axes,
                 curves(runs, name, [&](const BenchRun& r) { return r.scenario == scenario.name && r.n == n_max && r.p == p; },
                        [](const BenchRun& r) { return r.epsilon; },
                        [](const BenchRun& r) { return std::optional<double>(r.beta_error); }),
                 colours);
      axes.reference_lines.push_back({kBreakdownFloor, "breakdown threshold floor 0.5"});
    }
    w.figure(f, "breakdown_" + scenario.name, "‖β̂ − β‖₂ against ε, " + scenario.name);

    if (scenario.contamination == data::Contamination::good_leverage) continue;  // nothing planted
    plot::Figure g;
    g.width = kReportImageWidth;
    g.height = 440;
    g.columns = 2;
    g.title = "Flagged outliers against the planted ones: " + scenario.name + ", n = " + std::to_string(n_max) +
              ", p = " + std::to_string(grid.ps.front());
    for (const bool precision : {true, false}) {
      auto& axes = g.add_panel();
      axes.title = precision ? "precision (flagged rows that were planted)" : "recall (planted rows flagged)";
      axes.x_label = "contamination ε";
      axes.y_label = precision ? "precision" : "recall";
      axes.y_min = 0;
      axes.y_max = 1.05;
      axes.x_min = 0;  // both panels on the same x range (recall has no value at 0)
      add_curves(axes,
                 curves(runs, name,
                        [&](const BenchRun& r) {
                          return r.scenario == scenario.name && r.n == n_max && r.p == grid.ps.front() && r.estimator != "ls";
                        },
                        [](const BenchRun& r) { return r.epsilon; },
                        [precision](const BenchRun& r) { return precision ? r.precision : r.recall; }),
                 colours);
    }
    w.figure(g, "outliers_" + scenario.name, "outlier precision and recall against ε, " + scenario.name);
  }

  // Time against n, log-log, per estimator and backend (and R).
  page << "<h2>Time</h2>\n";
  {
    plot::Figure f;
    f.width = kReportImageWidth;
    f.columns = columns;
    f.height = kReportImageHeight * rows_for(grid.ps.size(), columns) - (grid.ps.size() > 1 ? 120 : 0);
    f.title = "Wall time of a fit against n (median over scenarios, ε and repeats)";
    for (const std::size_t p : grid.ps) {
      auto& axes = f.add_panel();
      axes.title = "p = " + std::to_string(p);
      axes.x_label = "n (rows, log scale)";
      axes.y_label = "wall time (s, log scale)";
      axes.x_scale = plot::Scale::log10;
      axes.y_scale = plot::Scale::log10;
      add_curves(axes,
                 curves(runs, name, [&](const BenchRun& r) { return r.p == p; },
                        [](const BenchRun& r) { return double(r.n); },
                        [](const BenchRun& r) { return std::optional<double>(r.wall_s); }),
                 colours);
    }
    w.figure(f, "time_vs_n", "wall time against n, log–log");
  }
  if (grid.selections.size() > 1) {
    plot::Figure f;
    f.width = kReportImageWidth;
    f.height = kReportImageHeight;
    f.title = "Selection algorithms: time against n (median over the grid)";
    auto& axes = f.add_panel();
    axes.x_label = "n (rows, log scale)";
    axes.y_label = "time (s, log scale)";
    axes.x_scale = plot::Scale::log10;
    axes.y_scale = plot::Scale::log10;
    std::map<std::string, plot::Color> selection_colours;
    // The device time in selections where the backend measures it (CUDA), else the objectives phase.
    add_curves(axes,
               curves(runs, name, [](const BenchRun& r) { return r.selection != "-" && r.phases.has_value(); },
                      [](const BenchRun& r) { return double(r.n); },
                      [](const BenchRun& r) {
                        return std::optional<double>(r.phases->selection_s ? *r.phases->selection_s : r.phases->objectives_s);
                      }),
               selection_colours);
    w.figure(f, "selection_time",
             "time in selection per algorithm (CUDA: device time of the selections; CPU: the objectives phase)");
  }

  // Summary table: medians over repeats.
  page << "<h2>All cells</h2>\n<table><tr><th class=l>scenario</th><th>n</th><th>p</th><th>&epsilon;</th>"
          "<th class=l>estimator</th><th>wall (s)</th><th>objective</th><th>‖β̂ − β‖₂</th><th>precision</th>"
          "<th>recall</th></tr>\n";
  std::map<std::string, std::vector<const BenchRun*>> cells;
  std::vector<std::string> order;
  for (const auto& r : runs) {
    const std::string key = r.scenario + "|" + std::to_string(r.n) + "|" + std::to_string(r.p) + "|" +
                            std::to_string(r.epsilon) + "|" + name(r);
    if (!cells.count(key)) order.push_back(key);
    cells[key].push_back(&r);
  }
  for (const auto& key : order) {
    const auto& group = cells[key];
    const BenchRun& first = *group.front();
    std::vector<double> wall, objective, error, precision, recall;
    for (const auto* r : group) {
      wall.push_back(r->wall_s);
      objective.push_back(r->objective);
      error.push_back(r->beta_error);
      if (r->precision) precision.push_back(*r->precision);
      if (r->recall) recall.push_back(*r->recall);
    }
    page << "<tr><td class=l>" << html(first.scenario) << "</td><td>" << first.n << "</td><td>" << first.p
         << "</td><td>" << general(first.epsilon) << "</td><td class=l>" << html(name(first)) << "</td><td>"
         << general(median(wall)) << "</td><td>" << general(median(objective)) << "</td><td>" << general(median(error))
         << "</td><td>" << (precision.empty() ? "-" : fixed(median(precision), 3)) << "</td><td>"
         << (recall.empty() ? "-" : fixed(median(recall), 3)) << "</td></tr>\n";
  }
  page << "</table>\n</body></html>\n";
  std::ofstream out(folder / "index.html");
  out << page.str();
  if (!out) throw data::DataError("--report: cannot write '" + (folder / "index.html").string() + "'");
  return w.files;
}

}  // namespace robustfit::app
