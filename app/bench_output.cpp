#include "bench_output.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/scenario_writer.hpp"

namespace robustfit::app {
namespace {

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

std::string csv_number(const std::optional<double>& value) {
  if (!value) return "";
  char buffer[32];
  return std::string(buffer, data::format_number(buffer, *value));
}

std::string breakdown_key(const std::string& scenario, std::size_t n, std::size_t p, const std::string& estimator,
                          const std::string& backend, const std::string& selection) {
  return scenario + "|" + std::to_string(n) + "|" + std::to_string(p) + "|" + estimator + "|" + backend + "|" + selection;
}

}  // namespace

std::string breakdown_rule() {
  return "breakdown contamination: the smallest contamination in the grid at which the median over repeats of "
         "||beta_hat - beta||_2 exceeds max(5 e0, 0.5), e0 being that median at contamination 0 "
         "(0.5 alone when the grid has no 0)";
}

nlohmann::ordered_json bench_json(const BenchGrid& grid, const BenchResults& results) {
  nlohmann::ordered_json j;
  auto& g = j["grid"];
  for (const auto& s : grid.scenarios) g["scenarios"].push_back(s.name);
  g["n"] = grid.ns;
  g["p"] = grid.ps;
  g["contamination"] = grid.epsilons;
  for (const auto m : grid.estimators) g["estimators"].push_back(std::string(regression::to_string(m)));
  for (const auto b : grid.backends) g["backends"].push_back(std::string(regression::to_string(b)));
  g["selections"] = grid.selections;
  g["repeats"] = grid.repeats;
  g["seed"] = grid.seed;
  g["peers"] = grid.peers_r ? "r" : "none";
  j["breakdown_rule"] = breakdown_rule();
  j["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : results.runs) {
    nlohmann::ordered_json run;
    run["scenario"] = r.scenario;
    run["n"] = r.n;
    run["p"] = r.p;
    run["contamination"] = r.epsilon;
    run["estimator"] = r.estimator;
    run["backend"] = r.backend;
    run["selection"] = r.selection;
    run["repeat"] = r.repeat;
    run["seed"] = r.seed;
    run["wall_s"] = r.wall_s;
    if (r.phases) {
      const auto& t = *r.phases;
      run["timings_s"] = {{"setup", t.setup_s},         {"subsets", t.subsets_s}, {"objectives", t.objectives_s},
                          {"csteps", t.csteps_s},       {"finish", t.finish_s},   {"total", t.total_s},
                          {"residual_gemms", optional_number(t.residuals_s)},
                          {"selection", optional_number(t.selection_s)}};
    } else {
      run["timings_s"] = nullptr;
    }
    run["objective"] = r.objective;
    run["beta_error"] = r.beta_error;
    run["planted_outliers"] = r.planted;
    run["flagged_outliers"] = r.flagged;
    run["precision"] = optional_number(r.precision);
    run["recall"] = optional_number(r.recall);
    j["runs"].push_back(run);
  }
  j["breakdowns"] = nlohmann::ordered_json::array();
  for (const auto& b : results.breakdowns) {
    j["breakdowns"].push_back({{"scenario", b.scenario},
                               {"n", b.n},
                               {"p", b.p},
                               {"estimator", b.estimator},
                               {"backend", b.backend},
                               {"selection", b.selection},
                               {"baseline_error", optional_number(b.baseline_error)},
                               {"threshold", b.threshold},
                               {"breakdown_contamination", optional_number(b.breakdown_epsilon)},
                               {"max_contamination", b.max_epsilon}});
  }
  j["notes"] = results.notes;
  return j;
}

void write_bench_csv(const std::filesystem::path& path, const BenchResults& results) {
  std::map<std::string, const Breakdown*> breakdowns;
  for (const auto& b : results.breakdowns)
    breakdowns[breakdown_key(b.scenario, b.n, b.p, b.estimator, b.backend, b.selection)] = &b;
  std::ofstream out(path);
  if (!out) throw data::DataError("cannot write '" + path.string() + "'");
  out << "scenario,n,p,contamination,estimator,backend,selection,repeat,seed,wall_s,setup_s,subsets_s,objectives_s,"
         "csteps_s,finish_s,total_s,residual_gemms_s,selection_s,objective,beta_error,planted_outliers,"
         "flagged_outliers,precision,recall,breakdown_threshold,breakdown_contamination\n";
  for (const auto& r : results.runs) {
    const auto& t = r.phases;
    const auto phase = [&](double regression::PhaseTimings::*member) {
      return t ? csv_number((*t).*member) : std::string();
    };
    const Breakdown* b = breakdowns.at(breakdown_key(r.scenario, r.n, r.p, r.estimator, r.backend, r.selection));
    out << r.scenario << ',' << r.n << ',' << r.p << ',' << csv_number(r.epsilon) << ',' << r.estimator << ','
        << r.backend << ',' << r.selection << ',' << r.repeat << ',' << r.seed << ',' << csv_number(r.wall_s) << ','
        << phase(&regression::PhaseTimings::setup_s) << ',' << phase(&regression::PhaseTimings::subsets_s) << ','
        << phase(&regression::PhaseTimings::objectives_s) << ',' << phase(&regression::PhaseTimings::csteps_s) << ','
        << phase(&regression::PhaseTimings::finish_s) << ',' << phase(&regression::PhaseTimings::total_s) << ','
        << (t ? csv_number(t->residuals_s) : "") << ',' << (t ? csv_number(t->selection_s) : "") << ','
        << csv_number(r.objective) << ',' << csv_number(r.beta_error) << ',' << r.planted << ',' << r.flagged << ','
        << csv_number(r.precision) << ',' << csv_number(r.recall) << ',' << csv_number(b->threshold) << ','
        << csv_number(b->breakdown_epsilon) << '\n';
  }
  if (!out) throw data::DataError("cannot write '" + path.string() + "'");
}

void print_bench_summary(std::ostream& out, const BenchResults& results) {
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %9s %4s %6s %-11s %-5s %-12s %10s %12s %9s %9s\n", "scenario", "n", "p",
                "eps", "estimator", "backend", "selection", "wall_s", "||b-beta||", "precision", "recall");
  out << line;
  for (const auto& r : results.runs) {
    if (r.repeat != 0) continue;  // the first repeat; files hold every one
    const auto percent = [](const std::optional<double>& v) {
      char text[16];
      if (!v) return std::string("-");
      std::snprintf(text, sizeof text, "%.3f", *v);
      return std::string(text);
    };
    std::snprintf(line, sizeof line, "%-14s %9zu %4zu %6.3g %-11s %-5s %-12s %10.4f %12.4g %9s %9s\n",
                  r.scenario.c_str(), r.n, r.p, r.epsilon, r.estimator.c_str(), r.backend.c_str(), r.selection.c_str(),
                  r.wall_s, r.beta_error, percent(r.precision).c_str(), percent(r.recall).c_str());
    out << line;
  }
  out << "\nBreakdown (" << breakdown_rule() << "):\n";
  for (const auto& b : results.breakdowns) {
    if (b.max_epsilon == 0) continue;
    std::snprintf(line, sizeof line, "  %-14s n=%-9zu p=%-4zu %-11s %-5s %-12s ", b.scenario.c_str(), b.n, b.p,
                  b.estimator.c_str(), b.backend.c_str(), b.selection.c_str());
    out << line;
    if (b.breakdown_epsilon) {
      std::snprintf(line, sizeof line, "breaks down at eps = %g (threshold %.3g)\n", *b.breakdown_epsilon, b.threshold);
    } else {
      std::snprintf(line, sizeof line, "holds up to eps = %g (threshold %.3g)\n", b.max_epsilon, b.threshold);
    }
    out << line;
  }
}

}  // namespace robustfit::app
