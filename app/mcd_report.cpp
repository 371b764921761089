#include "mcd_report.hpp"

#include <cmath>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <span>

#include "json_rows.hpp"

namespace robustfit::app {

data::Design read_mcd_columns(const data::Table& table, const std::vector<std::string>& columns, bool drop_missing,
                              bool allow_empty) {
  // make_design takes the first column as its "response" so that missing cells are dropped
  // from all columns at once.
  data::DesignOptions options;
  options.response = columns.front();
  options.drop_missing = drop_missing;
  options.allow_empty = allow_empty;
  if (columns.size() == 1) {
    const data::ColumnData column = data::numeric_column(table, columns.front(), drop_missing, allow_empty);
    data::Design design;
    design.X = Eigen::Map<const Eigen::VectorXd>(column.values.data(), static_cast<Eigen::Index>(column.values.size()));
    design.predictors = columns;
    design.data_rows = column.data_rows;
    design.dropped_rows = column.dropped_rows;
    return design;
  }
  options.predictors.assign(columns.begin() + 1, columns.end());
  data::Design design = data::make_design(table, options);
  Eigen::MatrixXd X(design.X.rows(), design.X.cols() + 1);
  X << design.y, design.X;
  design.X = std::move(X);
  design.predictors = columns;
  return design;
}

namespace {

std::vector<double> as_vector(const Eigen::VectorXd& v) { return {v.data(), v.data() + v.size()}; }

std::vector<std::vector<double>> rows_of(const Eigen::MatrixXd& m) {
  std::vector<std::vector<double>> rows;
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(as_vector(m.row(i).transpose()));
  return rows;
}

// 1-based positions among the used rows -> data-row numbers of the file.
std::vector<std::size_t> data_rows_of(const std::vector<std::size_t>& positions, const data::Design& design) {
  std::vector<std::size_t> rows;
  for (std::size_t r : positions) rows.push_back(design.data_rows[r - 1]);
  return rows;
}

}  // namespace

McdRows mcd_rows_of(const regression::McdResult& result, const data::Design& design) {
  McdRows rows;
  rows.flagged = data_rows_of(result.flagged, design);
  rows.best_subset = data_rows_of(result.best_subset, design);
  rows.data_rows = design.data_rows;
  rows.distances = result.distances;
  rows.raw_distances = result.raw_distances;
  return rows;
}

bool table_prints_distances(const regression::McdResult& result) { return !result.exact_fit && result.n <= 200; }

namespace {

// mcd_json without its per-row arrays (null here): the distances, the flagged rows, the best
// subset and every row's data row.
nlohmann::ordered_json mcd_json_without_rows(const regression::McdResult& r, const McdRows& rows,
                                             const std::vector<std::string>& columns, const std::string& file,
                                             std::uint64_t seed) {
  nlohmann::ordered_json j;
  j["data"] = file;
  j["method"] = "mcd";
  j["columns"] = columns;
  j["n"] = r.n;
  j["p"] = r.p;
  j["h"] = r.h;
  j["alpha"] = r.alpha;
  j["seed"] = seed;
  j["backend"] = r.backend;
  if (rows.ranks > 0) {
    j["ranks"] = rows.ranks;
    j["bytes_communicated"] = rows.bytes;
  }
  j["exact_fit"] = r.exact_fit;
  if (r.exact_fit) {
    j["exact_fit_message"] = r.exact_fit_message;
    j["hyperplane"] = r.hyperplane;
  }
  j["log_det"] = std::isfinite(r.log_det) ? nlohmann::ordered_json(r.log_det) : nlohmann::ordered_json(nullptr);
  j["center"] = as_vector(r.center);
  j["covariance"] = rows_of(r.covariance);
  j["raw_center"] = as_vector(r.raw_center);
  j["raw_covariance"] = rows_of(r.raw_covariance);
  j["cutoff"] = r.cutoff;
  for (const char* key : {"distances", "raw_distances", "flagged", "best_subset", "data_rows"}) j[key] = nullptr;
  return j;
}

std::span<const double> span_of(const Eigen::VectorXd& v) { return {v.data(), static_cast<std::size_t>(v.size())}; }

}  // namespace

nlohmann::ordered_json mcd_json(const regression::McdResult& r, const McdRows& rows, const std::vector<std::string>& columns,
                                const std::string& file, std::uint64_t seed) {
  nlohmann::ordered_json j = mcd_json_without_rows(r, rows, columns, file, seed);
  j["distances"] = as_vector(rows.distances);
  j["raw_distances"] = as_vector(rows.raw_distances);
  j["flagged"] = rows.flagged;
  j["best_subset"] = rows.best_subset;
  j["data_rows"] = rows.data_rows;
  return j;
}

// mcd_json(...).dump(2), byte for byte, without a JSON value per row.
void print_mcd_json(std::ostream& out, const regression::McdResult& r, const McdRows& rows,
                    const std::vector<std::string>& columns, const std::string& file, std::uint64_t seed) {
  std::vector<JsonArrayMember> arrays;
  arrays.push_back({"distances", json_array_text(span_of(rows.distances))});
  arrays.push_back({"raw_distances", json_array_text(span_of(rows.raw_distances))});
  arrays.push_back({"flagged", json_array_text(rows.flagged)});
  arrays.push_back({"best_subset", json_array_text(rows.best_subset)});
  arrays.push_back({"data_rows", json_array_text(rows.data_rows)});
  write_json(out, mcd_json_without_rows(r, rows, columns, file, seed), arrays);
}

void print_mcd_table(std::ostream& out, const regression::McdResult& r, const McdRows& rows,
                     const std::vector<std::string>& names, const std::string& file) {
  out << "MCD (FAST-MCD, robustbase::covMcd defaults) on " << file << ": n = " << r.n << ", p = " << r.p
      << ", h = " << r.h << " (alpha = " << r.alpha << "), backend " << r.backend
      << (rows.ranks > 0 ? ", " + std::to_string(rows.ranks) + " ranks, " + std::to_string(rows.bytes) +
                               " bytes communicated by rank 0"
                         : std::string())
      << "\n";
  if (r.exact_fit) out << "\nExact fit: " << r.exact_fit_message << "\n";
  std::size_t width = 12;
  for (const auto& name : names) width = std::max(width, name.size() + 2);
  out << std::setprecision(6);
  out << "\nLocation (reweighted)\n";
  for (std::size_t j = 0; j < names.size(); ++j)
    out << "  " << std::left << std::setw(static_cast<int>(width)) << names[j] << std::right << std::setw(14)
        << r.center(static_cast<Eigen::Index>(j)) << "\n";
  out << "\nScatter (reweighted)\n  " << std::setw(static_cast<int>(width)) << "";
  for (const auto& name : names) out << std::setw(static_cast<int>(std::max<std::size_t>(14, name.size() + 2))) << name;
  out << "\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out << "  " << std::left << std::setw(static_cast<int>(width)) << names[i] << std::right;
    for (std::size_t j = 0; j < names.size(); ++j)
      out << std::setw(static_cast<int>(std::max<std::size_t>(14, names[j].size() + 2)))
          << r.covariance(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
    out << "\n";
  }
  if (!r.exact_fit) out << "\nlog det of the best h-subset's covariance: " << r.log_det << "\n";
  out << "Robust distance cutoff sqrt(qchisq(0.975, " << r.p << ")) = " << r.cutoff << "\n";
  out << "Flagged rows (" << rows.flagged.size() << " of " << r.n << "):";
  for (std::size_t row : rows.flagged) out << " " << row;
  out << "\n";
  if (table_prints_distances(r)) {
    out << "\n  row    distance\n";
    for (std::size_t i = 0; i < r.n; ++i)
      out << std::setw(5) << rows.data_rows[i] << std::setw(12) << rows.distances(static_cast<Eigen::Index>(i))
          << (rows.distances(static_cast<Eigen::Index>(i)) >= r.cutoff ? "  *" : "") << "\n";
  }
}

}  // namespace robustfit::app
