#pragma once
// Private: splits CSV text into records of fields (RFC 4180 quoting), tracking file lines.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace robustfit::data::csv_detail {

struct Field {
  std::string text;     // unquoted cells are trimmed; quoted cells are kept as written
  bool quoted = false;
};

struct Record {
  std::size_t line = 0;       // 1-based line where the record starts
  std::vector<Field> fields;  // reused between records to avoid reallocation
  std::size_t size = 0;       // fields in use (fields.size() may be larger)
};

// Picks ',' ';' or '\t' from the first non-blank line: the one that occurs most often
// outside quotes (ties: ',' then '\t' then ';'); ',' when none occurs (a single column).
char detect_delimiter(std::string_view text);

class RecordReader {
 public:
  // `first_line`: the file line that text[0] is on (a chunk of a file starts past line 1).
  RecordReader(std::string_view text, std::string_view source, char delimiter,
               std::size_t first_line = 1);

  // Column labels for error messages (names once the header is known, else numbers).
  void set_column_names(const std::vector<std::string>* names) { names_ = names; }

  // Reads the next non-blank record; false at the end of the text. Throws DataError on an
  // unterminated quote or text after a closing quote.
  bool next(Record& record);

  // Where the next record starts, as an offset into the text.
  std::size_t position() const { return pos_; }
  // The file line at position().
  std::size_t line() const { return line_; }
  // Whether the last DataError was a quoted field still open at the end of the text: for a
  // chunk of a file, a sign that the chunk began inside a quoted field of the file.
  bool ran_off_end() const { return ran_off_end_; }

 private:
  void read_field(Field& field, std::size_t index);
  void read_quoted(Field& field, std::size_t index);
  bool is_space(char c) const { return c == ' ' || (c == '\t' && delimiter_ != '\t'); }
  std::string column_label(std::size_t index) const;

  std::string_view text_;
  std::string_view source_;
  char delimiter_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
  bool ran_off_end_ = false;
  const std::vector<std::string>* names_ = nullptr;
};

}  // namespace robustfit::data::csv_detail
