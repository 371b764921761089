// robust-fit mcd: robust location, scatter and distances of CSV columns (FAST-MCD, as
// robustbase::covMcd).
#include <iomanip>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "backend_choice.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "options_util.hpp"
#include "progress_line.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"
#include "robustfit/selection/gpu.hpp"

namespace po = boost::program_options;

namespace robustfit::app {

namespace {

constexpr const char* kMcdHelp = R"(Usage: robust-fit mcd DATA.csv [--columns A,B,...] [options]

The Minimum Covariance Determinant estimator of the columns' location and scatter by FAST-MCD
(Rousseeuw & Van Driessen), as robustbase::covMcd: the h = h.alpha.n(alpha, n, p) rows whose
covariance has the smallest determinant (500 random starts of p + 1 rows, C-steps, nested
subsamples for n >= 600), consistency and small-sample factors, one reweighting step with
0/1 weights mah < qchisq(0.975, p). Reports the reweighted center and covariance, each row's
robust distance sqrt(mah) and the rows flagged (distance >= sqrt(qchisq(0.975, p))). When more
than h rows lie on a hyperplane (a constant column, say) the scatter is singular: the output
says so as robustbase does, with the hyperplane, and flags the rows off it.

Options)";

struct McdArguments {
  std::string data_file, columns, backend, output;
  std::string alpha_text, subsets_text, seed_text;
  bool drop_missing = false, quiet = false;
};

po::options_description mcd_options(McdArguments& a) {
  po::options_description options(kMcdHelp);
  options.add_options()
    ("help", "show this help")
    ("data", po::value(&a.data_file), "the CSV file (positional)")
    ("columns,c", po::value(&a.columns), "comma-separated columns (default: every column)")
    ("alpha", po::value(&a.alpha_text)->default_value("0.5"), "fraction of the rows the raw estimate covers, in [0.5, 1]")
    ("subsets", po::value(&a.subsets_text)->default_value("500"), "random starts of p + 1 rows, >= 1")
    ("seed", po::value(&a.seed_text)->default_value("0"), "seed of the random starts, an integer >= 0")
    ("backend", po::value(&a.backend)->default_value("auto"), backend_help().c_str())
    ("output,o", po::value(&a.output)->default_value("table"), "table | json")
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop rows with missing, NaN or Inf values in the used columns (default: error)")
    ("quiet,q", po::bool_switch(&a.quiet), "no progress line on stderr (shown only in a terminal, for fits longer than a second)");
  return options;
}

// The used columns as an n x p matrix and the data-row number of each row. make_design takes
// the first column as its "response" so that missing cells are dropped from all columns at once.
data::Design read_columns(const data::Table& table, const std::vector<std::string>& columns, bool drop_missing) {
  data::DesignOptions options;
  options.response = columns.front();
  options.drop_missing = drop_missing;
  if (columns.size() == 1) {
    const data::ColumnData column = data::numeric_column(table, columns.front(), drop_missing);
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

void print_json(std::ostream& out, const regression::McdResult& r, const data::Design& design, const std::string& file,
                std::uint64_t seed) {
  nlohmann::ordered_json j;
  j["data"] = file;
  j["method"] = "mcd";
  j["columns"] = design.predictors;
  j["n"] = r.n;
  j["p"] = r.p;
  j["h"] = r.h;
  j["alpha"] = r.alpha;
  j["seed"] = seed;
  j["backend"] = r.backend;
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
  j["distances"] = as_vector(r.distances);
  j["raw_distances"] = as_vector(r.raw_distances);
  j["flagged"] = data_rows_of(r.flagged, design);
  j["best_subset"] = data_rows_of(r.best_subset, design);
  j["data_rows"] = design.data_rows;
  out << j.dump(2) << "\n";
}

void print_table(std::ostream& out, const regression::McdResult& r, const data::Design& design, const std::string& file) {
  out << "MCD (FAST-MCD, robustbase::covMcd defaults) on " << file << ": n = " << r.n << ", p = " << r.p
      << ", h = " << r.h << " (alpha = " << r.alpha << "), backend " << r.backend << "\n";
  if (r.exact_fit) out << "\nExact fit: " << r.exact_fit_message << "\n";
  const auto& names = design.predictors;
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
  const auto flagged = data_rows_of(r.flagged, design);
  out << "Flagged rows (" << flagged.size() << " of " << r.n << "):";
  for (std::size_t row : flagged) out << " " << row;
  out << "\n";
  if (!r.exact_fit && r.n <= 200) {
    out << "\n  row    distance\n";
    for (std::size_t i = 0; i < r.n; ++i)
      out << std::setw(5) << design.data_rows[i] << std::setw(12) << r.distances(static_cast<Eigen::Index>(i))
          << (r.distances(static_cast<Eigen::Index>(i)) >= r.cutoff ? "  *" : "") << "\n";
  }
}

}  // namespace

int run_mcd(const std::vector<std::string>& args, Stage stage) {
  McdArguments a;
  const po::options_description options = mcd_options(a);
  const po::variables_map vm = parse_command_line(args, options, "mcd");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  if (a.data_file.empty()) throw UsageError("mcd: no data file given (usage: robust-fit mcd DATA.csv [--columns A,B,...])");
  regression::McdOptions o;
  o.alpha = parse_number("alpha", a.alpha_text, 0.5, 1);
  o.subsets = parse_integer("subsets", a.subsets_text, 1);
  o.seed = parse_integer("seed", a.seed_text);
  const BackendChoice choice = choose_backend(a.backend, "selection", "auto", selection::Use::batched,
                                              regression::cuda_backend_available(), selection::cuda_device_description());
  o.backend = estimator_backend(choice, a.backend);
  o.selection = choice.algorithm;
  const OutputFormat format = parse_output_format(a.output);
  std::vector<std::string> columns;
  if (vm.count("columns")) columns = split_list(a.columns, "columns");

  if (stage == Stage::parse) return kExitOk;

  const data::Table table = data::read_csv(a.data_file);
  if (columns.empty())
    for (const auto& column : table.columns) columns.push_back(column.name);
  const data::Design design = read_columns(table, columns, a.drop_missing);
  if (design.dropped_rows > 0)
    std::cerr << "robust-fit: note: dropped " << design.dropped_rows << " of " << table.rows()
              << " rows with missing or non-finite values (--drop-missing)\n";
  regression::McdResult result;
  {
    std::optional<ProgressLine> progress;  // cleared when the block ends, before the results
    if (progress_wanted(a.quiet)) {
      progress.emplace("MCD");
      o.progress = progress->callback();
    }
    try {
      result = regression::fit_mcd(design.X, o);
    } catch (const std::invalid_argument& e) {
      throw data::DataError(a.data_file + ": " + e.what());
    }
  }
  if (format == OutputFormat::json)
    print_json(std::cout, result, design, a.data_file, o.seed);
  else
    print_table(std::cout, result, design, a.data_file);
  return kExitOk;
}

}  // namespace robustfit::app
