#include "fit_report.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>
#include <vector>

#include "json_rows.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/regression/outlier_map.hpp"

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

std::vector<std::size_t> outlier_rows(const regression::FitResult& fit, const FitContext& context) {
  if (context.distributed) return context.distributed->outlier_rows;
  const data::Design& design = *context.design;
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

// NaN and infinities (undefined inference: df <= 0, an exact fit) are JSON null.
nlohmann::ordered_json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

// R's printCoefmat conventions: p-values below 2.2e-16 print as "<2e-16", stars by 0.001,
// 0.01, 0.05, 0.1; NA where undefined.
std::string formatted(double value, const char* format) {
  if (std::isnan(value)) return "NA";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string p_value_text(double p) {
  if (std::isfinite(p) && p < 2.2e-16) return "<2e-16";
  return formatted(p, "%.3g");
}

std::string stars(double p) {
  if (!std::isfinite(p)) return "";
  return p < 0.001 ? "***" : p < 0.01 ? "**" : p < 0.05 ? "*" : p < 0.1 ? "." : "";
}

void print_inference(std::ostream& out, const regression::FitResult& fit, const std::vector<std::string>& names,
                     std::size_t kept_rows) {
  const regression::Inference& inference = fit.inference;
  std::vector<std::vector<std::string>> cells = {{"", "Estimate", "Std. Error", "t value", "Pr(>|t|)", ""}};
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto& c = inference.coefficients[j];
    cells.push_back({names[j], formatted(c.estimate, "%.6g"), formatted(c.std_error, "%.4g"),
                     formatted(c.t_value, "%.3f"), p_value_text(c.p_value), stars(c.p_value)});
  }
  std::vector<std::size_t> widths(6, 0);
  for (const auto& row : cells)
    for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], row[k].size());
  if (fit.method != regression::Method::ls)
    out << "Reweighted least squares on the " << kept_rows << " rows of weight 1 (as robustbase's summary.lts):\n";
  else
    out << "Coefficients:\n";
  for (const auto& row : cells) {
    out << std::left << std::setw(static_cast<int>(widths[0])) << row[0] << std::right;
    for (std::size_t k = 1; k < 5; ++k) out << "  " << std::setw(static_cast<int>(widths[k])) << row[k];
    out << " " << std::left << std::setw(3) << row[5] << std::right << "\n";
  }
  out << "---\nSignif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1\n\n";
  out << "Residual standard error: " << formatted(inference.sigma, "%.4g") << " on " << inference.df << " degrees of freedom\n";
  out << "Multiple R-squared: " << formatted(inference.multiple_r_squared, "%.4g")
      << ",\tAdjusted R-squared: " << formatted(inference.adj_r_squared, "%.4g") << "\n";
  if (inference.f_statistic)
    out << "F-statistic: " << formatted(*inference.f_statistic, "%.4g") << " on " << inference.f_numerator_df << " and "
        << inference.df << " DF,  p-value: " << p_value_text(*inference.f_p_value) << "\n";
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
        << (fit.precision == regression::Precision::single_precision ? " (float precision)" : "")
        << (context.distributed ? ", " + std::to_string(context.distributed->ranks) + " ranks, " +
                                      std::to_string(context.distributed->bytes) + " bytes communicated by rank 0"
                                : std::string())
        << "\n";
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
    const auto rows = outlier_rows(fit, context);
    out << "outliers: " << rows.size();
    if (!rows.empty()) {
      out << " (data rows";
      for (std::size_t i = 0; i < rows.size(); ++i) out << (i ? ", " : " ") << rows[i];
      out << ")";
    }
    out << "\n";
  } else {
    out << "residual sum of squares: " << number(fit.objective) << "\n";
  }
  if (!fit.inference.coefficients.empty()) {
    out << "\n";
    print_inference(out, fit, names,
                    context.distributed ? context.distributed->kept_rows : static_cast<std::size_t>(fit.weights.sum()));
  }
  const auto classes = regression::outlier_map(fit);
  std::array<std::size_t, 4> counts{};
  for (auto c : classes) ++counts[static_cast<std::size_t>(c)];
  if (context.distributed) counts = context.distributed->outlier_class_counts;
  if (context.distributed ? context.distributed->has_robust_distances : !classes.empty()) {
    out << "\noutlier map (robust distance cutoff " << number(fit.rd_cutoff) << ", residual cutoff 2.5): " << counts[0]
        << " regular, " << counts[1] << (counts[1] == 1 ? " vertical outlier, " : " vertical outliers, ") << counts[2]
        << " good leverage, " << counts[3]
        << " bad leverage\n";
  }
}

namespace {

bool has_robust_distances(const regression::FitResult& fit, const FitContext& context) {
  return context.distributed ? context.distributed->has_robust_distances : !fit.robust_distances.empty();
}

std::vector<std::size_t> best_subset_rows(const regression::FitResult& fit, const FitContext& context) {
  if (context.distributed) return context.distributed->best_subset_rows;
  std::vector<std::size_t> best;
  best.reserve(fit.best_subset.size());
  for (std::size_t i : fit.best_subset) best.push_back(context.design->data_rows[i]);
  return best;
}

// fit_json without its per-row arrays: "outliers" and "best_subset", and with robust distances
// "robust_distances" and "outlier_map", are null here; fit_json fills them in, print_fit_json
// writes them as text (json_rows.hpp).
nlohmann::ordered_json fit_json_without_rows(const regression::FitResult& fit, const FitContext& context) {
  const data::Design& design = *context.design;
  const auto names = coefficient_names(fit, design);
  nlohmann::ordered_json coefficients, raw;
  for (std::size_t j = 0; j < names.size(); ++j) {
    coefficients[names[j]] = fit.coefficients(static_cast<Eigen::Index>(j));
    raw[names[j]] = fit.raw_coefficients(static_cast<Eigen::Index>(j));
  }
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
  // summary.lts of the final fit (summary.lm for LS): see regression::Inference.
  const regression::Inference& inference = fit.inference;
  nlohmann::ordered_json table = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < names.size() && k < inference.coefficients.size(); ++k) {
    const auto& c = inference.coefficients[k];
    table[names[k]] = {{"estimate", c.estimate}, {"std_error", number_or_null(c.std_error)},
                       {"t_value", number_or_null(c.t_value)}, {"p_value", number_or_null(c.p_value)}};
  }
  j["inference"] = table;
  j["residual_standard_error"] = number_or_null(inference.sigma);
  j["df"] = inference.df;
  j["multiple_r_squared"] = number_or_null(inference.multiple_r_squared);
  j["adj_r_squared"] = number_or_null(inference.adj_r_squared);
  j["f_statistic"] = inference.f_statistic ? number_or_null(*inference.f_statistic) : nlohmann::ordered_json(nullptr);
  j["f_df"] = inference.f_statistic ? nlohmann::ordered_json::array({inference.f_numerator_df, inference.df})
                                    : nlohmann::ordered_json(nullptr);
  j["f_p_value"] = inference.f_p_value ? number_or_null(*inference.f_p_value) : nlohmann::ordered_json(nullptr);
  j["outliers"] = nullptr;  // per row
  // Robust distances (FAST-MCD) and the outlier map; null when MCD was not run. (The chained
  // assignment inserts outlier_map first: that member order is the report's.)
  if (!has_robust_distances(fit, context)) {
    j["robust_distances"] = j["rd_cutoff"] = j["outlier_map"] = nullptr;
  } else {
    j["robust_distances"] = nullptr;  // per row
    j["rd_cutoff"] = fit.rd_cutoff;
    j["outlier_map"] = nullptr;  // per row
  }
  j["best_subset"] = nullptr;  // per row
  j["dropped_rows"] = design.dropped_rows;
  j["subsets_tried"] = fit.subsets_tried;
  j["singular_subsets"] = fit.singular_subsets;
  j["exhaustive"] = fit.exhaustive;
  j["seed"] = context.seed;
  j["backend"] = fit.backend;
  if (context.distributed) {
    j["ranks"] = context.distributed->ranks;
    j["bytes_communicated"] = context.distributed->bytes;
  }
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

// The outlier map's classes: rank 0's gathered ones under mpirun, else the fit's.
std::vector<regression::OutlierClass> outlier_classes(const regression::FitResult& fit, const FitContext& context) {
  return context.distributed ? context.distributed->outlier_classes : regression::outlier_map(fit);
}

const std::vector<double>& robust_distances(const regression::FitResult& fit, const FitContext& context) {
  return context.distributed ? context.distributed->robust_distances : fit.robust_distances;
}

}  // namespace

nlohmann::ordered_json fit_json(const regression::FitResult& fit, const FitContext& context) {
  nlohmann::ordered_json j = fit_json_without_rows(fit, context);
  j["outliers"] = outlier_rows(fit, context);
  if (has_robust_distances(fit, context)) {
    j["robust_distances"] = robust_distances(fit, context);
    nlohmann::ordered_json classes = nlohmann::ordered_json::array();
    for (auto c : outlier_classes(fit, context)) classes.push_back(std::string(regression::to_string(c)));
    j["outlier_map"] = std::move(classes);
  }
  j["best_subset"] = best_subset_rows(fit, context);
  return j;
}

// fit_json(fit, context).dump(2), byte for byte, without a JSON value per row.
void print_fit_json(std::ostream& out, const regression::FitResult& fit, const FitContext& context) {
  std::vector<JsonArrayMember> arrays;
  arrays.push_back({"outliers", json_array_text(outlier_rows(fit, context))});
  if (has_robust_distances(fit, context)) {
    arrays.push_back({"robust_distances", json_array_text(robust_distances(fit, context))});
    // Four class names: each one's JSON text once.
    std::array<std::string, 4> names;
    for (std::size_t c = 0; c < names.size(); ++c)
      names[c] = nlohmann::ordered_json(std::string(regression::to_string(static_cast<regression::OutlierClass>(c)))).dump();
    const auto classes = outlier_classes(fit, context);
    arrays.push_back({"outlier_map", json_array_text(classes.size(), [&](char* at, std::size_t i) {
                        const std::string& name = names[static_cast<std::size_t>(classes[i])];
                        return std::copy(name.begin(), name.end(), at);
                      })});
  }
  arrays.push_back({"best_subset", json_array_text(best_subset_rows(fit, context))});
  write_json(out, fit_json_without_rows(fit, context), arrays);
}

namespace {

// data::write_csv's numbers: std::to_chars, and "NaN", "Inf", "-Inf" (R and pandas read them).
char* write_csv_number(char* at, double value) {
  if (std::isnan(value)) return std::copy_n("NaN", 3, at);
  if (std::isinf(value)) return value > 0 ? std::copy_n("Inf", 3, at) : std::copy_n("-Inf", 4, at);
  return std::to_chars(at, at + 32, value).ptr;
}

// The residuals CSV's rows (no header) in row chunks, formatted in parallel: one row at a time
// through to_chars took seconds at 10^7 rows. The data row is an integer (as a double, row
// 1000000 printed as 1e+06).
std::vector<std::string> residuals_csv_chunks(const regression::FitResult& fit, const FitContext& context) {
  const data::Design& design = *context.design;
  const bool distances = !fit.robust_distances.empty();
  const auto classes = regression::outlier_map(fit);
  const auto n = static_cast<std::size_t>(fit.residuals.size());
  std::vector<std::string> chunks(common::row_chunk_count(n));
  common::parallel_rows(n, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
    std::string& text = chunks[chunk];
    char line[7 * 33 + 32];  // 7 numbers of at most 32 characters and a comma, the class
    for (std::size_t i = begin; i < end; ++i) {
      const auto r = static_cast<Eigen::Index>(i);
      const double values[] = {fit.fitted(r), fit.residuals(r), fit.standardized_residuals(r), fit.weights(r),
                               fit.outlier[i] ? 1.0 : 0.0, distances ? fit.robust_distances[i] : 0.0};
      const std::size_t columns = distances ? std::size(values) : std::size(values) - 1;
      char* at = std::to_chars(line, line + 32, design.data_rows[i]).ptr;
      *at++ = ',';
      for (std::size_t c = 0; c < columns; ++c) {
        at = write_csv_number(at, values[c]);
        *at++ = c + 1 < columns || distances ? ',' : '\n';
      }
      if (distances) {
        const std::string_view name = regression::to_string(classes[i]);
        at = std::copy(name.begin(), name.end(), at);
        *at++ = '\n';
      }
      text.append(line, at);
    }
  });
  return chunks;
}

}  // namespace

void write_residuals_csv(const std::filesystem::path& path, const regression::FitResult& fit,
                         const FitContext& context) {
  const auto chunks = residuals_csv_chunks(fit, context);
  const std::string_view header = fit.robust_distances.empty() ? kResidualsCsvHeader : kResidualsCsvHeaderWithDistances;
  const auto fail = [&] {
    return data::DataError("cannot write '" + path.string() + "': " + std::generic_category().message(errno ? errno : EIO));
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) throw fail();
  if (std::fwrite(header.data(), 1, header.size(), file.get()) != header.size()) throw fail();
  for (const auto& text : chunks)
    if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size()) throw fail();
  // fclose flushes; a full disk shows up only here.
  if (std::fclose(file.release()) != 0) throw fail();
}

std::string residuals_csv_rows(const regression::FitResult& fit, const FitContext& context) {
  const auto chunks = residuals_csv_chunks(fit, context);
  std::size_t size = 0;
  for (const auto& text : chunks) size += text.size();
  std::string rows;
  rows.reserve(size);
  for (const auto& text : chunks) rows += text;
  return rows;
}

}  // namespace robustfit::app
