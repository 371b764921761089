// CSV parts: the parts of a file, read one after another with the sums a distributed reader
// would compute, hold exactly the rows of read_csv in order, with the same file lines; quoted
// newlines never split a row; an error in one part names the line read_csv names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "robustfit/data/csv_parts.hpp"

namespace rd = robustfit::data;

namespace {

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("robustfit_csv_parts_" + name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Every part in turn, as the ranks of a communicator would read them; a part's error as text.
std::vector<rd::Table> read_parts(const std::filesystem::path& path, std::size_t parts, std::string* error) {
  std::vector<std::unique_ptr<rd::CsvPart>> readers;
  std::size_t quotes = 0;
  std::vector<std::size_t> quotes_before;
  for (std::size_t p = 0; p < parts; ++p) {
    readers.push_back(std::make_unique<rd::CsvPart>(path, p, parts));
    quotes_before.push_back(quotes);
    quotes += readers.back()->quotes();
  }
  std::size_t lines = 0;
  std::vector<rd::Table> tables;
  for (std::size_t p = 0; p < parts; ++p) {
    readers[p]->cut(quotes_before[p]);
    const std::size_t before = lines;
    lines += readers[p]->line_ends();
    try {
      tables.push_back(readers[p]->read(before));
    } catch (const rd::DataError& e) {
      if (error->empty()) *error = e.what();
      tables.emplace_back();
    }
  }
  return tables;
}

void expect_parts_make_the_file(const std::string& name, const std::string& text, std::size_t parts) {
  const auto path = write_file(name, text);
  const rd::Table whole = rd::read_csv(path);
  std::string error;
  const std::vector<rd::Table> tables = read_parts(path, parts, &error);
  ASSERT_EQ(error, "");
  std::vector<double> values;
  std::vector<std::size_t> lines;
  for (const rd::Table& t : tables) {
    ASSERT_EQ(t.columns.size(), whole.columns.size());
    lines.insert(lines.end(), t.lines.begin(), t.lines.end());
    values.insert(values.end(), t.columns[0].values.begin(), t.columns[0].values.end());
  }
  EXPECT_EQ(lines, whole.lines) << name << " in " << parts << " parts";
  EXPECT_EQ(values, whole.columns[0].values) << name << " in " << parts << " parts";
}

TEST(CsvParts, PartsHoldTheFileRowsInOrder) {
  std::string text = "x,y\n";
  for (int i = 0; i < 200; ++i) text += std::to_string(i) + "," + std::to_string(i * i) + (i % 7 == 0 ? "\n\n" : "\n");
  for (std::size_t parts : {1, 2, 3, 5, 64, 500}) expect_parts_make_the_file("plain.csv", text, parts);
}

TEST(CsvParts, QuotedNewlinesNeverSplitARow) {
  std::string text = "x,label\n";
  for (int i = 0; i < 60; ++i) text += std::to_string(i) + ",\"a\nlong \"\"quoted\"\"\nlabel\"\n";
  for (std::size_t parts : {2, 3, 7, 40}) expect_parts_make_the_file("quoted.csv", text, parts);
}

TEST(CsvParts, MorePartsThanRowsLeavesEmptyParts) {
  const auto path = write_file("two_rows.csv", "x\n1\n2\n");
  std::string error;
  const std::vector<rd::Table> tables = read_parts(path, 4, &error);
  ASSERT_EQ(error, "");
  std::size_t rows = 0, empty = 0;
  for (const rd::Table& t : tables) {
    rows += t.rows();
    empty += t.rows() == 0;
  }
  EXPECT_EQ(rows, 2u);
  EXPECT_EQ(empty, 2u);
}

TEST(CsvParts, AnErrorInALatePartNamesTheFileLine) {
  std::string text = "x,y\n";
  for (int i = 0; i < 100; ++i) text += i == 83 ? "1,2,3\n" : "1,2\n";
  const auto path = write_file("ragged.csv", text);
  std::string whole_error;
  try {
    rd::read_csv(path);
  } catch (const rd::DataError& e) {
    whole_error = e.what();
  }
  ASSERT_NE(whole_error.find(":85:"), std::string::npos) << whole_error;
  std::string error;
  read_parts(path, 3, &error);
  EXPECT_EQ(error, whole_error);
}

}  // namespace
