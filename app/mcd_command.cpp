// robust-fit mcd: robust location, scatter and distances of CSV columns (FAST-MCD, as
// robustbase::covMcd).
#include <iostream>
#include <optional>

#include "backend_choice.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "mcd_report.hpp"
#include "options_util.hpp"
#include "progress_line.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"
#include "robustfit/selection/gpu.hpp"
#ifdef ROBUSTFIT_WITH_MPI
#include "mpi_mcd.hpp"
#include "mpi_run.hpp"
#endif

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

Under mpirun (mpirun -np N robust-fit mcd ...) each rank reads only its own part of DATA.csv,
or its own file with --shard-files, and the ranks run FAST-MCD together with the rows where they
were read: the same seed gives the same estimate as one process, printed once; --backend is cpu
or auto (docs/DISTRIBUTED.md).

Options)";

struct McdArguments {
  std::string data_file, columns, backend, output, shard_files;
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
    ("shard-files", po::value(&a.shard_files), "F0.csv,F1.csv,...: under mpirun, the data as one file per rank (rank r reads file r, each with the header) instead of DATA.csv")
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop rows with missing, NaN or Inf values in the used columns (default: error)")
    ("quiet,q", po::bool_switch(&a.quiet), "no progress line on stderr (shown only in a terminal, for fits longer than a second)");
  return options;
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
  std::vector<std::string> shard_files;
  if (vm.count("shard-files")) shard_files = split_list(a.shard_files, "shard-files");
  if (a.data_file.empty() && shard_files.empty())
    throw UsageError("mcd: no data file given (usage: robust-fit mcd DATA.csv [--columns A,B,...])");
  if (!a.data_file.empty() && !shard_files.empty()) throw UsageError("mcd: give DATA.csv or --shard-files, not both");
  regression::McdOptions o;
  o.alpha = parse_number("alpha", a.alpha_text, 0.5, 1);
  o.subsets = parse_integer("subsets", a.subsets_text, 1);
  o.seed = parse_integer("seed", a.seed_text);
#ifdef ROBUSTFIT_WITH_MPI
  if (distributed::Communicator* comm = mpi_world()) {
    if (a.backend != "auto" && a.backend != "cpu")
      throw UsageError("--backend " + a.backend + ": under mpirun each rank computes on the CPU for now (auto or cpu)");
    const OutputFormat format = parse_output_format(a.output);
    std::vector<std::string> columns;
    if (vm.count("columns")) columns = split_list(a.columns, "columns");
    require_one_file_per_rank(*comm, shard_files);
    if (stage == Stage::parse) return kExitOk;
    return run_mcd_distributed(*comm, a.data_file, shard_files, columns, a.drop_missing, o, format, a.quiet);
  }
#endif
  if (!shard_files.empty())
    throw UsageError("--shard-files: one file per rank is for mpirun (mpirun -np N robust-fit mcd --shard-files ...); "
                     "without it give DATA.csv");
  const BackendChoice choice = choose_backend(a.backend, "selection", "auto", selection::Use::batched,
                                              regression::cuda_backend_available(), selection::cuda_device_description());
  o.backend = estimator_backend(choice, a.backend);
  o.selection = choice.algorithm;
  const OutputFormat format = parse_output_format(a.output);
  std::vector<std::string> columns;
  if (vm.count("columns")) columns = split_list(a.columns, "columns");

  if (stage == Stage::parse) return kExitOk;

  const std::jthread cuda_context = choice.backend == selection::Backend::cuda && worth_a_gpu(a.data_file)
                                        ? selection::warm_up_cuda_context()
                                        : std::jthread();
  const data::Table table = data::read_csv(a.data_file);
  if (columns.empty())
    for (const auto& column : table.columns) columns.push_back(column.name);
  const data::Design design = read_mcd_columns(table, columns, a.drop_missing);
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
  const McdRows rows = mcd_rows_of(result, design);
  if (format == OutputFormat::json)
    print_mcd_json(std::cout, result, rows, design.predictors, a.data_file, o.seed);
  else
    print_mcd_table(std::cout, result, rows, design.predictors, a.data_file);
  return kExitOk;
}

}  // namespace robustfit::app
