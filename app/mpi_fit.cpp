#include "mpi_fit.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <new>
#include <system_error>

#include "cli_error.hpp"
#include "fit_report.hpp"
#include "mpi/distributed_fit.hpp"
#include "mpi_run.hpp"
#include "options_util.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/distributed/mpi_session.hpp"
#include "robustfit/distributed/sharded_csv.hpp"

namespace robustfit::app {
namespace {

// This rank's rows of the design, their data rows numbered over the whole data set.
struct DesignPart {
  data::Design design;
  std::uint64_t n = 0, dropped = 0;  // over all ranks
};

DesignPart read_design_part(distributed::Communicator& comm, const FitArguments& a) {
  const data::Table table = read_table_part(comm, a.data_file, a.shard_file_list);
  data::DesignOptions options;
  options.response = a.response;
  if (!a.predictors.empty()) options.predictors = split_list(a.predictors, "predictors");
  options.drop_missing = a.drop_missing;
  options.allow_empty = true;
  DesignPart part{comm.agree([&] { return data::make_design(table, options); }), 0, 0};
  const std::uint64_t rows_before = comm.exclusive_sum(std::uint64_t{table.rows()});
  for (std::size_t& row : part.design.data_rows) row += rows_before;
  std::array<std::uint64_t, 3> totals{static_cast<std::uint64_t>(part.design.y.size()), part.design.dropped_rows, table.rows()};
  comm.all_reduce_sum(totals);
  part.n = totals[0];
  part.dropped = totals[1];
  part.design.dropped_rows = totals[1];  // the report prints the total
  const std::string source = a.shard_file_list.empty() ? a.data_file : a.shard_files;
  if (part.n == 0)  // as make_design says it for one file
    throw data::DataError(source + ": no rows left" +
                          (totals[2] == 0 ? std::string(" (the table has no data rows)")
                                          : " after dropping " + std::to_string(totals[1]) +
                                                " rows with missing or non-finite values"));
  return part;
}

std::vector<std::size_t> data_rows_of(const data::Design& design, const std::vector<std::size_t>& local_rows) {
  std::vector<std::size_t> rows;
  for (std::size_t i : local_rows) rows.push_back(design.data_rows[i]);
  return rows;
}

// Every rank's list on rank 0, in rank order (ascending, as the data rows are).
std::vector<std::size_t> gather_rows(distributed::Communicator& comm, const std::vector<std::size_t>& mine) {
  const std::vector<std::uint64_t> local(mine.begin(), mine.end());
  const std::vector<std::uint64_t> all = comm.gather(local, 0);
  return {all.begin(), all.end()};
}

// The robust distances' part of the report (rank 0 may hold no rows): whether there are any,
// the outlier map's class counts over all ranks, and, for JSON only, every row's distance and
// class gathered to rank 0 (one process prints them all).
void gather_robust_distances(distributed::Communicator& comm, const regression::FitResult& fit, bool json,
                             DistributedRows& rows) {
  rows.has_robust_distances = comm.all_reduce_max(fit.robust_distances.empty() ? 0 : 1) == 1;
  if (!rows.has_robust_distances) return;
  const std::vector<regression::OutlierClass> classes = regression::outlier_map(fit);
  std::array<std::uint64_t, 4> counts{};
  for (const auto c : classes) ++counts[static_cast<std::size_t>(c)];
  comm.all_reduce_sum(counts);
  std::copy(counts.begin(), counts.end(), rows.outlier_class_counts.begin());
  if (!json) return;
  std::vector<std::uint64_t> mine;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    mine.push_back(std::bit_cast<std::uint64_t>(fit.robust_distances[i]));
    mine.push_back(static_cast<std::uint64_t>(classes[i]));
  }
  const std::vector<std::uint64_t> all = comm.gather(mine, 0);
  for (std::size_t i = 0; i + 1 < all.size(); i += 2) {
    rows.robust_distances.push_back(std::bit_cast<double>(all[i]));
    rows.outlier_classes.push_back(static_cast<regression::OutlierClass>(all[i + 1]));
  }
}

// The ranks append their rows in rank order to one file (rank 0 creates it with the header):
// the file one process writes. Needs the path on a file system every rank sees.
void write_residuals_in_turn(distributed::Communicator& comm, const std::string& path, const regression::FitResult& fit,
                             const FitContext& context) {
  const char* header = context.distributed->has_robust_distances ? kResidualsCsvHeaderWithDistances : kResidualsCsvHeader;
  const std::string text = (comm.rank() == 0 ? std::string(header) : std::string()) + residuals_csv_rows(fit, context);
  for (int turn = 0; turn < comm.size(); ++turn) {
    comm.agree([&] {
      if (comm.rank() != turn) return;
      errno = 0;
      std::ofstream file(path, turn == 0 ? std::ios::binary | std::ios::trunc : std::ios::binary | std::ios::app);
      if (file) file << text;
      if (!file || !file.flush())
        throw data::DataError("cannot write '" + path + "': " + std::generic_category().message(errno ? errno : EIO));
    });
  }
}

}  // namespace

int run_fit_distributed(distributed::Communicator& comm, const FitArguments& a, regression::Method method,
                        regression::Precision precision, Stage stage) {
  if (a.backend != "auto" && a.backend != "cpu" && a.backend != "cuda")
    throw UsageError("--backend " + a.backend + ": under mpirun the backends are auto, cpu and cuda");
  if (a.backend == "cuda" && method == regression::Method::lms)
    throw UsageError("--backend cuda: under mpirun LMS runs on the ranks' CPUs (auto or cpu); LTS runs on their GPUs");
  if (a.selection != "auto")
    throw UsageError("--selection " + a.selection + ": under mpirun the order statistics are found by DIBMS (auto)");
  if (precision != regression::Precision::double_precision)
    throw UsageError("--precision " + a.precision + ": under mpirun the fit computes in double");
  if (!a.plot.empty()) throw UsageError("--plot: the diagnostic plots are not drawn under mpirun; run without mpirun");
  require_one_file_per_rank(comm, a.shard_file_list);
  const OutputFormat format = parse_output_format(a.output);
  if (stage == Stage::parse) return kExitOk;

  // LTS's passes over each rank's rows on its GPU (one per rank: the local rank's), with cuda on
  // every rank (a rank without one exits 2, the ranks agreeing), with auto where every rank has
  // one and the data are large enough (fit_lts_distributed decides). LS runs on the CPUs whatever
  // the backend, as in one process.
  if (method == regression::Method::lts) use_local_gpu(comm, a.backend);
  note_single_core_ranks(comm, a.quiet);
  const DesignPart part = read_design_part(comm, a);
  const data::Design& design = part.design;
  const std::string source = a.shard_file_list.empty() ? a.data_file : a.shard_files;
  if (comm.rank() == 0) {
    if (part.dropped > 0)
      std::cerr << "robust-fit: note: dropped " << part.dropped << " of " << part.n + part.dropped
                << " rows with missing or non-finite values (--drop-missing)\n";
  }
  try {
    regression::check_design_distributed(comm, design.X, design.y, !a.no_intercept, design.predictors);
  } catch (const std::invalid_argument& e) {
    throw data::DataError(source + ": " + e.what());
  }
  regression::LtsOptions o;
  o.alpha = a.alpha;
  o.h = a.h;
  o.intercept = !a.no_intercept;
  if (a.subsets) o.subsets = *a.subsets;
  o.seed = a.seed;
  o.mcd = !a.no_mcd;
  o.backend = regression::parse_backend(a.backend);  // the same on every rank
  // The fit's own errors (h out of range, a rank-deficient reweighted design) are decided alike
  // on every rank; running out of memory on one rank is not: that rank says so and ends the job,
  // as the others would wait for it in a collective.
  regression::LmsOptions lms;
  lms.h = a.h;
  lms.intercept = o.intercept;
  lms.subsets = a.subsets;
  lms.seed = a.seed;
  const regression::FitResult result = [&] {
    try {
      switch (method) {
        case regression::Method::ls: return regression::fit_ls_distributed(comm, design.X, design.y, o.intercept);
        case regression::Method::lms: return regression::fit_lms_distributed(comm, design.X, design.y, lms);
        case regression::Method::lts: break;
      }
      return regression::fit_lts_distributed(comm, design.X, design.y, o);
    } catch (const std::bad_alloc&) {
      std::cerr << "robust-fit: error: rank " << comm.rank() << ": out of memory during the fit\n";
      distributed::abort_all_ranks(kExitDataError);
    }
  }();

  DistributedRows rows;
  rows.ranks = comm.size();
  std::vector<std::size_t> outliers;
  for (std::size_t i = 0; i < result.outlier.size(); ++i)
    if (result.outlier[i]) outliers.push_back(i);
  rows.outlier_rows = gather_rows(comm, data_rows_of(design, outliers));
  if (format == OutputFormat::json) rows.best_subset_rows = gather_rows(comm, data_rows_of(design, result.best_subset));
  rows.kept_rows = comm.all_reduce_sum(static_cast<std::uint64_t>(result.weights.sum()));
  gather_robust_distances(comm, result, format == OutputFormat::json, rows);
  rows.bytes = comm.bytes();
  const FitContext context{source, &design, a.alpha, a.seed, &rows};
  if (comm.rank() == 0) {
    if (format == OutputFormat::json)
      print_fit_json(std::cout, result, context);
    else
      print_fit_table(std::cout, result, context);
  }
  if (!a.residuals.empty()) write_residuals_in_turn(comm, a.residuals, result, context);
  return kExitOk;
}

}  // namespace robustfit::app
