#pragma once
// What each fuzz target does with one input, shared by the libFuzzer targets (*_fuzz.cpp) and
// the regression test that replays tests/fuzz/regressions/<target>/* (tests/app). A clean error
// (DataError, UsageError, std::invalid_argument where documented) returns normally; a broken
// invariant throws FuzzFinding; anything else propagates (libFuzzer reports it as a crash).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::fuzz {

class FuzzFinding : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

inline void require(bool condition, const char* what) {
  if (!condition) throw FuzzFinding(what);
}

// Any bytes -> a Table whose columns all have one value per row, or a DataError.
inline void csv_reader_input(std::string_view bytes) {
  data::Table table;
  try {
    table = data::parse_csv(bytes, "fuzz.csv");
  } catch (const data::DataError&) {
    return;
  }
  require(!table.columns.empty(), "a table without columns was returned");
  for (const auto& column : table.columns) {
    require(column.values.size() == table.rows(), "a column with a value count other than the row count");
    for (const auto& problem : column.problems)
      require(problem.row < table.rows() && problem.issue != data::CellIssue::none, "a cell problem off the table");
  }
}

// The first byte chooses the options: bit 0 drop_missing, bit 1 no intercept, bits 2-3 the
// response column, bits 4-7 which of the first four columns are predictors (all others when
// none); the rest is the CSV. make_design -> a Design with finite X and y accepted or refused
// (std::invalid_argument) by check_design, or a DataError; numeric_column likewise.
inline void design_input(std::string_view bytes) {
  if (bytes.empty()) return;
  const auto choice = static_cast<unsigned char>(bytes[0]);
  data::Table table;
  try {
    table = data::parse_csv(bytes.substr(1), "fuzz.csv");
  } catch (const data::DataError&) {
    return;
  }
  require(!table.columns.empty(), "a table without columns was returned");
  data::DesignOptions options;
  options.drop_missing = (choice & 1U) != 0;
  const bool intercept = (choice & 2U) == 0;
  options.response = table.columns[((choice >> 2) & 3U) % table.columns.size()].name;
  for (std::size_t c = 0; c < table.columns.size() && c < 4; ++c)
    if (((choice >> (4 + c)) & 1U) != 0) options.predictors.push_back(table.columns[c].name);
  try {
    const data::Design design = data::make_design(table, options);
    const auto n = static_cast<std::size_t>(design.y.size());
    require(static_cast<std::size_t>(design.X.rows()) == n && design.data_rows.size() == n &&
                design.predictors.size() == static_cast<std::size_t>(design.X.cols()) &&
                n + design.dropped_rows == table.rows(),
            "a design whose sizes disagree");
    require(design.X.allFinite() && design.y.allFinite(), "a design with a non-finite used cell");
    regression::check_design(design.X, design.y, intercept, design.predictors);
  } catch (const data::DataError&) {
  } catch (const std::invalid_argument&) {
  }
  try {
    const data::ColumnData column = data::numeric_column(table, options.response, options.drop_missing);
    require(column.values.size() + column.dropped_rows == table.rows(), "a column whose rows do not add up");
  } catch (const data::DataError&) {
  }
}

// Bytes split at NUL: the arguments after the command's name.
inline std::vector<std::string> split_arguments(std::string_view bytes) {
  std::vector<std::string> args(1);
  for (const char c : bytes) {
    if (c == '\0')
      args.emplace_back();
    else
      args.back().push_back(c);
  }
  return args;
}

// argv -> parsed options or a UsageError (exit 2).
template <class Parse>
void command_line_input(std::string_view bytes, Parse parse) {
  try {
    parse(split_arguments(bytes));
  } catch (const app::UsageError&) {
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace robustfit::fuzz
