#pragma once
// A JSON report's per-row arrays written straight to text, byte for byte as nlohmann's dump(2)
// writes them. One nlohmann value per row and a dump of the whole took ~5 s at 10^7 rows; here
// the rows are formatted in parallel row chunks with nlohmann's own number formatting, and the
// small rest of the report is still built and dumped by nlohmann.
#include <algorithm>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "robustfit/common/parallel.hpp"

namespace robustfit::app {

// An array's text as dump(2) writes a member of the top-level object, "[\n    e0,\n    e1\n  ]"
// ("[]" when empty), in pieces (row chunks) to be written one after the other.
using JsonArrayText = std::vector<std::string>;

// The most bytes one element's text may take (nlohmann formats a number in a 64-byte buffer).
inline constexpr std::size_t kJsonElementBytes = 64;

// The array of n elements whose texts write(at, i) writes at `at` (at most kJsonElementBytes,
// exactly as dump() writes that value), returning the end. Each chunk's elements go through a
// small block on the stack: appending them one by one to the chunk's string cost a third more.
template <class Write>
JsonArrayText json_array_text(std::size_t n, Write&& write) {
  if (n == 0) return {"[]"};
  JsonArrayText pieces(common::row_chunk_count(n) + 2);
  pieces.front() = "[\n";
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::string& text = pieces[c + 1];
    char block[16384];
    char* at = block;
    for (std::size_t i = begin; i < end; ++i) {
      if (block + sizeof block - at < static_cast<std::ptrdiff_t>(kJsonElementBytes + 6)) {
        text.append(block, at);
        at = block;
      }
      at = std::copy_n("    ", 4, at);
      at = write(at, i);
      at = i + 1 < n ? std::copy_n(",\n", 2, at) : std::copy_n("\n", 1, at);
    }
    text.append(block, at);
  });
  pieces.back() = "  ]";
  return pieces;
}

// Numbers as dump() writes them: a double with nlohmann's to_chars (null when not finite), an
// unsigned integer in decimal. Each writes at most kJsonElementBytes at `at` and returns the end.
char* write_json_number(char* at, double value);
char* write_json_number(char* at, std::size_t value);
JsonArrayText json_array_text(std::span<const double> values);
JsonArrayText json_array_text(std::span<const std::size_t> values);

// A top-level member of a report whose value is written as `text`.
struct JsonArrayMember {
  std::string key;
  JsonArrayText text;
};

// Writes report.dump(2) and a newline, with each of `arrays` (a top-level member of `report`
// whose value there is null) written as its text. Throws std::logic_error when `report` has no
// such null member.
void write_json(std::ostream& out, const nlohmann::ordered_json& report, const std::vector<JsonArrayMember>& arrays);

}  // namespace robustfit::app
