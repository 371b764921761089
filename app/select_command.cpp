// robust-fit select: exact k-th order statistics of one CSV column, on the CPU or the GPU.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backend_choice.hpp"
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
  std::string data_file, column, ks, quantiles, percentiles, algorithm, backend, output;
  bool median = false, drop_missing = false;
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
    ("percentiles", po::value(&a.percentiles), "N evenly spaced quantiles from 0 to 1 (2 <= N <= 1000000)")
    ("algorithm,a", po::value(&a.algorithm)->default_value("auto"), algorithm_help(selection::Use::many).c_str())
    ("backend", po::value(&a.backend)->default_value("auto"), backend_help().c_str())
    ("output,o", po::value(&a.output)->default_value("table"), "table | json")
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop missing, NaN or Inf cells (default: error)");
  return options;
}

std::size_t quantile_rank(double q, std::size_t n) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(n))));
}

// The ranks asked for, as parsed from the command line before the data are read: explicit
// 1-based ranks, or probabilities that become ranks once n is known.
struct RankRequest {
  std::vector<std::uint64_t> ks;
  std::vector<double> quantiles;
  bool median = false;
  std::size_t count() const { return median ? 1 : ks.size() + quantiles.size(); }
};

// Given options count, empty text included: "--k ''" is a bad list, not a missing option.
RankRequest parse_rank_request(const SelectArguments& a, const po::variables_map& vm) {
  const bool ks = vm.count("k") > 0, quantiles = vm.count("quantile") > 0, percentiles = vm.count("percentiles") > 0;
  if (ks + quantiles + a.median + percentiles != 1)
    throw UsageError("select: give exactly one of --k, --quantile, --median, --percentiles");
  RankRequest request;
  request.median = a.median;
  if (ks) request.ks = parse_integer_list("k", a.ks, 1);
  if (quantiles) request.quantiles = parse_number_list("quantile", a.quantiles, 0, 1);
  if (percentiles) {
    const std::uint64_t count = parse_integer("percentiles", a.percentiles, 2, 1000000);
    for (std::uint64_t i = 0; i < count; ++i)
      request.quantiles.push_back(static_cast<double>(i) / static_cast<double>(count - 1));
  }
  return request;
}

// 1-based ranks for a column of n values; explicit ranks above n are a UsageError.
std::vector<std::size_t> ranks_for(const RankRequest& request, std::size_t n) {
  if (request.median) return {(n + 1) / 2};
  std::vector<std::size_t> ranks;
  for (std::uint64_t k : request.ks) {
    if (k > n)
      throw UsageError("--k: rank " + std::to_string(k) + " is out of range: the column has " + std::to_string(n) +
                       " values, so k must lie in [1, " + std::to_string(n) + "]");
    ranks.push_back(static_cast<std::size_t>(k));
  }
  for (double q : request.quantiles) ranks.push_back(quantile_rank(q, n));
  return ranks;
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

int run_select(const std::vector<std::string>& args, Stage stage) {
  SelectArguments a;
  const po::options_description options = select_options(a);
  const po::variables_map vm = parse_command_line(args, options, "select");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  if (a.data_file.empty()) throw UsageError("select: no data file given (usage: robust-fit select DATA.csv --column NAME ...)");
  if (a.column.empty()) throw UsageError("select: --column is required");
  const RankRequest request = parse_rank_request(a, vm);
  const OutputFormat format = parse_output_format(a.output);
  const auto use = request.count() == 1 ? selection::Use::single : selection::Use::many;
  const BackendChoice choice = choose_backend(a.backend, "algorithm", a.algorithm, use, selection::cuda_available(),
                                              selection::cuda_device_description());
  const selection::Algorithm algorithm = choice.algorithm;
  const bool cuda = choice.backend == selection::Backend::cuda;

  if (stage == Stage::parse) return kExitOk;

  const data::Table table = data::read_csv(a.data_file);
  const data::ColumnData column = data::numeric_column(table, a.column, a.drop_missing);
  if (column.values.empty()) throw data::DataError(a.data_file + ": column '" + a.column + "' has no values");
  if (column.dropped_rows > 0)
    std::cerr << "robust-fit: note: dropped " << column.dropped_rows << " missing or non-finite cells (--drop-missing)\n";
  const std::size_t n = column.values.size();
  const std::vector<std::size_t> ranks = ranks_for(request, n);
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
