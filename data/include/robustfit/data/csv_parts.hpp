#pragma once
// One CSV file read by several readers (the ranks of robustfit/distributed), each taking one part
// of its data rows and never parsing the others. Parts are byte ranges cut just after line ends
// (the cuts of the parallel reader), moved past line ends inside quoted fields, and their rows
// keep their file lines, so errors name the same line as read_csv would.
//
// Reading a part needs two sums over the parts before it, which the caller computes across the
// readers (an exclusive prefix sum): quote characters, then line ends:
//   CsvPart part(path, rank, ranks);
//   part.cut(exclusive_sum(part.quotes()));
//   Table rows = part.read(exclusive_sum(part.line_ends()));
#include <cstddef>
#include <filesystem>
#include <memory>

#include "robustfit/data/csv.hpp"

namespace robustfit::data {

class CsvPart {
 public:
  // Maps the file (its pages are read only where they are used) and reads the header; throws
  // DataError as read_csv does for the file and its header.
  CsvPart(const std::filesystem::path& path, std::size_t part, std::size_t parts, const CsvOptions& options = {});
  ~CsvPart();
  CsvPart(const CsvPart&) = delete;
  CsvPart& operator=(const CsvPart&) = delete;

  // Quote characters in this part's byte range as first cut (before cut()).
  std::size_t quotes() const;
  // Moves both ends of the part past line ends that lie inside quoted fields: a cut is inside a
  // quoted field when an odd number of quote characters precede it ("" escapes count two).
  // quotes_before: the quotes() of all earlier parts together.
  void cut(std::size_t quotes_before);
  // Line ends in the part.
  std::size_t line_ends() const;
  // The part's rows (possibly none) with the header's columns; line_ends_before: the
  // line_ends() of all earlier parts together. Throws DataError naming the file line.
  Table read(std::size_t line_ends_before) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace robustfit::data
