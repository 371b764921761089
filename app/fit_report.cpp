#include "fit_report.hpp"

#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <vector>

#include "robustfit/data/csv.hpp"

namespace robustfit::app {

namespace {

// robustbase says "An exact fit was found!"; we say which rows and what follows.
constexpr const char* kExactFitNote =
    "at least h rows lie on the fitted hyperplane (raw scale below 1e-7), so the scale is 0 and "
    "the outliers are the rows off the hyperplane (|residual| > 1e-7)";

std::vector<std::string> coefficient_names(const regression::FitResult& fit, const data::Design& design) {
  std::vector<std::string> names;
  if (fit.intercept) names.emplace_back("(Intercept)");
  names.insert(names.end(), design.predictors.begin(), design.predictors.end());
  return names;
}

std::vector<std::size_t> outlier_rows(const regression::FitResult& fit, const data::Design& design) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < fit.outlier.size(); ++i)
    if (fit.outlier[i]) rows.push_back(design.data_rows[i]);
  return rows;
}

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

std::string method_title(regression::Method method) {
  switch (method) {
    case regression::Method::lts: return "Least Trimmed Squares (FAST-LTS), reweighted";
    case regression::Method::lms: return "Least Median of Squares, reweighted";
    case regression::Method::ls: return "Ordinary least squares";
  }
  return "";
}

}  // namespace

void print_fit_table(std::ostream& out, const regression::FitResult& fit, const FitContext& context) {
  const data::Design& design = *context.design;
  const bool robust = fit.method != regression::Method::ls;
  out << method_title(fit.method) << "\n";
  out << "data: " << context.data_file << "  response: " << design.response << "  n = " << fit.n
      << "  p = " << fit.p << (fit.intercept ? " (with intercept)" : " (no intercept)") << "\n";
  if (design.dropped_rows > 0) out << "dropped " << design.dropped_rows << " rows with missing values\n";
  if (robust)
    out << "h = " << fit.h << " of " << fit.n << ", "
        << (fit.exhaustive ? "all " + std::to_string(fit.subsets_tried) + " elemental subsets"
                           : std::to_string(fit.subsets_tried - fit.singular_subsets) + " random elemental subsets (seed " +
                                 std::to_string(context.seed) + ")")
        << (fit.singular_subsets ? ", " + std::to_string(fit.singular_subsets) + (fit.exhaustive ? " singular" : " singular ones redrawn")
                                 : std::string())
        << ", backend " << fit.backend
        << (fit.precision == regression::Precision::single_precision ? " (float precision)" : "") << "\n";
  out << "\n";

  const auto names = coefficient_names(fit, design);
  std::size_t width = 12;
  for (const auto& name : names) width = std::max(width, name.size() + 2);
  out << std::left << std::setw(static_cast<int>(width)) << "coefficient" << std::right << std::setw(16)
      << (robust ? "reweighted" : "estimate");
  if (robust) out << std::setw(16) << (fit.method == regression::Method::lts ? "raw LTS" : "raw LMS");
  out << "\n";
  for (std::size_t j = 0; j < names.size(); ++j) {
    out << std::left << std::setw(static_cast<int>(width)) << names[j] << std::right << std::setw(16)
        << number(fit.coefficients(static_cast<Eigen::Index>(j)));
    if (robust) out << std::setw(16) << number(fit.raw_coefficients(static_cast<Eigen::Index>(j)));
    out << "\n";
  }
  out << "\n";
  if (robust) {
    out << "scale: " << number(fit.scale) << "  (raw " << number(fit.raw_scale) << ")\n";
    if (fit.exact_fit) out << "exact fit: " << kExactFitNote << "\n";
    out << "objective: " << number(fit.objective)
        << (fit.method == regression::Method::lts ? "  (sum of the h smallest squared residuals of the raw fit)\n"
                                                  : "  (h-th smallest squared residual of the raw fit)\n");
    out << "robust R^2: " << number(fit.r_squared) << "\n";
    const auto rows = outlier_rows(fit, design);
    out << "outliers: " << rows.size();
    if (!rows.empty()) {
      out << " (data rows";
      for (std::size_t i = 0; i < rows.size(); ++i) out << (i ? ", " : " ") << rows[i];
      out << ")";
    }
    out << "\n";
  } else {
    out << "residual standard error: " << number(fit.scale) << " on " << fit.n - fit.p << " degrees of freedom\n";
    out << "residual sum of squares: " << number(fit.objective) << "\n";
    out << "R^2: " << number(fit.r_squared) << "\n";
  }
}

nlohmann::ordered_json fit_json(const regression::FitResult& fit, const FitContext& context) {
  const data::Design& design = *context.design;
  const auto names = coefficient_names(fit, design);
  nlohmann::ordered_json coefficients, raw;
  for (std::size_t j = 0; j < names.size(); ++j) {
    coefficients[names[j]] = fit.coefficients(static_cast<Eigen::Index>(j));
    raw[names[j]] = fit.raw_coefficients(static_cast<Eigen::Index>(j));
  }
  std::vector<std::size_t> best;
  for (std::size_t i : fit.best_subset) best.push_back(design.data_rows[i]);
  nlohmann::ordered_json j;
  j["method"] = std::string(regression::to_string(fit.method));
  j["data"] = context.data_file;
  j["response"] = design.response;
  j["n"] = fit.n;
  j["p"] = fit.p;
  j["h"] = fit.h;
  j["intercept"] = fit.intercept;
  if (fit.method == regression::Method::lts) j["alpha"] = context.alpha;
  j["coefficients"] = coefficients;
  j["raw_coefficients"] = raw;
  j["scale"] = fit.scale;
  j["raw_scale"] = fit.raw_scale;
  j["objective"] = fit.objective;
  j["r_squared"] = fit.r_squared;
  j["exact_fit"] = fit.exact_fit;
  if (fit.exact_fit) j["note"] = std::string("exact fit: ") + kExactFitNote;
  j["outliers"] = outlier_rows(fit, design);
  j["best_subset"] = best;
  j["dropped_rows"] = design.dropped_rows;
  j["subsets_tried"] = fit.subsets_tried;
  j["singular_subsets"] = fit.singular_subsets;
  j["exhaustive"] = fit.exhaustive;
  j["seed"] = context.seed;
  j["backend"] = fit.backend;
  j["selection"] = fit.selection;
  j["precision"] = std::string(regression::to_string(fit.precision));
  j["timings_s"] = {{"setup", fit.timings.setup_s},   {"subsets", fit.timings.subsets_s},
                    {"objectives", fit.timings.objectives_s}, {"csteps", fit.timings.csteps_s},
                    {"finish", fit.timings.finish_s}, {"total", fit.timings.total_s}};
  // Device time of the CUDA engine's residual GEMMs and selections (null on the CPU backend).
  const auto optional_seconds = [](const std::optional<double>& s) { return s ? nlohmann::json(*s) : nlohmann::json(nullptr); };
  j["timings_s"]["residual_gemms"] = optional_seconds(fit.timings.residuals_s);
  j["timings_s"]["selection"] = optional_seconds(fit.timings.selection_s);
  return j;
}

void print_fit_json(std::ostream& out, const regression::FitResult& fit, const FitContext& context) {
  out << fit_json(fit, context).dump(2) << "\n";
}

void write_residuals_csv(const std::filesystem::path& path, const regression::FitResult& fit,
                         const FitContext& context) {
  const data::Design& design = *context.design;
  std::vector<std::vector<double>> columns(6);
  for (std::size_t i = 0; i < fit.n; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    columns[0].push_back(static_cast<double>(design.data_rows[i]));
    columns[1].push_back(fit.fitted(r));
    columns[2].push_back(fit.residuals(r));
    columns[3].push_back(fit.standardized_residuals(r));
    columns[4].push_back(fit.weights(r));
    columns[5].push_back(fit.outlier[i] ? 1.0 : 0.0);
  }
  data::write_csv(path, {"row", "fitted", "residual", "std_residual", "weight", "outlier"}, columns);
}

}  // namespace robustfit::app
