#include "cell_value.hpp"

#include <cmath>
#include <fast_float/fast_float.h>
#include <limits>
#include <system_error>

namespace robustfit::data::csv_detail {

CellIssue parse_cell(std::string_view text, double& value) {
  value = std::numeric_limits<double>::quiet_NaN();
  // Quoted cells keep their spaces; a number written as " 1.5" is still a number.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty() || text == "NA") return CellIssue::missing;

  // fast_float follows std::from_chars and refuses a leading '+'; spreadsheets write one.
  std::string_view number = text;
  if (number.size() > 1 && number.front() == '+' && number[1] != '+' && number[1] != '-') {
    number.remove_prefix(1);
  }
  double parsed = 0.0;
  const char* const end = number.data() + number.size();
  const auto result = fast_float::from_chars(number.data(), end, parsed);
  const bool whole = result.ptr == end;
  if (!whole || (result.ec != std::errc() && result.ec != std::errc::result_out_of_range)) {
    return CellIssue::not_numeric;
  }
  if (!std::isfinite(parsed)) return CellIssue::not_finite;
  value = parsed;
  return CellIssue::none;
}

}  // namespace robustfit::data::csv_detail
