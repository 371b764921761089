#include "mpi_mcd.hpp"

#include <array>
#include <bit>
#include <iostream>
#include <new>

#include "cli_error.hpp"
#include "mcd_report.hpp"
#include "mpi_run.hpp"
#include "mpi/distributed_fit.hpp"
#include "robustfit/distributed/mpi_session.hpp"
#include "robustfit/distributed/sharded_csv.hpp"

namespace robustfit::app {
namespace {

// Every rank's values on rank 0, in rank order.
std::vector<std::size_t> gather_counts(distributed::Communicator& comm, const std::vector<std::size_t>& mine) {
  const std::vector<std::uint64_t> all = comm.gather(std::vector<std::uint64_t>(mine.begin(), mine.end()), 0);
  return {all.begin(), all.end()};
}

Eigen::VectorXd gather_values(distributed::Communicator& comm, const Eigen::VectorXd& mine) {
  std::vector<std::uint64_t> bits(static_cast<std::size_t>(mine.size()));
  for (Eigen::Index i = 0; i < mine.size(); ++i) bits[static_cast<std::size_t>(i)] = std::bit_cast<std::uint64_t>(mine(i));
  const std::vector<std::uint64_t> all = comm.gather(bits, 0);
  Eigen::VectorXd out(static_cast<Eigen::Index>(all.size()));
  for (std::size_t i = 0; i < all.size(); ++i) out(static_cast<Eigen::Index>(i)) = std::bit_cast<double>(all[i]);
  return out;
}

// This rank's 1-based row positions -> data rows of the file, on rank 0 for all ranks.
std::vector<std::size_t> gather_data_rows(distributed::Communicator& comm, const std::vector<std::size_t>& positions,
                                          const data::Design& design) {
  std::vector<std::size_t> rows;
  for (const std::size_t r : positions) rows.push_back(design.data_rows[r - 1]);
  return gather_counts(comm, rows);
}

}  // namespace

int run_mcd_distributed(distributed::Communicator& comm, const std::string& data_file,
                        const std::vector<std::string>& shard_files, std::vector<std::string> columns, bool drop_missing,
                        const regression::McdOptions& options, OutputFormat format, bool quiet) {
  note_single_core_ranks(comm, quiet);
  const data::Table table = read_table_part(comm, data_file, shard_files);
  // Errors and the output name the input as one process would: the file, or the list of files.
  std::string source = data_file;
  for (const std::string& file : shard_files) source += (source.empty() ? "" : ",") + file;
  if (columns.empty())
    for (const auto& column : table.columns) columns.push_back(column.name);
  data::Design design = comm.agree([&] { return read_mcd_columns(table, columns, drop_missing, /*allow_empty=*/true); });
  const std::uint64_t rows_before = comm.exclusive_sum(std::uint64_t{table.rows()});
  for (std::size_t& row : design.data_rows) row += rows_before;
  std::array<std::uint64_t, 3> totals{static_cast<std::uint64_t>(design.X.rows()), design.dropped_rows, table.rows()};
  comm.all_reduce_sum(totals);
  if (totals[0] == 0)  // as one process says it
    throw data::DataError(source + ": no rows left" +
                          (totals[2] == 0 ? std::string(" (the table has no data rows)")
                                          : " after dropping " + std::to_string(totals[1]) +
                                                " rows with missing or non-finite values"));
  if (comm.rank() == 0 && totals[1] > 0)
    std::cerr << "robust-fit: note: dropped " << totals[1] << " of " << totals[2]
              << " rows with missing or non-finite values (--drop-missing)\n";

  // The fit's own errors (n <= p + 1, say) are decided alike on every rank; running out of
  // memory on one rank is not: that rank says so and ends the job.
  const regression::McdResult result = [&] {
    try {
      return regression::fit_mcd_distributed(comm, design.X, options);
    } catch (const std::invalid_argument& e) {
      throw data::DataError(source + ": " + e.what());
    } catch (const std::bad_alloc&) {
      std::cerr << "robust-fit: error: rank " << comm.rank() << ": out of memory during the fit\n";
      distributed::abort_all_ranks(kExitDataError);
    }
  }();

  McdRows rows;
  rows.flagged = gather_data_rows(comm, result.flagged, design);
  const bool json = format == OutputFormat::json;
  if (json) rows.best_subset = gather_data_rows(comm, result.best_subset, design);
  if (json || table_prints_distances(result)) {
    rows.data_rows = gather_counts(comm, design.data_rows);
    rows.distances = gather_values(comm, result.distances);
  }
  if (json) rows.raw_distances = gather_values(comm, result.raw_distances);
  rows.ranks = comm.size();
  rows.bytes = comm.bytes();
  if (comm.rank() == 0) {
    if (json)
      print_mcd_json(std::cout, result, rows, columns, source, options.seed);
    else
      print_mcd_table(std::cout, result, rows, columns, source);
  }
  return kExitOk;
}

}  // namespace robustfit::app
