#include "csv_records.hpp"

#include <array>

#include "robustfit/data/csv.hpp"

namespace robustfit::data::csv_detail {
namespace {

bool is_line_end(char c) { return c == '\n' || c == '\r'; }

// Length of the line ending at text[pos] ("\r\n" counts as one), 0 if there is none.
std::size_t line_end_length(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  if (text[pos] == '\n') return 1;
  if (text[pos] == '\r') return pos + 1 < text.size() && text[pos + 1] == '\n' ? 2 : 1;
  return 0;
}

}  // namespace

char detect_delimiter(std::string_view text) {
  constexpr std::array<char, 3> candidates = {',', '\t', ';'};  // order breaks ties
  std::array<std::size_t, 3> counts{};
  bool seen_content = false;
  bool in_quotes = false;
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (in_quotes) {
      if (c == '"') in_quotes = false;  // a doubled quote reopens on the next character
      continue;
    }
    if (c == '"') {
      in_quotes = true;
      seen_content = true;
    } else if (is_line_end(c)) {
      if (seen_content) break;  // end of the header line; blank lines before it are skipped
    } else if (c != ' ') {
      seen_content = true;
      for (std::size_t i = 0; i < candidates.size(); ++i) counts[i] += c == candidates[i];
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    if (counts[i] > counts[best]) best = i;
  }
  return counts[best] > 0 ? candidates[best] : ',';
}

RecordReader::RecordReader(std::string_view text, std::string_view source, char delimiter,
                           std::size_t first_line)
    : text_(text), source_(source), delimiter_(delimiter), line_(first_line) {}

std::string RecordReader::column_label(std::size_t index) const {
  if (names_ != nullptr && index < names_->size() && !(*names_)[index].empty()) {
    return (*names_)[index];
  }
  return std::to_string(index + 1);
}

bool RecordReader::next(Record& record) {
  while (pos_ < text_.size()) {
    record.line = line_;
    record.size = 0;
    for (;;) {
      if (record.size == record.fields.size()) record.fields.emplace_back();
      read_field(record.fields[record.size], record.size);
      ++record.size;
      if (pos_ < text_.size() && text_[pos_] == delimiter_) {
        ++pos_;
        continue;
      }
      const std::size_t end = line_end_length(text_, pos_);
      if (end > 0) {
        pos_ += end;
        ++line_;
      }
      break;
    }
    const Field& first = record.fields[0];
    const bool blank = record.size == 1 && !first.quoted && first.text.empty();
    if (!blank) return true;
  }
  return false;
}

void RecordReader::read_field(Field& field, std::size_t index) {
  field.text.clear();
  field.quoted = false;
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] == '"') {
    read_quoted(field, index);
    return;
  }
  const std::size_t begin = pos_;
  while (pos_ < text_.size() && text_[pos_] != delimiter_ && !is_line_end(text_[pos_])) ++pos_;
  std::size_t end = pos_;
  while (end > begin && is_space(text_[end - 1])) --end;
  field.text.assign(text_.substr(begin, end - begin));
}

void RecordReader::read_quoted(Field& field, std::size_t index) {
  field.quoted = true;
  const std::size_t open_line = line_;
  ++pos_;  // opening quote
  for (;;) {
    if (pos_ >= text_.size()) {
      ran_off_end_ = true;
      throw DataError(std::string(source_) + ":" + std::to_string(open_line) + ":" +
                      column_label(index) +
                      ": unterminated quoted field (the quote opened here is never closed)");
    }
    const char c = text_[pos_];
    if (c == '"') {
      if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
        field.text.push_back('"');
        pos_ += 2;
        continue;
      }
      ++pos_;
      break;
    }
    const std::size_t end = line_end_length(text_, pos_);
    if (end > 0) {
      field.text.append(text_.substr(pos_, end));
      pos_ += end;
      ++line_;
      continue;
    }
    field.text.push_back(c);
    ++pos_;
  }
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  if (pos_ < text_.size() && text_[pos_] != delimiter_ && !is_line_end(text_[pos_])) {
    throw DataError(std::string(source_) + ":" + std::to_string(line_) + ":" +
                    column_label(index) + ": unexpected text after the closing quote of '" +
                    field.text + "' (quotes inside a quoted field must be doubled)");
  }
}

}  // namespace robustfit::data::csv_detail
