#pragma once
// Private: turns one CSV cell into a double or says why it is not one.
#include <string_view>

#include "robustfit/data/csv.hpp"

namespace robustfit::data::csv_detail {

// Empty and "NA" are missing; NaN/Inf spellings (and overflow to Inf) are not_finite; any
// other text that is not a whole number is not_numeric. `value` is NaN unless issue is none.
CellIssue parse_cell(std::string_view text, double& value);

}  // namespace robustfit::data::csv_detail
