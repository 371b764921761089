#pragma once
// Private: the header of a CSV text (delimiter, column names) and where its data rows begin,
// shared by the whole-file reader and the part reader (csv_parts.cpp).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "robustfit/data/csv.hpp"

namespace robustfit::data::csv_detail {

struct CsvHeader {
  char delimiter = ',';
  std::vector<Column> columns;     // named, without values
  std::vector<std::string> names;  // the same names, for the row reader's messages
  std::size_t header_line = 0;     // file line of the header
  std::string_view rows;           // the text after the header
  std::size_t rows_line = 0;       // file line of rows[0]
};

// Throws DataError for UTF-16 text, a bad delimiter, an empty file, empty or duplicate names.
CsvHeader read_csv_header(std::string_view text, std::string_view source, const CsvOptions& options);

}  // namespace robustfit::data::csv_detail
