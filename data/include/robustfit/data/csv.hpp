#pragma once
// CSV input: a header row of column names, then numeric data.
// Delimiter: comma, semicolon or tab (detected from the header unless given); RFC-4180 quoting.
// Numbers are parsed with fast_float. Cells that are empty, NA, NaN or +-Inf are kept as
// "not finite" and reported only if a column that is used holds them (see design.hpp);
// text that is not a number is kept as an issue of its column for the same reason, so a
// label column that is not used does no harm.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace robustfit::data {

// A data error; what() reads "<file>:<line>:<column>: <what>" when it concerns one cell.
class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class CellIssue { none, missing, not_finite, not_numeric };

struct CellProblem {
  std::size_t row = 0;   // 0-based data row
  std::size_t line = 0;  // 1-based line in the file
  CellIssue issue = CellIssue::none;
  std::string text;      // the cell as written
};

struct Column {
  std::string name;
  std::vector<double> values;         // NaN where the cell has a problem
  std::vector<CellProblem> problems;  // in row order
};

struct Table {
  std::string source;                 // file name, for messages
  std::vector<Column> columns;
  std::vector<std::size_t> lines;     // 1-based file line of each data row
  std::size_t rows() const { return lines.size(); }
  // Index of the column called `name`; throws DataError listing the known names.
  std::size_t column_index(std::string_view name) const;
};

struct CsvOptions {
  char delimiter = '\0';  // '\0': detect from the header line (',' ';' or '\t')
};

// Throws DataError: missing/unreadable file, empty file, no data rows, duplicate or empty
// column names, ragged rows (naming line and counts), unterminated quotes.
Table read_csv(const std::filesystem::path& path, const CsvOptions& options = {});
Table parse_csv(std::string_view text, std::string_view source, const CsvOptions& options = {});

// Writes a header and rows; numbers with enough digits to round-trip.
void write_csv(const std::filesystem::path& path, const std::vector<std::string>& header,
               const std::vector<std::vector<double>>& columns);

}  // namespace robustfit::data
