#pragma once
// From a Table to the regression inputs: response y, predictor matrix X (no column of ones).
#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"

namespace robustfit::data {

struct DesignOptions {
  std::string response;                 // required
  std::vector<std::string> predictors;  // empty: every column but the response
  bool drop_missing = false;            // drop rows with missing / non-finite used cells
  bool allow_empty = false;             // no rows is no error (one part of data spread over processes)
};

struct Design {
  Eigen::MatrixXd X;                        // n x q predictors
  Eigen::VectorXd y;                        // n
  std::string response;
  std::vector<std::string> predictors;
  std::vector<std::size_t> data_rows;       // 1-based data-row number of each kept row
  std::size_t dropped_rows = 0;             // rows dropped by drop_missing
};

// Throws DataError naming file, line and column: unknown column, response also listed as a
// predictor, non-numeric cell in a used column (always), missing / NaN / Inf cell in a used
// column (unless drop_missing), no rows left.
Design make_design(const Table& table, const DesignOptions& options);

// One numeric column (for `robust-fit select`): same cell rules as make_design. allow_empty: no
// rows left is a result, not an error (one shard of a distributed column, see csv_parts.hpp).
struct ColumnData {
  std::vector<double> values;
  std::vector<std::size_t> data_rows;
  std::size_t dropped_rows = 0;
};
ColumnData numeric_column(const Table& table, std::string_view name, bool drop_missing, bool allow_empty = false);

}  // namespace robustfit::data
