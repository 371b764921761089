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
#include "robustfit/data/csv_parts.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cuda_automatic.hpp"
#include "robustfit/selection/gpu.hpp"
#ifdef ROBUSTFIT_WITH_MPI
#include "mpi_run.hpp"
#endif

namespace po = boost::program_options;

namespace robustfit::app {

namespace {

constexpr const char* kSelectHelp = R"(Usage: robust-fit select DATA.csv --column NAME (--k K[,K...] | --quantile Q[,Q...] | --median | --percentiles N) [options]

Exact order statistics of a column (no interpolation): the k-th smallest value, k = 1 being the
minimum and k = n the maximum. A quantile q in [0, 1] is the order statistic k = max(1, ceil(q n))
(R's quantile type 1); --median is k = ceil(n / 2) (the lower median when n is even);
--percentiles N gives the N quantiles 0, 1/(N-1), ..., 1 (N = 101: every percentile).

On the GPU, --algorithm auto picks by size, precision and the number of ranks, and the output
names what it ran: algorithm auto (bracket), say; in JSON the key automatic_choice
(docs/SELECTION.md).

Under mpirun (mpirun -np N robust-fit select ...) each rank reads only its own part of DATA.csv,
or its own file with --shard-files, and the ranks select together (DIBMS; the cutting plane for
--algorithm cutting-plane) without gathering the data: docs/DISTRIBUTED.md. With --backend cuda
(auto: where the host has a GPU) each rank holds its values on one GPU, its local rank modulo
the host's GPUs.

Options)";

struct SelectArguments {
  std::string data_file, column, ks, quantiles, percentiles, algorithm, backend, output, shard_files;
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
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop missing, NaN or Inf cells (default: error)")
    ("shard-files", po::value(&a.shard_files), "F1.csv,F2.csv,...: the data as several files with the same header, "
                                               "instead of DATA.csv (under mpirun: one per rank, rank r reads file r)");
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

struct Selected {
  std::string column, algorithm, backend;
  std::string automatic_choice;  // what `auto` ran on the GPU (cuda_automatic.hpp); empty otherwise
  std::size_t n = 0;
  std::vector<std::size_t> ranks;
  std::vector<double> values;
  int mpi_ranks = 0;              // > 0 under mpirun
  std::uint64_t bytes = 0;        // communicated by rank 0, under mpirun
};

void print_selection(const Selected& s, OutputFormat format) {
  if (format == OutputFormat::json) {
    nlohmann::ordered_json j;
    j["column"] = s.column;
    j["n"] = s.n;
    j["algorithm"] = s.algorithm;
    if (!s.automatic_choice.empty()) j["automatic_choice"] = s.automatic_choice;
    j["backend"] = s.backend;
    if (s.mpi_ranks > 0) {
      j["ranks"] = s.mpi_ranks;
      j["bytes_communicated"] = s.bytes;
    }
    j["results"] = nlohmann::json::array();
    for (std::size_t i = 0; i < s.ranks.size(); ++i) j["results"].push_back({{"k", s.ranks[i]}, {"value", s.values[i]}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << "column " << s.column << ": n = " << s.n << ", algorithm " << s.algorithm;
  if (!s.automatic_choice.empty()) std::cout << " (" << s.automatic_choice << ")";
  std::cout << ", backend " << s.backend;
  if (s.mpi_ranks > 0) std::cout << ", " << s.mpi_ranks << " ranks, " << s.bytes << " bytes communicated per rank";
  std::cout << "\n";
  char line[96];
  std::snprintf(line, sizeof line, "%12s  %s\n", "k", "value");
  std::cout << line;
  for (std::size_t i = 0; i < s.ranks.size(); ++i) {
    std::snprintf(line, sizeof line, "%12zu  %.17g\n", s.ranks[i], s.values[i]);
    std::cout << line;
  }
}

std::vector<std::size_t> zero_based(const std::vector<std::size_t>& ranks) {
  std::vector<std::size_t> out;
  for (std::size_t k : ranks) out.push_back(k - 1);
  return out;
}

void note_dropped(std::uint64_t dropped) {
  if (dropped > 0)
    std::cerr << "robust-fit: note: dropped " << dropped << " missing or non-finite cells (--drop-missing)\n";
}

#ifdef ROBUSTFIT_WITH_MPI
// select under mpirun: the same checks and output, the data sharded over the ranks.
int run_select_distributed(distributed::Communicator& comm, const SelectArguments& a, const RankRequest& request,
                           OutputFormat format, const std::vector<std::string>& shard_files, Stage stage) {
  if (a.backend != "auto" && a.backend != "cpu" && a.backend != "cuda")
    throw UsageError("--backend " + a.backend + ": under mpirun the backends are auto, cpu and cuda");
  const selection::Algorithm algorithm = parse_or_usage<selection::Algorithm>("algorithm", a.algorithm, selection::parse_algorithm);
  if (algorithm != selection::Algorithm::automatic && algorithm != selection::Algorithm::multi &&
      algorithm != selection::Algorithm::cutting_plane)
    throw UsageError("--algorithm " + a.algorithm + ": under mpirun the algorithms are auto and multi (DIBMS) or cutting-plane");
  require_one_file_per_rank(comm, shard_files);
  if (stage == Stage::parse) return kExitOk;
  const bool cuda = use_local_gpu(comm, a.backend);
  const DistributedColumn column = read_distributed_column(comm, a.data_file, shard_files, a.column, a.drop_missing, cuda);
  const std::string source = shard_files.empty() ? a.data_file : a.shard_files;
  if (column.n == 0) throw data::DataError(source + ": column '" + a.column + "' has no values");
  if (comm.rank() == 0) note_dropped(column.dropped);
  Selected s;
  s.ranks = ranks_for(request, column.n);
  distributed::SelectionReport report;
  s.values = select_distributed(comm, *column.shard, zero_based(s.ranks), algorithm, report);
  s.column = a.column;
  s.n = column.n;
  s.algorithm = algorithm == selection::Algorithm::cutting_plane ? "cutting-plane" : "dibms";
  s.backend = cuda ? "cuda" : "cpu";  // rank 0's
  s.mpi_ranks = comm.size();
  s.bytes = report.bytes;
  print_selection(s, format);
  return kExitOk;
}
#endif

}  // namespace

int run_select(const std::vector<std::string>& args, Stage stage) {
  SelectArguments a;
  const po::options_description options = select_options(a);
  const po::variables_map vm = parse_command_line(args, options, "select");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  std::vector<std::string> shard_files;
  if (vm.count("shard-files")) shard_files = split_list(a.shard_files, "shard-files");
  if (a.data_file.empty() && shard_files.empty())
    throw UsageError("select: no data file given (usage: robust-fit select DATA.csv --column NAME ...)");
  if (!a.data_file.empty() && !shard_files.empty()) throw UsageError("select: give DATA.csv or --shard-files, not both");
  if (a.column.empty()) throw UsageError("select: --column is required");
  const RankRequest request = parse_rank_request(a, vm);
  const OutputFormat format = parse_output_format(a.output);
#ifdef ROBUSTFIT_WITH_MPI
  if (distributed::Communicator* comm = mpi_world()) return run_select_distributed(*comm, a, request, format, shard_files, stage);
#endif
  const auto use = request.count() == 1 ? selection::Use::single : selection::Use::many;
  const BackendChoice choice = choose_backend(a.backend, "algorithm", a.algorithm, use, selection::cuda_available(),
                                              selection::cuda_device_description());
  const selection::Algorithm algorithm = choice.algorithm;
  const bool cuda = choice.backend == selection::Backend::cuda;

  if (stage == Stage::parse) return kExitOk;

  data::ColumnData column;
  if (shard_files.empty()) {
    column = data::numeric_column(data::read_csv(a.data_file), a.column, a.drop_missing);
  } else {  // the files one after another, as the ranks of mpirun would hold them
    for (const std::string& file : shard_files) {
      const data::ColumnData part = data::numeric_column(data::CsvPart(file, 0, 1).read(0), a.column, a.drop_missing, /*allow_empty=*/true);
      column.values.insert(column.values.end(), part.values.begin(), part.values.end());
      column.dropped_rows += part.dropped_rows;
    }
  }
  const std::string source = shard_files.empty() ? a.data_file : a.shard_files;
  if (column.values.empty()) throw data::DataError(source + ": column '" + a.column + "' has no values");
  note_dropped(column.dropped_rows);
  Selected s;
  s.column = a.column;
  s.n = column.values.size();
  s.ranks = ranks_for(request, s.n);
  s.values = cuda ? selection::cuda_kth_smallest_many<double>(column.values, zero_based(s.ranks), algorithm)
                  : select_on_cpu(column.values, zero_based(s.ranks), algorithm);
  s.algorithm = algorithm == selection::Algorithm::automatic && !cuda ? "nth-element" : a.algorithm;
  if (algorithm == selection::Algorithm::automatic && cuda)
    s.automatic_choice = selection::cuda_automatic_description(s.n, zero_based(s.ranks), /*is_double=*/true);
  s.backend = cuda ? "cuda" : "cpu";
  print_selection(s, format);
  return kExitOk;
}

}  // namespace robustfit::app
