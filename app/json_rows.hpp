#pragma once
// A JSON report's per-row arrays written straight to text, byte for byte as nlohmann's dump(2)
// writes them. One nlohmann value per row and a dump of the whole took ~5 s at 10^7 rows; here
// the rows are formatted in parallel row chunks with nlohmann's own number formatting, and the
// small rest of the report is still built and dumped by nlohmann.
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

// The array of n elements whose texts append(text, i) appends to `text`, each exactly as dump()
// writes that value.
template <class Append>
JsonArrayText json_array_text(std::size_t n, Append&& append) {
  if (n == 0) return {"[]"};
  JsonArrayText pieces(common::row_chunk_count(n) + 2);
  pieces.front() = "[\n";
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::string& text = pieces[c + 1];
    for (std::size_t i = begin; i < end; ++i) {
      text += "    ";
      append(text, i);
      text += i + 1 < n ? ",\n" : "\n";
    }
  });
  pieces.back() = "  ]";
  return pieces;
}

// Numbers as dump() writes them: a double with nlohmann's to_chars (null when not finite), an
// unsigned integer in decimal.
void append_json_number(std::string& text, double value);
void append_json_number(std::string& text, std::size_t value);
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
