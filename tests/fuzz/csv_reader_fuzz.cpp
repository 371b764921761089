// The CSV reader: any bytes -> a Table whose columns all have one value per row, or a DataError.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "robustfit/data/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  robustfit::data::Table table;
  try {
    table = robustfit::data::parse_csv(text, "fuzz.csv");
  } catch (const robustfit::data::DataError&) {
    return 0;
  }
  if (table.columns.empty()) std::abort();  // a table without columns must have been an error
  for (const auto& column : table.columns) {
    if (column.values.size() != table.rows()) std::abort();
    for (const auto& problem : column.problems)
      if (problem.row >= table.rows() || problem.issue == robustfit::data::CellIssue::none) std::abort();
  }
  return 0;
}
