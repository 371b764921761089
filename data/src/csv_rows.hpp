#pragma once
// Private: the data rows of a CSV text, parsed in parallel chunks that are split at line ends.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "robustfit/data/csv.hpp"

namespace robustfit::data::csv_detail {

// How to read: chunks of about chunk_bytes, and whether chunks without quotes may take the fast
// path. Tests compare small chunks against {SIZE_MAX, false}: one RecordReader over the text.
struct RowReading {
  std::size_t chunk_bytes = std::size_t{1} << 20;
  bool fast_path = true;
};

// Line ends as RecordReader counts them: "\n", "\r\n" and a lone "\r" are one each.
std::size_t count_line_ends(std::string_view text);

// Offsets that cut `text` into at most `parts` pieces of about equal size, each cut just after
// a '\n': 0 first, text.size() last (fewer pieces when the text has fewer lines).
std::vector<std::size_t> line_cuts(std::string_view text, std::size_t parts);

// Parses the records of `text`, the part of a file after its header, whose first character is
// on file line `first_line`, into table.columns (one per name in `names`, already named) and
// table.lines. The table, and the DataError thrown for a bad file, are those of one
// RecordReader reading the whole text: the first error in file order, with its line.
void parse_rows(std::string_view text, std::size_t first_line, char delimiter,
                const std::vector<std::string>& names, Table& table,
                const RowReading& reading = {});

}  // namespace robustfit::data::csv_detail
