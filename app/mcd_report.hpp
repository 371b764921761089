#pragma once
// robust-fit mcd's input and output, shared by one process (mcd_command.cpp) and mpirun
// (mpi_mcd.cpp): the used columns as a matrix, the table and the JSON.
#include <Eigen/Core>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/mcd.hpp"

namespace robustfit::app {

// The used columns as an n x p matrix and the data-row number of each row (missing cells
// dropped from all columns at once with drop_missing). allow_empty: no rows is no error (a
// rank's part under mpirun).
data::Design read_mcd_columns(const data::Table& table, const std::vector<std::string>& columns, bool drop_missing,
                              bool allow_empty = false);

// What the output says about single rows, over all rows: the flagged rows and the best
// h-subset as data rows of the file, every used row's data row and distances. Under mpirun
// rank 0 gathers only what the chosen output prints; ranks > 0 there.
struct McdRows {
  std::vector<std::size_t> flagged, best_subset, data_rows;
  Eigen::VectorXd distances, raw_distances;
  int ranks = 0;             // under mpirun: the ranks and the payload rank 0 handed to collectives
  std::uint64_t bytes = 0;
};

// One process: the rows of `result` (positions among the used rows) as data rows of `design`.
McdRows mcd_rows_of(const regression::McdResult& result, const data::Design& design);

// The table prints each row's distance for n <= 200 (not at an exact fit).
bool table_prints_distances(const regression::McdResult& result);

// The JSON object `--output json` prints; print_mcd_json writes its dump(2).
nlohmann::ordered_json mcd_json(const regression::McdResult& r, const McdRows& rows, const std::vector<std::string>& columns,
                                const std::string& file, std::uint64_t seed);
void print_mcd_json(std::ostream& out, const regression::McdResult& r, const McdRows& rows,
                    const std::vector<std::string>& columns, const std::string& file, std::uint64_t seed);
void print_mcd_table(std::ostream& out, const regression::McdResult& r, const McdRows& rows,
                     const std::vector<std::string>& columns, const std::string& file);

}  // namespace robustfit::app
