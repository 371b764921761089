#include "json_rows.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace robustfit::app {

char* write_json_number(char* at, double value) {
  // What nlohmann's serializer::dump_float does for a double: null when not finite, else its
  // Grisu2 shortest round-trip form with ".0" for integral values (in 64 bytes, as there).
  if (!std::isfinite(value)) return std::copy_n("null", 4, at);
  return ::nlohmann::detail::to_chars(at, at + kJsonElementBytes, value);
}

char* write_json_number(char* at, std::size_t value) {
  // nlohmann writes unsigned integers in plain decimal, as std::to_chars does.
  return std::to_chars(at, at + kJsonElementBytes, value).ptr;
}

JsonArrayText json_array_text(std::span<const double> values) {
  return json_array_text(values.size(), [&](char* at, std::size_t i) { return write_json_number(at, values[i]); });
}

JsonArrayText json_array_text(std::span<const std::size_t> values) {
  return json_array_text(values.size(), [&](char* at, std::size_t i) { return write_json_number(at, values[i]); });
}

void write_json(std::ostream& out, const nlohmann::ordered_json& report, const std::vector<JsonArrayMember>& arrays) {
  const std::string dumped = report.dump(2);
  // A top-level member's line starts with a newline and two spaces, then its key: newlines occur
  // in dump(2) only between values (strings escape them) and deeper members have more indent, so
  // the match is that member, which keys make unique. `null` is the value written over.
  std::vector<std::pair<std::size_t, const JsonArrayText*>> places;
  for (const auto& array : arrays) {
    const std::string line = "\n  " + nlohmann::ordered_json(array.key).dump() + ": null";
    const std::size_t at = dumped.find(line);
    if (at == std::string::npos) throw std::logic_error("write_json: no top-level null member '" + array.key + "'");
    places.emplace_back(at + line.size() - 4, &array.text);
  }
  std::sort(places.begin(), places.end());
  std::size_t from = 0;
  for (const auto& [at, text] : places) {
    out.write(dumped.data() + from, static_cast<std::streamsize>(at - from));
    for (const auto& piece : *text) out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
    from = at + 4;
  }
  out.write(dumped.data() + from, static_cast<std::streamsize>(dumped.size() - from));
  out << '\n';
}

}  // namespace robustfit::app
