// The design builder: a parsed table + options -> a Design the estimators accept, or a clean
// error (DataError from make_design, std::invalid_argument from check_design). The first byte
// chooses the options: bit 0 drop_missing, bit 1 no intercept, bits 2-3 the response column,
// bits 4-7 which other columns are predictors (all when none); the rest is the CSV.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/regression/estimators.hpp"

namespace rd = robustfit::data;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const unsigned choice = data[0];
  rd::Table table;
  try {
    table = rd::parse_csv(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), "fuzz.csv");
  } catch (const rd::DataError&) {
    return 0;
  }
  rd::DesignOptions options;
  options.drop_missing = (choice & 1U) != 0;
  const bool intercept = (choice & 2U) == 0;
  if (table.columns.empty()) std::abort();  // the reader never returns a table without columns
  const std::size_t response = ((choice >> 2) & 3U) % table.columns.size();
  options.response = table.columns[response].name;
  for (std::size_t c = 0; c < table.columns.size() && c < 4; ++c)
    if (((choice >> (4 + c)) & 1U) != 0) options.predictors.push_back(table.columns[c].name);
  try {
    const rd::Design design = rd::make_design(table, options);
    const auto n = static_cast<std::size_t>(design.y.size());
    if (static_cast<std::size_t>(design.X.rows()) != n || design.data_rows.size() != n ||
        design.predictors.size() != static_cast<std::size_t>(design.X.cols()) ||
        n + design.dropped_rows != table.rows())
      std::abort();
    if (!design.X.allFinite() || !design.y.allFinite()) std::abort();  // used cells are finite numbers
    robustfit::regression::check_design(design.X, design.y, intercept, design.predictors);
  } catch (const rd::DataError&) {
  } catch (const std::invalid_argument&) {
  }
  try {
    const rd::ColumnData column = rd::numeric_column(table, options.response, options.drop_missing);
    if (column.values.size() + column.dropped_rows != table.rows()) std::abort();
  } catch (const rd::DataError&) {
  }
  return 0;
}
