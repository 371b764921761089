// CSV reading and writing: delimiters, quoting, line endings, cell classification, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>

#include "robustfit/data/csv.hpp"

namespace rd = robustfit::data;
namespace fs = std::filesystem;

namespace {

// A file under the temp directory, removed when the test ends.
class TempFile {
 public:
  explicit TempFile(const std::string& name, const std::string& content = {}, bool create = true)
      : path_(fs::temp_directory_path() /
              ("robustfit_csv_" + std::to_string(::getpid()) + "_" + name)) {
    if (create) {
      std::ofstream out(path_, std::ios::binary);
      out << content;
    }
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The DataError message of parsing `text` as file "in.csv"; fails the test if none is thrown.
std::string parse_error(const std::string& text, rd::CsvOptions options = {}) {
  try {
    rd::parse_csv(text, "in.csv", options);
  } catch (const rd::DataError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no DataError for:\n" << text;
  return {};
}

std::vector<std::string> names(const rd::Table& table) {
  std::vector<std::string> result;
  for (const auto& column : table.columns) result.push_back(column.name);
  return result;
}

// Substring check with a readable failure (gmock is not linked into the suites).
::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

using Names = std::vector<std::string>;
using Values = std::vector<double>;
using Lines = std::vector<std::size_t>;

}  // namespace

TEST(CsvReader, ReadsHeaderAndCommaSeparatedRows) {
  const rd::Table table = rd::parse_csv("x,y\n1,2\n3.5,-4\n", "in.csv");
  EXPECT_EQ(table.source, "in.csv");
  EXPECT_EQ(names(table), (Names{"x", "y"}));
  EXPECT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.lines, (Lines{2, 3}));
  EXPECT_EQ(table.columns[0].values, (Values{1.0, 3.5}));
  EXPECT_EQ(table.columns[1].values, (Values{2.0, -4.0}));
  EXPECT_TRUE(table.columns[0].problems.empty());
  EXPECT_TRUE(table.columns[1].problems.empty());
}

TEST(CsvReader, DetectsSemicolonAndTab) {
  const rd::Table semicolon = rd::parse_csv("a;b;c\n1;2;3\n", "in.csv");
  EXPECT_EQ(names(semicolon), (Names{"a", "b", "c"}));
  EXPECT_EQ(semicolon.columns[2].values, (Values{3.0}));

  const rd::Table tab = rd::parse_csv("a\tb\n1\t2\n5\t6\n", "in.csv");
  EXPECT_EQ(names(tab), (Names{"a", "b"}));
  EXPECT_EQ(tab.columns[1].values, (Values{2.0, 6.0}));
}

TEST(CsvReader, DetectionCountsOnlyDelimitersOutsideQuotes) {
  // Two commas inside quotes, one semicolon outside: the delimiter is ';'.
  const rd::Table table = rd::parse_csv("\"a,b,c\";d\n1;2\n", "in.csv");
  EXPECT_EQ(names(table), (Names{"a,b,c", "d"}));
  EXPECT_EQ(table.columns[1].values, (Values{2.0}));
}

TEST(CsvReader, GivenDelimiterOverridesDetection) {
  rd::CsvOptions options;
  options.delimiter = ';';
  const rd::Table table = rd::parse_csv("a,b;c\n1;2\n", "in.csv", options);
  EXPECT_EQ(names(table), (Names{"a,b", "c"}));
  EXPECT_EQ(table.columns[0].values, (Values{1.0}));
  EXPECT_EQ(table.columns[1].values, (Values{2.0}));
  // Detection alone sees a tie and prefers ',', so the data row is ragged.
  EXPECT_TRUE(contains(parse_error("a,b;c\n1;2\n"), "in.csv:2: expected 2 fields"));
}

TEST(CsvReader, SingleColumnFile) {
  const rd::Table table = rd::parse_csv("value\n1\n2\n3", "in.csv");
  EXPECT_EQ(names(table), (Names{"value"}));
  EXPECT_EQ(table.columns[0].values, (Values{1.0, 2.0, 3.0}));
}

TEST(CsvReader, QuotedFieldsWithDoubledQuotesDelimitersAndNewlines) {
  const std::string text =
      "\"name, full\",\"say \"\"hi\"\"\",x\n"
      "\"a,b\",\"two\nlines\",1\n"
      "plain,\"\",2\n";
  const rd::Table table = rd::parse_csv(text, "in.csv");
  EXPECT_EQ(names(table), (Names{"name, full", "say \"hi\"", "x"}));
  EXPECT_EQ(table.columns[2].values, (Values{1.0, 2.0}));
  // The record with a newline inside quotes starts on line 2; the next record on line 4.
  EXPECT_EQ(table.lines, (Lines{2, 4}));
  ASSERT_EQ(table.columns[0].problems.size(), 2u);
  EXPECT_EQ(table.columns[0].problems[0].text, "a,b");
  EXPECT_EQ(table.columns[1].problems[0].text, "two\nlines");
  EXPECT_EQ(table.columns[1].problems[1].issue, rd::CellIssue::missing);  // "" is empty
}

TEST(CsvReader, QuotedNumbersAreNumbers) {
  const rd::Table table = rd::parse_csv("x,y\n\"1.5\",\" 2 \"\n", "in.csv");
  EXPECT_EQ(table.columns[0].values, (Values{1.5}));
  EXPECT_EQ(table.columns[1].values, (Values{2.0}));
}

TEST(CsvReader, TrimsSpacesAroundUnquotedCellsAndNames) {
  const rd::Table table = rd::parse_csv("  x , y  ,\" z \"\n  1 ,  2,3  \n", "in.csv");
  EXPECT_EQ(names(table), (Names{"x", "y", " z "}));
  EXPECT_EQ(table.columns[0].values, (Values{1.0}));
  EXPECT_EQ(table.columns[1].values, (Values{2.0}));
  EXPECT_EQ(table.columns[2].values, (Values{3.0}));
}

TEST(CsvReader, SpacesAroundTabSeparatedCellsAreTrimmedButTabsDelimit) {
  const rd::Table table = rd::parse_csv("x\ty\n 1 \t\n", "in.csv");
  EXPECT_EQ(table.columns[0].values, (Values{1.0}));
  ASSERT_EQ(table.columns[1].problems.size(), 1u);
  EXPECT_EQ(table.columns[1].problems[0].issue, rd::CellIssue::missing);
}

TEST(CsvReader, AcceptsCrlfLineEndings) {
  const rd::Table table = rd::parse_csv("x,y\r\n1,2\r\n\r\n3,4\r\n", "in.csv");
  EXPECT_EQ(names(table), (Names{"x", "y"}));
  EXPECT_EQ(table.columns[1].values, (Values{2.0, 4.0}));
  EXPECT_EQ(table.lines, (Lines{2, 4}));
}

TEST(CsvReader, AcceptsOldMacCrLineEndings) {
  const rd::Table table = rd::parse_csv("x,y\r1,2\r3,4", "in.csv");
  EXPECT_EQ(table.columns[1].values, (Values{2.0, 4.0}));
  EXPECT_EQ(table.lines, (Lines{2, 3}));
}

TEST(CsvReader, StripsUtf8ByteOrderMark) {
  const rd::Table table = rd::parse_csv("\xEF\xBB\xBFx;y\n1;2\n", "in.csv");
  EXPECT_EQ(names(table), (Names{"x", "y"}));
  EXPECT_EQ(table.columns[0].values, (Values{1.0}));
}

TEST(CsvReader, AcceptsMissingTrailingNewline) {
  const rd::Table table = rd::parse_csv("x,y\n1,2\n3,4", "in.csv");
  EXPECT_EQ(table.rows(), 2u);
  EXPECT_EQ(table.columns[1].values, (Values{2.0, 4.0}));
}

TEST(CsvReader, SkipsBlankLinesButCountsThem) {
  const rd::Table table = rd::parse_csv("\n\nx,y\n\n1,2\n   \n3,4\n\n", "in.csv");
  EXPECT_EQ(names(table), (Names{"x", "y"}));
  EXPECT_EQ(table.lines, (Lines{5, 7}));
  EXPECT_EQ(table.columns[0].values, (Values{1.0, 3.0}));
}

TEST(CsvReader, ParsesNumberSpellingsWithFastFloat) {
  const rd::Table table =
      rd::parse_csv("v\n1.5e3\n-2\n.5\n+3\n5.\n1E-2\n-0\n0.1\n1e-310\n", "in.csv");
  const Values& v = table.columns[0].values;
  ASSERT_EQ(v.size(), 9u);
  EXPECT_EQ(v[0], 1500.0);
  EXPECT_EQ(v[1], -2.0);
  EXPECT_EQ(v[2], 0.5);
  EXPECT_EQ(v[3], 3.0);
  EXPECT_EQ(v[4], 5.0);
  EXPECT_EQ(v[5], 0.01);
  EXPECT_EQ(v[6], 0.0);
  EXPECT_TRUE(std::signbit(v[6]));
  EXPECT_EQ(v[7], 0.1);  // correctly rounded
  EXPECT_EQ(v[8], 1e-310);  // subnormal
  EXPECT_TRUE(table.columns[0].problems.empty());
}

TEST(CsvReader, ClassifiesProblemCells) {
  struct Case {
    const char* text;
    rd::CellIssue issue;
  };
  const Case cases[] = {
      {"NA", rd::CellIssue::missing},          {"NaN", rd::CellIssue::not_finite},
      {"nan", rd::CellIssue::not_finite},      {"Inf", rd::CellIssue::not_finite},
      {"-Inf", rd::CellIssue::not_finite},     {"inf", rd::CellIssue::not_finite},
      {"Infinity", rd::CellIssue::not_finite}, {"+inf", rd::CellIssue::not_finite},
      {"1e400", rd::CellIssue::not_finite},    {"abc", rd::CellIssue::not_numeric},
      {"1,5", rd::CellIssue::not_numeric},     {"0x10", rd::CellIssue::not_numeric},
      {"1e", rd::CellIssue::not_numeric},      {"+-3", rd::CellIssue::not_numeric},
      {"++3", rd::CellIssue::not_numeric},     {"+", rd::CellIssue::not_numeric},
      {"-", rd::CellIssue::not_numeric},       {"1.2.3", rd::CellIssue::not_numeric},
      {"12abc", rd::CellIssue::not_numeric},   {"na", rd::CellIssue::not_numeric},
      {"Infinit", rd::CellIssue::not_numeric},
  };
  std::string text = "label;v\n";
  for (const Case& c : cases) text += std::string("\"") + c.text + "\";7\n";
  text += ";8\n";  // empty cell
  const rd::Table table = rd::parse_csv(text, "in.csv");
  const rd::Column& label = table.columns[0];
  const std::size_t count = std::size(cases);
  ASSERT_EQ(label.problems.size(), count + 1);
  for (std::size_t i = 0; i < count; ++i) {
    SCOPED_TRACE(cases[i].text);
    EXPECT_EQ(label.problems[i].issue, cases[i].issue);
    EXPECT_EQ(label.problems[i].text, cases[i].text);
    EXPECT_EQ(label.problems[i].row, i);
    EXPECT_EQ(label.problems[i].line, i + 2);
    EXPECT_TRUE(std::isnan(label.values[i]));
  }
  EXPECT_EQ(label.problems[count].issue, rd::CellIssue::missing);
  EXPECT_EQ(label.problems[count].text, "");
  EXPECT_EQ(table.columns[1].values.size(), count + 1);
  EXPECT_TRUE(table.columns[1].problems.empty());
}

TEST(CsvReader, ColumnIndexFindsNamesAndListsThemWhenUnknown) {
  const rd::Table table = rd::parse_csv("x,y,label\n1,2,a\n", "in.csv");
  EXPECT_EQ(table.column_index("x"), 0u);
  EXPECT_EQ(table.column_index("label"), 2u);
  try {
    (void)table.column_index("z");
    FAIL() << "no DataError";
  } catch (const rd::DataError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(contains(message, "in.csv"));
    EXPECT_TRUE(contains(message, "'z'"));
    EXPECT_TRUE(contains(message, "'x', 'y', 'label'"));
  }
}

TEST(CsvReaderErrors, EmptyFile) {
  EXPECT_TRUE(contains(parse_error(""), "in.csv: the file is empty"));
  EXPECT_TRUE(contains(parse_error("\n\n  \n"), "in.csv: the file is empty"));
  EXPECT_TRUE(contains(parse_error("\xEF\xBB\xBF"), "in.csv: the file is empty"));
}

TEST(CsvReaderErrors, HeaderOnly) {
  EXPECT_TRUE(contains(parse_error("x,y\n"), "in.csv:1: no data rows"));
  EXPECT_TRUE(contains(parse_error("\nx,y\n\n"), "in.csv:2: no data rows"));
}

TEST(CsvReaderErrors, EmptyColumnName) {
  EXPECT_TRUE(contains(parse_error("x,,z\n1,2,3\n"), "in.csv:1:2: column 2 has an empty name"));
  EXPECT_TRUE(contains(parse_error("x,y,\n1,2,3\n"), "in.csv:1:3: column 3 has an empty name"));
  EXPECT_TRUE(contains(parse_error("\"\";y\n1;2\n"), "in.csv:1:1: column 1 has an empty name"));
}

TEST(CsvReaderErrors, DuplicateColumnName) {
  EXPECT_TRUE(contains(parse_error("\nx,y,x\n1,2,3\n"), "in.csv:2:x: duplicate column name 'x' (columns 1 and 3)"));
}

TEST(CsvReaderErrors, RaggedRowsNameLineAndCounts) {
  EXPECT_TRUE(contains(parse_error("x,y,z\n1,2,3\n\n4,5\n"), "in.csv:4: expected 3 fields (as in the header), found 2"));
  EXPECT_TRUE(contains(parse_error("x,y\n1,2\n3,4,5\n"), "in.csv:3: expected 2 fields (as in the header), found 3"));
  // A trailing delimiter is one more (empty) field.
  EXPECT_TRUE(contains(parse_error("x;y\n1;2;\n"), "in.csv:2: expected 2 fields (as in the header), found 3"));
}

TEST(CsvReaderErrors, UnterminatedQuoteNamesTheLineWhereItOpened) {
  EXPECT_TRUE(contains(parse_error("x,label\n1,a\n2,\"open\n3,b\n4,c\n"), "in.csv:3:label: unterminated quoted field"));
  EXPECT_TRUE(contains(parse_error("x,\"lab\n"), "in.csv:1:2: unterminated quoted field"));
}

TEST(CsvReaderErrors, TextAfterClosingQuote) {
  EXPECT_TRUE(contains(parse_error("x,label\n1,\"a\"b\n"), "in.csv:2:label: unexpected text after the closing quote"));
}

TEST(CsvReaderErrors, Utf16File) {
  EXPECT_TRUE(contains(parse_error(std::string("\xFF\xFEx\0,\0", 6)), "in.csv: the file is UTF-16"));
}

TEST(CsvFile, ReadsAFileAndNamesItInMessages) {
  const TempFile file("read.csv", "x,y\r\n1,2\r\n3,oops\r\n");
  const rd::Table table = rd::read_csv(file.path());
  EXPECT_EQ(table.source, file.path().string());
  EXPECT_EQ(table.columns[0].values, (Values{1.0, 3.0}));
  ASSERT_EQ(table.columns[1].problems.size(), 1u);
  EXPECT_EQ(table.columns[1].problems[0].line, 3u);

  const TempFile ragged("ragged.csv", "x,y\n1\n");
  try {
    rd::read_csv(ragged.path());
    FAIL() << "no DataError";
  } catch (const rd::DataError& error) {
    EXPECT_TRUE(contains(error.what(), ragged.path().string() + ":2: expected 2 fields"));
  }
}

TEST(CsvFile, MissingFile) {
  const TempFile missing("does_not_exist.csv", {}, false);
  try {
    rd::read_csv(missing.path());
    FAIL() << "no DataError";
  } catch (const rd::DataError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot open '" + missing.path().string() + "': No such file or directory");
  }
}

TEST(CsvFile, DirectoryIsNotAFile) {
  try {
    rd::read_csv(fs::temp_directory_path());
    FAIL() << "no DataError";
  } catch (const rd::DataError& error) {
    EXPECT_TRUE(contains(error.what(), "cannot open '" + fs::temp_directory_path().string()));
    EXPECT_TRUE(contains(error.what(), "Is a directory"));
  }
}

TEST(CsvFile, EmptyFileNamesThePath) {
  const TempFile empty("empty.csv", "");
  try {
    rd::read_csv(empty.path());
    FAIL() << "no DataError";
  } catch (const rd::DataError& error) {
    EXPECT_TRUE(contains(error.what(), empty.path().string() + ": the file is empty"));
  }
}

TEST(CsvWriter, RoundTripsDoublesExactly) {
  const TempFile file("roundtrip.csv");
  const Values a = {0.1, 1.0 / 3.0, -2.5e-300, 1.7976931348623157e308, -0.0, 123456789.0};
  const Values b = {std::nextafter(1.0, 2.0), 4.9e-324, 2.0, -1e22, 3.0, 0.2 + 0.1};
  rd::write_csv(file.path(), {"a", "b"}, {a, b});
  const rd::Table table = rd::read_csv(file.path());
  EXPECT_EQ(names(table), (Names{"a", "b"}));
  EXPECT_EQ(table.columns[0].values, a);
  EXPECT_EQ(table.columns[1].values, b);
  EXPECT_TRUE(std::signbit(table.columns[0].values[4]));
}

TEST(CsvWriter, QuotesNamesThatNeedIt) {
  const TempFile file("quoted.csv");
  const Names header = {"plain", "with,comma", "say \"hi\"", " padded", "semi;colon"};
  rd::write_csv(file.path(), header, {{1}, {2}, {3}, {4}, {5}});
  std::ifstream in(file.path());
  std::string first_line;
  std::getline(in, first_line);
  EXPECT_EQ(first_line, "plain,\"with,comma\",\"say \"\"hi\"\"\",\" padded\",\"semi;colon\"");
  const rd::Table table = rd::read_csv(file.path());
  EXPECT_EQ(names(table), header);
  EXPECT_EQ(table.columns[4].values, (Values{5.0}));
}

TEST(CsvWriter, WritesNonFiniteValuesThatReadBackAsNonFinite) {
  const TempFile file("nonfinite.csv");
  const double inf = std::numeric_limits<double>::infinity();
  rd::write_csv(file.path(), {"v"}, {{std::nan(""), inf, -inf, 1.0}});
  const rd::Table table = rd::read_csv(file.path());
  ASSERT_EQ(table.columns[0].problems.size(), 3u);
  EXPECT_EQ(table.columns[0].problems[0].text, "NaN");
  EXPECT_EQ(table.columns[0].problems[1].text, "Inf");
  EXPECT_EQ(table.columns[0].problems[2].text, "-Inf");
  for (const auto& problem : table.columns[0].problems) {
    EXPECT_EQ(problem.issue, rd::CellIssue::not_finite);
  }
  EXPECT_EQ(table.columns[0].values[3], 1.0);
}

TEST(CsvWriter, RejectsMismatchedShapesAndUnwritablePaths) {
  const TempFile file("bad.csv");
  EXPECT_THROW(rd::write_csv(file.path(), {"a"}, {{1.0}, {2.0}}), std::invalid_argument);
  EXPECT_THROW(rd::write_csv(file.path(), {"a", "b"}, {{1.0}, {2.0, 3.0}}),
               std::invalid_argument);
  const fs::path unwritable = fs::temp_directory_path() / "robustfit_no_such_dir" / "out.csv";
  try {
    rd::write_csv(unwritable, {"a"}, {{1.0}});
    FAIL() << "no DataError";
  } catch (const rd::DataError& error) {
    EXPECT_TRUE(contains(error.what(), "cannot write '" + unwritable.string() + "'"));
    EXPECT_TRUE(contains(error.what(), "No such file or directory"));
  }
}
