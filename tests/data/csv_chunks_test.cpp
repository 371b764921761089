// Parallel CSV rows: chunks of a few bytes (many cuts, some inside quoted fields) and the fast
// path for chunks without quotes must give the table, or the error, of one RecordReader over
// the whole text (the serial reader, which the CSV reader tests pin down).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "data/src/csv_rows.hpp"
#include "robustfit/data/csv.hpp"

namespace rd = robustfit::data;
namespace cd = robustfit::data::csv_detail;

namespace {

struct Outcome {
  std::string error;  // empty when the text was read
  rd::Table table;
};

Outcome read_rows(const std::string& text, std::size_t columns, char delimiter, const cd::RowReading& reading) {
  Outcome outcome;
  outcome.table.source = "in.csv";
  std::vector<std::string> names;
  for (std::size_t c = 0; c < columns; ++c) {
    names.push_back(std::string("c").append(std::to_string(c)));
    outcome.table.columns.push_back({names.back(), {}, {}});
  }
  try {
    cd::parse_rows(text, 2, delimiter, names, outcome.table, reading);
  } catch (const rd::DataError& error) {
    outcome.error = error.what();
  }
  return outcome;
}

void expect_same(const Outcome& got, const Outcome& want) {
  ASSERT_EQ(got.error, want.error);
  if (!want.error.empty()) return;
  ASSERT_EQ(got.table.lines, want.table.lines);
  ASSERT_EQ(got.table.columns.size(), want.table.columns.size());
  for (std::size_t c = 0; c < want.table.columns.size(); ++c) {
    const rd::Column& g = got.table.columns[c];
    const rd::Column& w = want.table.columns[c];
    ASSERT_EQ(g.values.size(), w.values.size());
    // Bitwise: NaN for NaN, -0 for -0.
    EXPECT_EQ(std::memcmp(g.values.data(), w.values.data(), w.values.size() * sizeof(double)), 0) << "column " << c;
    ASSERT_EQ(g.problems.size(), w.problems.size()) << "column " << c;
    for (std::size_t k = 0; k < w.problems.size(); ++k) {
      EXPECT_EQ(g.problems[k].row, w.problems[k].row);
      EXPECT_EQ(g.problems[k].line, w.problems[k].line);
      EXPECT_EQ(g.problems[k].issue, w.problems[k].issue);
      EXPECT_EQ(g.problems[k].text, w.problems[k].text);
    }
  }
}

// A random cell: mostly numbers, sometimes the spellings and quirks the reader must classify.
std::string random_cell(std::mt19937_64& rng, bool quotes) {
  static const char* const odd[] = {"NA", "", " 1.5 ", "abc", "+3", "inf", "-Inf", "NaN", "1e400", "1e",
                                    "0x10", "1e-310", "-0", ".5", "5.", "  ", "12abc", "+", "\t2\t"};
  static const char* const quoted[] = {"\"a,b\"", "\"two\nlines\"", "\"say \"\"hi\"\"\"", "\"\"", " \"1.5\" ",
                                       "\"x\r\ny\"", "\"3\""};
  const auto pick = rng() % 100;
  if (pick < 75) {
    std::uniform_real_distribution<double> value(-1e3, 1e3);
    return std::to_string(value(rng));
  }
  if (pick < 93 || !quotes) return odd[rng() % std::size(odd)];
  return quoted[rng() % std::size(quoted)];
}

std::string line_end(std::mt19937_64& rng) {
  const auto pick = rng() % 20;
  return pick == 0 ? "\r\n" : pick == 1 ? "\r" : "\n";
}

// Rows of `columns` cells; `faults` adds blank lines, lines of spaces and, rarely, ragged rows
// or quoting errors.
std::string random_text(std::mt19937_64& rng, std::size_t rows, std::size_t columns, char delimiter,
                        bool quotes, bool faults) {
  std::string text;
  for (std::size_t r = 0; r < rows; ++r) {
    if (faults && rng() % 30 == 0) text.append(rng() % 2 ? "" : "   ").append(line_end(rng));
    std::size_t count = columns;
    if (faults && rng() % 500 == 0) count = columns + (rng() % 2 ? 1 : std::size_t(0) - 1);
    for (std::size_t c = 0; c < count; ++c) {
      if (c > 0) text += delimiter;
      text += random_cell(rng, quotes);
    }
    if (faults && quotes && rng() % 1500 == 0) text += rng() % 2 ? "\"open" : "\"a\"b";
    text += line_end(rng);
  }
  if (rng() % 2) {  // no line end at the end
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  }
  return text;
}

const cd::RowReading kSerial{SIZE_MAX, false};

}  // namespace

TEST(CsvChunks, PlainNumbersInManyChunksMatchTheSerialReader) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    const std::string text = random_text(rng, 400, 4, ',', false, false);
    const Outcome want = read_rows(text, 4, ',', kSerial);
    ASSERT_TRUE(want.error.empty()) << want.error;
    for (const std::size_t bytes : {std::size_t{7}, std::size_t{64}, std::size_t{1000}, SIZE_MAX}) {
      SCOPED_TRACE(bytes);
      expect_same(read_rows(text, 4, ',', {bytes, true}), want);
    }
  }
}

TEST(CsvChunks, QuotesBlankLinesAndErrorsMatchTheSerialReader) {
  std::mt19937_64 rng(2);
  int errors = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const char delimiter = trial % 3 == 0 ? ';' : trial % 3 == 1 ? ',' : '\t';
    const std::size_t columns = 1 + trial % 4;
    const bool quotes = trial % 2 == 0;
    const std::string text = random_text(rng, 200, columns, delimiter, quotes, true);
    const Outcome want = read_rows(text, columns, delimiter, kSerial);
    errors += !want.error.empty();
    for (const std::size_t bytes : {std::size_t{5}, std::size_t{50}, std::size_t{500}}) {
      for (const bool fast : {true, false}) {
        SCOPED_TRACE(::testing::Message() << "trial " << trial << " bytes " << bytes << " fast " << fast);
        expect_same(read_rows(text, columns, delimiter, {bytes, fast}), want);
      }
    }
  }
  // Both outcomes occur: files that read and files with an error to find first.
  EXPECT_GT(errors, 10);
  EXPECT_LT(errors, 190);
}

TEST(CsvChunks, ErrorPositionsInALaterChunk) {
  std::string text;
  for (int r = 0; r < 1000; ++r) text += std::to_string(r) + ",1\n";
  const std::string ragged = text + "5\n" + text + "1,2,3\n";
  const std::string message = "in.csv:1002: expected 2 fields (as in the header), found 1";
  EXPECT_EQ(read_rows(ragged, 2, ',', {64, true}).error, message);
  EXPECT_EQ(read_rows(ragged, 2, ',', kSerial).error, message);
  // A quote that opens in one chunk and never closes: reported where it opened.
  const std::string open = text + "1,\"a\n" + text;
  EXPECT_EQ(read_rows(open, 2, ',', {64, true}).error,
            "in.csv:1002:c1: unterminated quoted field (the quote opened here is never closed)");
}
