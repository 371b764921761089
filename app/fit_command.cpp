// robust-fit fit: LTS (default), LMS or LS on a CSV file.
#include <algorithm>
#include <future>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "backend_choice.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "diagnostic_plots.hpp"
#include "fit_arguments.hpp"
#include "fit_report.hpp"
#include "options_util.hpp"
#include "progress_line.hpp"
#include "robustfit/common/stopwatch.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/selection/gpu.hpp"
#ifdef ROBUSTFIT_WITH_MPI
#include "mpi_fit.hpp"
#include "mpi_run.hpp"
#endif

namespace po = boost::program_options;

namespace robustfit::app {

namespace {

constexpr const char* kFitHelp = R"(Usage: robust-fit fit DATA.csv --response NAME [options]

Fits y = b0 + b1 x1 + ... robustly. DATA.csv has a header row of column names; the delimiter
(comma, semicolon or tab) is detected. Defaults follow R: LTS as robustbase::ltsReg, LMS as
MASS::lqs(method = "lms").

  LTS  FAST-LTS. Default search (docs/SEARCH.md): 5000 random elemental subsets, 2 C-steps
       each; below n = 600 the best 300 iterated to convergence; nested subsamples for
       n >= 600 (100 kept per subsample, the best 50 - 20 above n = 20000 - iterated on all
       rows); plus six deterministic starts (LS on robustly central rows, as DetLTS).
       --subsets N: robustbase's search instead (N random subsets, its nsamp; the 20 best,
       robustbase: 10). --subsets all: every elemental subset, 2 C-steps each, the 20 best
       distinct ones to convergence (robustbase's nsamp = "exact"; any n; C(n, p) <= 1e8).
       h = floor((n+p+1)/2) for alpha = 0.5; consistency-corrected raw scale; one
       reweighting step with 0/1 weights |r/s| <= qnorm(0.9875); outliers are the rows with
       weight 0.
  LMS  minimises the h-th smallest squared residual, h = floor((n+1)/2); all elemental
       subsets when there are at most 5000, else min(500 p, 3000) random ones; the intercept
       of each candidate is adjusted exactly; by default the deterministic starts join them and
       the 20 best (10 above n = 20000) are refined on the host by LS steps on the h-subset,
       Chebyshev steps as fallback (--subsets N: N subsets, the ten best, Chebyshev steps;
       --subsets all: every subset, as MASS's nsamp = "exact", the ten best, Chebyshev steps);
       Rousseeuw & Leroy's scale and reweighting (cutoff 2.5).
  LS   ordinary least squares (no outliers flagged).

Precision: --precision float runs the CUDA engine in single precision: residuals, their
order statistics and the C-step h-subsets in float (faster); sums, Gram matrices, every solve
and the final fit (raw fit, scale, reweighting) stay in double. A float residual is off by
about 6e-8 (|y| + sum |x_j b_j|): LTS then differs from double only through rows that tie with
the h-th smallest squared residual to that accuracy (rarely, those send the C-steps to another
local optimum, better or worse); LMS candidates carry that error.
float is an error with --backend cpu (the CPU backend computes in double), with --method ls,
and where no GPU is usable.

Under mpirun (mpirun -np N robust-fit fit ...) each rank reads only its own part of DATA.csv,
or its own file with --shard-files, and the ranks run LTS together with the rows where they
were read: the same seed gives the same fit as one process (LTS, with its robust distances by
FAST-MCD across the ranks; --method lms and ls too); --residuals is written by the ranks in turn
into one file; --plot, --precision float and a --backend other than cpu are refused
(docs/DISTRIBUTED.md).

Options)";

po::options_description fit_options(FitArguments& a) {
  po::options_description options(kFitHelp);
  options.add_options()
    ("help", "show this help")
    ("data", po::value(&a.data_file), "the CSV file (positional)")
    ("response,y", po::value(&a.response), "name of the response column (required)")
    ("predictors,x", po::value(&a.predictors), "comma-separated predictor columns (default: every other column)")
    ("method,m", po::value(&a.method)->default_value("lts"), "lts | lms | ls")
    ("alpha", po::value(&a.alpha_text)->default_value("0.5"), "LTS: fraction of the data the fit covers, in [0.5, 1]; h = h.alpha.n(alpha, n, p)")
    ("h", po::value(&a.h_text), "coverage h >= 1: the number of smallest squared residuals the criterion uses (overrides --alpha)")
    ("subsets", po::value(&a.subsets_text), "number of random elemental subsets, >= 1: robustbase's / MASS's search with nsamp = N; or all: every one of the C(n, p) subsets (nsamp = \"exact\"; at most 1e8) (default: robust-fit's search, see above)")
    ("seed", po::value(&a.seed_text)->default_value("0"), "seed of the subset draws, an integer >= 0; the same seed gives the same fit")
    ("no-intercept", po::bool_switch(&a.no_intercept), "fit without the constant term")
    ("no-mcd", po::bool_switch(&a.no_mcd), "LTS: skip the robust distances of the predictors (FAST-MCD, as ltsReg(mcd = TRUE))")
    ("backend", po::value(&a.backend)->default_value("auto"), backend_help().c_str())
    ("selection", po::value(&a.selection)->default_value("auto"),
     ("order-statistic algorithm inside the fit: " + algorithm_help(selection::Use::batched)).c_str())
    ("precision", po::value(&a.precision)->default_value("double"), "double | float (float: CUDA engine only, see above)")
    ("output,o", po::value(&a.output)->default_value("table"), "table | json")
    ("residuals", po::value(&a.residuals), "write per-row fitted values, residuals, weights and outlier flags to this CSV")
    ("plot", po::value(&a.plot), "draw the four diagnostic panels (residuals vs index and vs fitted, normal Q-Q, outlier map) to FILE.png, .svg or .pdf")
    ("shard-files", po::value(&a.shard_files), "F0.csv,F1.csv,...: under mpirun, the data as one file per rank (rank r reads file r, each with the header) instead of DATA.csv")
    ("drop-missing", po::bool_switch(&a.drop_missing), "drop rows with missing, NaN or Inf values in the used columns (default: error)")
    ("quiet,q", po::bool_switch(&a.quiet), "no progress line on stderr (shown only in a terminal, for fits longer than a second)");
  return options;
}

// --subsets N or all. regression::all_subsets (the largest size_t) stands for all: a count that
// large is read as one less, the same for every purpose.
std::size_t parse_subsets(const std::string& text) {
  if (text == "all") return regression::all_subsets;
  try {
    return static_cast<std::size_t>(std::min<std::uint64_t>(parse_integer("subsets", text, 1), regression::all_subsets - 1));
  } catch (const UsageError& e) {
    throw UsageError(std::string(e.what()) + " or all (every elemental subset)");
  }
}

regression::FitResult fit(const data::Design& design, const FitArguments& a, regression::Method method,
                          regression::Backend backend, selection::Algorithm selection, regression::Precision precision,
                          const regression::ProgressCallback& progress) {
  const bool intercept = !a.no_intercept;
  switch (method) {
    case regression::Method::ls:
      return regression::fit_ls(design.X, design.y, intercept);
    case regression::Method::lms: {
      regression::LmsOptions o;
      o.h = a.h;
      o.intercept = intercept;
      o.subsets = a.subsets;
      o.seed = a.seed;
      o.backend = backend;
      o.selection = selection;
      o.precision = precision;
      o.progress = progress;
      return regression::fit_lms(design.X, design.y, o);
    }
    case regression::Method::lts: break;
  }
  regression::LtsOptions o;
  o.alpha = a.alpha;
  o.h = a.h;
  o.intercept = intercept;
  if (a.subsets) o.subsets = *a.subsets;
  o.seed = a.seed;
  o.backend = backend;
  o.selection = selection;
  o.precision = precision;
  o.mcd = !a.no_mcd;
  o.progress = progress;
  return regression::fit_lts(design.X, design.y, o);
}


}  // namespace

int run_fit(const std::vector<std::string>& args, Stage stage) {
  common::Stopwatch phase;  // for the developer trace (ROBUSTFIT_TRACE) only
  FitArguments a;
  const po::options_description options = fit_options(a);
  const po::variables_map vm = parse_command_line(args, options, "fit");
  if (vm.count("help")) {
    if (stage == Stage::run) std::cout << options << "\n";
    return kExitOk;
  }
  if (vm.count("shard-files")) a.shard_file_list = split_list(a.shard_files, "shard-files");
  if (a.data_file.empty() && a.shard_file_list.empty())
    throw UsageError("fit: no data file given (usage: robust-fit fit DATA.csv --response NAME)");
  if (!a.data_file.empty() && !a.shard_file_list.empty()) throw UsageError("fit: give DATA.csv or --shard-files, not both");
  if (a.response.empty()) throw UsageError("fit: --response is required (the name of the response column)");
  a.alpha = parse_number("alpha", a.alpha_text, 0.5, 1);
  if (vm.count("h")) a.h = parse_integer("h", a.h_text, 1);
  if (vm.count("subsets")) a.subsets = parse_subsets(a.subsets_text);
  a.seed = parse_integer("seed", a.seed_text);
  const auto method = parse_or_usage<regression::Method>("method", a.method, regression::parse_method);
  const auto precision = parse_or_usage<regression::Precision>("precision", a.precision, regression::parse_precision);
#ifdef ROBUSTFIT_WITH_MPI
  if (distributed::Communicator* comm = mpi_world()) return run_fit_distributed(*comm, a, method, precision, stage);
#endif
  if (!a.shard_file_list.empty())
    throw UsageError("--shard-files: one file per rank is for mpirun (mpirun -np N robust-fit fit --shard-files ...); "
                     "without it give DATA.csv");
  const OutputFormat format = parse_output_format(a.output);
  if (!a.plot.empty()) check_plot_path(a.plot);
  // A large file is read while the CUDA driver starts (0.1-0.2 s) for the checks below; their
  // errors still come first (on one, the read is waited for and its result or error dropped).
  std::future<data::Table> reading;
  if (stage == Stage::run && a.backend != "cpu" && method != regression::Method::ls && worth_a_gpu(a.data_file))
    reading = std::async(std::launch::async, [&] { return data::read_csv(a.data_file); });
  // The engines select one rank per candidate: the table's batched use. LS runs on the CPU
  // whatever the backend: only the names and the table are checked for it, not the device.
  const bool cuda_usable = method == regression::Method::ls || regression::cuda_backend_available();
  const BackendChoice choice = choose_backend(a.backend, "selection", a.selection, selection::Use::batched,
                                              cuda_usable, selection::cuda_device_description());
  if (precision == regression::Precision::single_precision && a.backend == "cpu")
    throw UsageError("--precision float applies to the CUDA backend only; the CPU backend computes in double "
                     "(use --backend cuda or auto, or --precision double)");
  if (precision == regression::Precision::single_precision && method == regression::Method::ls)
    throw UsageError("--precision float applies to LTS and LMS on the CUDA backend; LS is computed in double");
  if (precision == regression::Precision::single_precision && choice.backend != regression::Backend::cuda)
    throw UsageError("--precision float needs the CUDA backend" +
                     (regression::cuda_backend_available()
                          ? ", but --selection " + a.selection + " runs on the CPU backend only"
                          : ", which is not available: " + selection::cuda_device_description()));

  if (stage == Stage::parse) return kExitOk;

  common::trace("cli options + device check", phase.lap());
  const std::jthread cuda_context = choice.backend == selection::Backend::cuda && worth_a_gpu(a.data_file)
                                        ? selection::warm_up_cuda_context()
                                        : std::jthread();
  const data::Table table = reading.valid() ? reading.get() : data::read_csv(a.data_file);
  common::trace("cli read_csv (rest)", phase.lap());
  data::DesignOptions design_options;
  design_options.response = a.response;
  if (!a.predictors.empty()) design_options.predictors = split_list(a.predictors, "predictors");
  design_options.drop_missing = a.drop_missing;
  const data::Design design = data::make_design(table, design_options);
  if (design.dropped_rows > 0)
    std::cerr << "robust-fit: note: dropped " << design.dropped_rows << " of " << table.rows()
              << " rows with missing or non-finite values (--drop-missing)\n";
  try {
    regression::check_design(design.X, design.y, !a.no_intercept, design.predictors);
  } catch (const std::invalid_argument& e) {
    throw data::DataError(a.data_file + ": " + e.what());
  }
  common::trace("cli make_design + check", phase.lap());

  if (a.subsets == regression::all_subsets && method != regression::Method::ls) {
    // Refused before the fit, as a command-line problem (exit 2); the library says the same.
    const std::size_t n = static_cast<std::size_t>(design.X.rows());
    const std::size_t p = static_cast<std::size_t>(design.X.cols()) + (a.no_intercept ? 0 : 1);
    const double count = regression::elemental_subset_count(n, p);
    if (count > regression::max_all_subsets) {
      std::ostringstream text;
      text << "--subsets all: C(n, p) = C(" << n << ", " << p << ") = " << std::setprecision(4) << count
           << " elemental subsets, more than the limit of " << regression::max_all_subsets
           << "; give a number of random subsets instead (--subsets N)";
      throw UsageError(text.str());
    }
  }

  std::optional<ProgressLine> progress;
  if (progress_wanted(a.quiet)) progress.emplace(method == regression::Method::lms ? "LMS" : "LTS");
  const regression::FitResult result =
      fit(design, a, method, estimator_backend(choice, a.backend), choice.algorithm, precision,
          progress ? progress->callback() : nullptr);
  progress.reset();  // clear the line before the results
  common::trace("cli fit", phase.lap());
  const FitContext context{a.data_file, &design, a.alpha, a.seed};
  if (format == OutputFormat::json)
    print_fit_json(std::cout, result, context);
  else
    print_fit_table(std::cout, result, context);
  std::cout.flush();
  common::trace("cli report", phase.lap());
  if (!a.residuals.empty()) write_residuals_csv(a.residuals, result, context);
  if (!a.plot.empty()) save_diagnostic_plots(a.plot, result, context);
  common::trace("cli residuals + plot", phase.lap());
  return kExitOk;
}

}  // namespace robustfit::app
