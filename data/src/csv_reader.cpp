// CSV input: header of names, then cells kept as numbers or as recorded problems per column.
#include <string>
#include <unordered_map>

#include "csv_header.hpp"
#include "csv_records.hpp"
#include "csv_rows.hpp"
#include "file_text.hpp"
#include "robustfit/data/csv.hpp"

namespace robustfit::data {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

std::string at(std::string_view source, std::size_t line) {
  return std::string(source) + ":" + std::to_string(line);
}

std::vector<Column> read_header(csv_detail::RecordReader& reader, std::string_view source,
                                std::size_t& header_line) {
  csv_detail::Record record;
  if (!reader.next(record)) throw DataError(std::string(source) + ": the file is empty");
  header_line = record.line;
  std::vector<Column> columns(record.size);
  std::unordered_map<std::string_view, std::size_t> seen;
  for (std::size_t i = 0; i < record.size; ++i) {
    columns[i].name = std::move(record.fields[i].text);
    const std::string number = std::to_string(i + 1);
    if (columns[i].name.empty()) {
      throw DataError(at(source, record.line) + ":" + number + ": column " + number +
                      " has an empty name in the header");
    }
  }
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto [it, inserted] = seen.emplace(columns[i].name, i);
    if (!inserted) {
      throw DataError(at(source, record.line) + ":" + columns[i].name + ": duplicate column name '" +
                      columns[i].name + "' (columns " + std::to_string(it->second + 1) + " and " +
                      std::to_string(i + 1) + ")");
    }
  }
  return columns;
}

}  // namespace

std::size_t Table::column_index(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return i;
  }
  std::string known;
  for (const Column& column : columns) known += (known.empty() ? "'" : ", '") + column.name + "'";
  throw DataError(source + ": no column named '" + std::string(name) +
                  "'; the columns are: " + known);
}

namespace csv_detail {

CsvHeader read_csv_header(std::string_view text, std::string_view source, const CsvOptions& options) {
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
    throw DataError(std::string(source) + ": the file is UTF-16 encoded; save it as UTF-8");
  }
  CsvHeader header;
  header.delimiter = options.delimiter != '\0' ? options.delimiter : detect_delimiter(text);
  if (header.delimiter == '"' || header.delimiter == '\n' || header.delimiter == '\r' || header.delimiter == ' ') {
    throw DataError(std::string(source) + ": the delimiter cannot be a quote, space or newline");
  }
  RecordReader reader(text, source, header.delimiter);
  header.columns = read_header(reader, source, header.header_line);
  for (const Column& column : header.columns) header.names.push_back(column.name);
  header.rows = text.substr(reader.position());
  header.rows_line = reader.line();
  return header;
}

}  // namespace csv_detail

Table parse_csv(std::string_view text, std::string_view source, const CsvOptions& options) {
  csv_detail::CsvHeader header = csv_detail::read_csv_header(text, source, options);
  Table table;
  table.source = std::string(source);
  table.columns = std::move(header.columns);
  csv_detail::parse_rows(header.rows, header.rows_line, header.delimiter, header.names, table);
  if (table.lines.empty()) {
    throw DataError(at(source, header.header_line) + ": no data rows after the header");
  }
  return table;
}

Table read_csv(const std::filesystem::path& path, const CsvOptions& options) {
  const csv_detail::FileText file(path);
  return parse_csv(file.text(), path.string(), options);
}

}  // namespace robustfit::data
