// robust-fit select: exact k-th order statistics of one CSV column, on the CPU or the GPU.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_error.hpp"
#include "commands.hpp"
#include "options_util.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/gpu.hpp"

namespace po = boost::program_options;

namespace robustfit::app {

namespace {

constexpr const char* kSelectHelp = R"(Usage: robust-fit select DATA.csv --column NAME (--k K[,K...] | --quantile Q[,Q...] | --median | --percentiles N) [options]

Exact order statistics of a column (no interpolation): the k-th smallest value, k = 1 being the
minimum and k = n the maximum. A quantile q in [0, 1] is the order statistic k = max(1, ceil(q n))
(R's quantile type 1); --median is k = ceil(n / 2) (the lower median when n is even);
--percentiles N gives the N quantiles 0, 1/(N-1), ..., 1 (N = 101: every percentile).

Options)";

struct SelectArguments {
  std::string data_file, column, ks, quantiles, algorithm, backend, output;
  bool median = false, drop_missing = false;
  std::size_t percentiles = 0;
};

po::options_description select_options(SelectArguments& a) {
  po::options_description options(kSelectHelp);
  options.add_options()
    ("help", "show this help")
    ("data", po::value(&a.data_file), "the CSV file (positional)")
    ("column,c", po::value(&a.column), "the column to select from (required)")
    ("k", po::value(&a.ks), "comma-separated ranks, 1-based (1 = minimum, n = maximum)")
    ("quantile,q", po::value(&a.quantiles), "comma-separated probabilities in [0, 1]")
    ("median", po::bool_switch(&a.median), "the median (lower median for even n)")
    ("percentiles", po::value(&a.percentiles), "N evenly spaced quantiles from 0 to 1 (N >= 2)")
    ("algorithm,a", po::value(&a.algorithm)->default_value("auto"),
     "auto | sort | nth-element (CPU and CUDA); cutting-plane | bucket | radix | sample | floyd-rivest | multi (CUDA)")
    ("backend", po::value(&a.backend)->default_value("auto"), "auto | cpu | cuda (auto: CUDA when a GPU is usable)")
    ("output,o", po::value(&a.output)->default_value("table"), "table | json")
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop missing, NaN or Inf cells (default: error)");
  return options;
}

std::size_t quantile_rank(double q, std::size_t n) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(n))));
}

// 1-based ranks requested, checked against n.
std::vector<std::size_t> requested_ranks(const SelectArguments& a, std::size_t n) {
  const int modes = !a.ks.empty() + !a.quantiles.empty() + a.median + (a.percentiles > 0);
  if (modes != 1) throw UsageError("select: give exactly one of --k, --quantile, --median, --percentiles");
  std::vector<std::size_t> ranks;
  if (!a.ks.empty()) {
    for (const auto& item : split_list(a.ks, "k")) {
      std::size_t used = 0;
      long long k = 0;
      try {
        k = std::stoll(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size()) throw UsageError("--k: '" + item + "' is not an integer");
      if (k < 1 || static_cast<unsigned long long>(k) > n)
        throw UsageError("--k: rank " + item + " is out of range: the column has " + std::to_string(n) +
                         " values, so k must lie in [1, " + std::to_string(n) + "]");
      ranks.push_back(static_cast<std::size_t>(k));
    }
  } else if (!a.quantiles.empty()) {
    for (const auto& item : split_list(a.quantiles, "quantile")) {
      std::size_t used = 0;
      double q = -1;
      try {
        q = std::stod(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != item.size() || !(q >= 0 && q <= 1))
        throw UsageError("--quantile: '" + item + "' is not a probability in [0, 1]");
      ranks.push_back(quantile_rank(q, n));
    }
  } else if (a.median) {
    ranks.push_back((n + 1) / 2);
  } else {
    if (a.percentiles < 2) throw UsageError("--percentiles must be at least 2");
    for (std::size_t i = 0; i < a.percentiles; ++i)
      ranks.push_back(quantile_rank(static_cast<double>(i) / static_cast<double>(a.percentiles - 1), n));
  }
  return ranks;
}

bool cpu_offers(selection::Algorithm algorithm) {
  return algorithm == selection::Algorithm::automatic || algorithm == selection::Algorithm::nth_element ||
         algorithm == selection::Algorithm::sort;
}

std::vector<double> select_on_cpu(const std::vector<double>& values, const std::vector<std::size_t>& ks,
                                  selection::Algorithm algorithm) {
  if (algorithm != selection::Algorithm::sort) return selection::kth_smallest_many<double>(values, ks);
  std::vector<double> sorted = values;  // sort & choose
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> out;
  for (std::size_t k : ks) out.push_back(sorted[k]);
  return out;
}

}  // namespace

int run_select(const std::vector<std::string>& args) {
  SelectArguments a;
  const po::options_description options = select_options(a);
  const po::variables_map vm = parse_command_line(args, options, "select");
  if (vm.count("help")) {
    std::cout << options << "\n";
    return kExitOk;
  }
  if (a.data_file.empty()) throw UsageError("select: no data file given (usage: robust-fit select DATA.csv --column NAME ...)");
  if (a.column.empty()) throw UsageError("select: --column is required");
  selection::Algorithm algorithm;
  try {
    algorithm = selection::parse_algorithm(a.algorithm);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--algorithm: ") + e.what());
  }
  if (a.backend != "auto" && a.backend != "cpu" && a.backend != "cuda")
    throw UsageError("--backend: unknown backend '" + a.backend + "' (expected auto, cpu or cuda)");
  const OutputFormat format = parse_output_format(a.output);
  const bool cuda = a.backend == "cuda" || (a.backend == "auto" && selection::cuda_available());
  if (a.backend == "cuda" && !selection::cuda_available())
    throw UsageError("--backend cuda: the CUDA backend is not available: " + selection::cuda_device_description());
  if (!cuda && !cpu_offers(algorithm))
    throw UsageError("--algorithm " + a.algorithm + " runs on the CUDA backend only; the CPU backend offers auto, sort and nth-element" +
                     (a.backend == "auto" ? " (no CUDA device: " + selection::cuda_device_description() + ")" : std::string()));

  const data::Table table = data::read_csv(a.data_file);
  const data::ColumnData column = data::numeric_column(table, a.column, a.drop_missing);
  if (column.values.empty()) throw data::DataError(a.data_file + ": column '" + a.column + "' has no values");
  if (column.dropped_rows > 0)
    std::cerr << "robust-fit: note: dropped " << column.dropped_rows << " missing or non-finite cells (--drop-missing)\n";
  const std::size_t n = column.values.size();
  const std::vector<std::size_t> ranks = requested_ranks(a, n);
  std::vector<std::size_t> zero_based;
  for (std::size_t k : ranks) zero_based.push_back(k - 1);
  const std::vector<double> values =
      cuda ? selection::cuda_kth_smallest_many<double>(column.values, zero_based, algorithm)
           : select_on_cpu(column.values, zero_based, algorithm);
  const std::string used = algorithm == selection::Algorithm::automatic && !cuda ? "nth-element" : a.algorithm;

  if (format == OutputFormat::json) {
    nlohmann::ordered_json j;
    j["column"] = a.column;
    j["n"] = n;
    j["algorithm"] = used;
    j["backend"] = cuda ? "cuda" : "cpu";
    j["results"] = nlohmann::json::array();
    for (std::size_t i = 0; i < ranks.size(); ++i) j["results"].push_back({{"k", ranks[i]}, {"value", values[i]}});
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "column " << a.column << ": n = " << n << ", algorithm " << used << ", backend "
              << (cuda ? "cuda" : "cpu") << "\n";
    char line[96];
    std::snprintf(line, sizeof line, "%12s  %s\n", "k", "value");
    std::cout << line;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      std::snprintf(line, sizeof line, "%12zu  %.17g\n", ranks[i], values[i]);
      std::cout << line;
    }
  }
  return kExitOk;
}

}  // namespace robustfit::app
