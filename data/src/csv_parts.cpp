// A part of a CSV file's rows for one of several readers (csv_parts.hpp).
#include "robustfit/data/csv_parts.hpp"

#include <algorithm>
#include <string>

#include "csv_header.hpp"
#include "csv_rows.hpp"
#include "file_text.hpp"

namespace robustfit::data {
namespace {

// The first offset at or after `from` that starts a line outside quoted fields, given whether
// `from` lies inside a quoted field (`from` is 0, the text's end or just after a '\n').
std::size_t line_start_outside_quotes(std::string_view rows, std::size_t from, bool inside) {
  if (!inside) return from;
  for (std::size_t pos = from; pos < rows.size(); ++pos) {
    if (rows[pos] == '"') inside = !inside;
    else if (rows[pos] == '\n' && !inside) return pos + 1;
  }
  return rows.size();
}

}  // namespace

struct CsvPart::State {
  State(const std::filesystem::path& file, const CsvOptions& options)
      : path(file), text(file, /*read_ahead=*/false), header(csv_detail::read_csv_header(text.text(), path.string(), options)) {}
  std::filesystem::path path;
  csv_detail::FileText text;
  csv_detail::CsvHeader header;
  std::size_t begin = 0, end = 0;  // the part, as offsets into header.rows
};

CsvPart::CsvPart(const std::filesystem::path& path, std::size_t part, std::size_t parts, const CsvOptions& options)
    : state_(std::make_unique<State>(path, options)) {
  if (parts == 0 || part >= parts) throw std::invalid_argument("CsvPart: part " + std::to_string(part) + " of " + std::to_string(parts));
  const std::vector<std::size_t> cuts = csv_detail::line_cuts(state_->header.rows, parts);
  const std::size_t pieces = cuts.size() - 1;  // fewer than parts when the rows have few lines
  state_->begin = part < pieces ? cuts[part] : state_->header.rows.size();
  state_->end = part < pieces ? cuts[part + 1] : state_->header.rows.size();
}

CsvPart::~CsvPart() = default;

std::size_t CsvPart::quotes() const {
  const std::string_view rows = state_->header.rows;
  return static_cast<std::size_t>(std::count(rows.begin() + static_cast<std::ptrdiff_t>(state_->begin),
                                             rows.begin() + static_cast<std::ptrdiff_t>(state_->end), '"'));
}

void CsvPart::cut(std::size_t quotes_before) {
  const std::size_t quotes_to_end = quotes_before + quotes();
  const std::string_view rows = state_->header.rows;
  state_->begin = line_start_outside_quotes(rows, state_->begin, quotes_before % 2 == 1);
  state_->end = std::max(state_->begin, line_start_outside_quotes(rows, state_->end, quotes_to_end % 2 == 1));
}

std::size_t CsvPart::line_ends() const {
  return csv_detail::count_line_ends(state_->header.rows.substr(state_->begin, state_->end - state_->begin));
}

Table CsvPart::read(std::size_t line_ends_before) const {
  const csv_detail::CsvHeader& header = state_->header;
  Table table;
  table.source = state_->path.string();
  table.columns = header.columns;
  csv_detail::parse_rows(header.rows.substr(state_->begin, state_->end - state_->begin),
                         header.rows_line + line_ends_before, header.delimiter, header.names, table);
  return table;
}

}  // namespace robustfit::data
