// CSV output: numbers in the shortest form that reads back to the same double.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

#include "robustfit/data/csv.hpp"

namespace robustfit::data {
namespace {

void append_name(std::string& out, const std::string& name) {
  const bool needs_quotes = name.empty() || name.find_first_of(",;\t\"\r\n") != std::string::npos ||
                            name.front() == ' ' || name.back() == ' ';
  if (!needs_quotes) {
    out += name;
    return;
  }
  out += '"';
  for (const char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// R and pandas read "NaN", "Inf" and "-Inf"; so does parse_csv.
void append_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "Inf" : "-Inf";
  } else {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
  }
}

}  // namespace

void write_csv(const std::filesystem::path& path, const std::vector<std::string>& header,
               const std::vector<std::vector<double>>& columns) {
  if (header.size() != columns.size()) {
    throw std::invalid_argument("write_csv: " + std::to_string(header.size()) + " names for " +
                                std::to_string(columns.size()) + " columns");
  }
  const std::size_t rows = columns.empty() ? 0 : columns.front().size();
  for (std::size_t j = 0; j < columns.size(); ++j) {
    if (columns[j].size() != rows) {
      throw std::invalid_argument("write_csv: column '" + header[j] + "' has " +
                                  std::to_string(columns[j].size()) + " values, expected " +
                                  std::to_string(rows));
    }
  }

  std::string text;
  for (std::size_t j = 0; j < header.size(); ++j) {
    if (j > 0) text += ',';
    append_name(text, header[j]);
  }
  text += '\n';
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < columns.size(); ++j) {
      if (j > 0) text += ',';
      append_number(text, columns[j][i]);
    }
    text += '\n';
  }

  const auto fail = [&](int error) {
    return DataError("cannot write '" + path.string() +
                     "': " + std::generic_category().message(error != 0 ? error : EIO));
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                        &std::fclose);
  if (!file) throw fail(errno);
  if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size()) throw fail(errno);
  // fclose flushes; a full disk shows up only here.
  if (std::fclose(file.release()) != 0) throw fail(errno);
}

}  // namespace robustfit::data
