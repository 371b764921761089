// Data rows in parallel. The text is cut into chunks just after a '\n'; each chunk is read by
// its own RecordReader into its own slots of the columns (one slot per line end, an upper bound
// on its records), and the slots are then closed up. A cut inside a quoted field shows as a
// chunk whose last quote is still open at its end: then the whole text is read serially, so
// quoted newlines cost speed, never correctness. A chunk that starts where a record of the
// whole text starts reads the same records as the serial reader, so the first chunk with an
// error holds the first error of the file, with the same message and line.
#include "csv_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fast_float/fast_float.h>
#include <system_error>
#include <exception>

#include "cell_value.hpp"
#include "csv_records.hpp"
#include "robustfit/common/parallel.hpp"

namespace robustfit::data::csv_detail {

std::size_t count_line_ends(std::string_view text) {
  std::size_t count = 0;
  const char* const end = text.data() + text.size();
  for (const char* p = text.data(); (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)))) != nullptr; ++p) {
    ++count;
  }
  for (std::size_t pos = text.find('\r'); pos != std::string_view::npos; pos = text.find('\r', pos + 1)) {
    count += pos + 1 == text.size() || text[pos + 1] != '\n';
  }
  return count;
}

std::vector<std::size_t> line_cuts(std::string_view text, std::size_t parts) {
  parts = std::max<std::size_t>(parts, 1);
  std::vector<std::size_t> starts{0};
  for (std::size_t k = 1; k < parts; ++k) {
    const std::size_t newline = text.find('\n', std::max(k * (text.size() / parts), starts.back()));
    if (newline == std::string_view::npos || newline + 1 >= text.size()) break;
    if (newline + 1 > starts.back()) starts.push_back(newline + 1);
  }
  starts.push_back(text.size());
  return starts;
}

namespace {

constexpr std::size_t kMaxChunks = 4096;

struct Chunk {
  std::string_view text;
  std::size_t first_line = 0;  // file line of text[0]
  std::size_t slots = 0;       // line ends + 1: at least the records in the chunk
  std::size_t offset = 0;      // first slot in the columns
  std::size_t rows = 0;        // records read
  std::vector<std::vector<CellProblem>> problems;  // per column; rows relative to the chunk
  std::exception_ptr error;
  bool ran_off_end = false;
};

// Offsets where chunks start, and text.size() last: each start just after a '\n'.
std::vector<std::size_t> chunk_starts(std::string_view text, std::size_t chunk_bytes) {
  const std::size_t chunks = std::clamp<std::size_t>(text.size() / std::max<std::size_t>(chunk_bytes, 1), 1, kMaxChunks);
  return line_cuts(text, chunks);
}

bool is_line_end(char c) { return c == '\n' || c == '\r'; }

// The fast path for a chunk without quotes: numbers parsed in place, straight into the slots.
// Cells that are not plain numbers go through parse_cell with the reader's trimming, so they
// are classified alike. Returns false, having read nothing for good, where the chunk needs
// the RecordReader: a quote, a record of the wrong length, a blank line of spaces.
bool read_plain_chunk(Chunk& chunk, char delimiter, std::size_t columns, Table& table) {
  const char* p = chunk.text.data();
  const char* const end = p + chunk.text.size();
  if (std::memchr(p, '"', chunk.text.size()) != nullptr) return false;
  const auto is_space = [delimiter](char c) { return c == ' ' || (c == '\t' && delimiter != '\t'); };
  struct Pending {
    std::size_t column;
    CellIssue issue;
    std::string_view text;
  };
  std::vector<Pending> pending;
  std::size_t line = chunk.first_line;
  chunk.rows = 0;
  while (p < end) {
    if (is_line_end(*p)) {  // a blank line
      p += *p == '\r' && p + 1 < end && p[1] == '\n' ? 2 : 1;
      ++line;
      continue;
    }
    const std::size_t slot = chunk.offset + chunk.rows;
    pending.clear();
    bool first_empty = false;  // the first cell, as cut and trimmed, is empty
    bool blank = false;        // the record is that one empty cell: RecordReader skips it
    for (std::size_t c = 0;; ++c) {
      if (c == columns) return false;  // too many fields
      double value = 0.0;
      const auto parsed = fast_float::from_chars(p, end, value);
      if (parsed.ec == std::errc() && parsed.ptr != p && std::isfinite(value) &&
          (parsed.ptr == end || *parsed.ptr == delimiter || is_line_end(*parsed.ptr))) {
        p = parsed.ptr;
      } else {  // anything else: the cell as RecordReader would cut and trim it
        while (p < end && is_space(*p)) ++p;
        const char* const begin = p;
        while (p < end && *p != delimiter && !is_line_end(*p)) ++p;
        const char* last = p;
        while (last > begin && is_space(last[-1])) --last;
        const std::string_view text(begin, static_cast<std::size_t>(last - begin));
        const CellIssue issue = parse_cell(text, value);
        if (issue != CellIssue::none) pending.push_back({c, issue, text});
        first_empty = c == 0 && text.empty();
      }
      if (c < columns) table.columns[c].values[slot] = value;
      if (p < end && *p == delimiter) {
        ++p;
        continue;
      }
      blank = c == 0 && first_empty;  // a line of spaces
      if (!blank && c + 1 != columns) return false;  // too few fields
      break;
    }
    const std::size_t record_line = line;
    if (p < end) {  // the line end
      p += *p == '\r' && p + 1 < end && p[1] == '\n' ? 2 : 1;
      ++line;
    }
    if (blank) continue;
    table.lines[slot] = record_line;
    for (const Pending& cell : pending) {
      chunk.problems[cell.column].push_back({chunk.rows, record_line, cell.issue, std::string(cell.text)});
    }
    ++chunk.rows;
  }
  return true;
}

void read_chunk(Chunk& chunk, std::string_view source, char delimiter,
                const std::vector<std::string>& names, bool fast_path, Table& table) {
  chunk.rows = 0;
  chunk.error = nullptr;
  chunk.ran_off_end = false;
  chunk.problems.assign(names.size(), {});
  if (fast_path && read_plain_chunk(chunk, delimiter, names.size(), table)) return;
  chunk.rows = 0;
  chunk.problems.assign(names.size(), {});
  RecordReader reader(chunk.text, source, delimiter, chunk.first_line);
  reader.set_column_names(&names);
  Record record;
  try {
    while (reader.next(record)) {
      if (record.size != names.size()) {
        throw DataError(std::string(source) + ":" + std::to_string(record.line) + ": expected " +
                        std::to_string(names.size()) + " fields (as in the header), found " +
                        std::to_string(record.size));
      }
      const std::size_t slot = chunk.offset + chunk.rows;
      table.lines[slot] = record.line;
      for (std::size_t i = 0; i < record.size; ++i) {
        double value = 0.0;
        const CellIssue issue = parse_cell(record.fields[i].text, value);
        table.columns[i].values[slot] = value;
        if (issue != CellIssue::none) {
          chunk.problems[i].push_back({chunk.rows, record.line, issue, record.fields[i].text});
        }
      }
      ++chunk.rows;
    }
  } catch (const DataError&) {
    chunk.error = std::current_exception();
    chunk.ran_off_end = reader.ran_off_end();
  }
}

// Moves each chunk's rows down to follow the previous chunk's, and its problems into the
// columns with file-wide row numbers.
void close_up(std::vector<Chunk>& chunks, Table& table) {
  const std::size_t columns = table.columns.size();
  common::parallel_for(columns + 1, [&](unsigned, std::size_t c) {
    std::size_t rows = 0;
    for (Chunk& chunk : chunks) {
      if (c == columns) {
        std::copy_n(table.lines.begin() + static_cast<std::ptrdiff_t>(chunk.offset), chunk.rows,
                    table.lines.begin() + static_cast<std::ptrdiff_t>(rows));
      } else {
        std::vector<double>& values = table.columns[c].values;
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(chunk.offset), chunk.rows,
                    values.begin() + static_cast<std::ptrdiff_t>(rows));
        for (CellProblem& problem : chunk.problems[c]) {
          problem.row += rows;
          table.columns[c].problems.push_back(std::move(problem));
        }
      }
      rows += chunk.rows;
    }
    const auto shrink = [rows](auto& vector) {
      const std::size_t slots = vector.size();
      vector.resize(rows);
      if (slots - rows > rows / 8) vector.shrink_to_fit();  // many blank or multi-line records
    };
    if (c == columns) {
      shrink(table.lines);
    } else {
      shrink(table.columns[c].values);
    }
  });
}

}  // namespace

void parse_rows(std::string_view text, std::size_t first_line, char delimiter,
                const std::vector<std::string>& names, Table& table, const RowReading& reading) {
  const std::vector<std::size_t> starts = chunk_starts(text, reading.chunk_bytes);
  std::vector<Chunk> chunks(starts.size() - 1);
  common::parallel_for_dynamic(chunks.size(), [&](unsigned, std::size_t k) {
    chunks[k].text = text.substr(starts[k], starts[k + 1] - starts[k]);
    chunks[k].slots = count_line_ends(chunks[k].text) + 1;
  });
  std::size_t line = first_line;
  std::size_t slots = 0;
  for (Chunk& chunk : chunks) {
    chunk.first_line = line;
    chunk.offset = slots;
    line += chunk.slots - 1;
    slots += chunk.slots;
  }
  const std::size_t columns = names.size();
  common::parallel_for(columns + 1, [&](unsigned, std::size_t c) {
    if (c == columns) {
      table.lines.resize(slots);
    } else {
      table.columns[c].values.resize(slots);
    }
  });

  const std::string_view source = table.source;
  common::parallel_for_dynamic(chunks.size(), [&](unsigned, std::size_t k) {
    read_chunk(chunks[k], source, delimiter, names, reading.fast_path, table);
  });
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    if (!chunks[k].error) continue;
    if (chunks[k].ran_off_end && k + 1 < chunks.size()) {
      // A cut fell inside a quoted field: read the whole text as one chunk.
      chunks.resize(1);
      chunks[0].text = text;
      chunks[0].first_line = first_line;
      chunks[0].offset = 0;
      read_chunk(chunks[0], source, delimiter, names, reading.fast_path, table);
      if (chunks[0].error) std::rethrow_exception(chunks[0].error);
      break;
    }
    std::rethrow_exception(chunks[k].error);
  }
  close_up(chunks, table);
}

}  // namespace robustfit::data::csv_detail
