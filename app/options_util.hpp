#pragma once
// Small helpers shared by the subcommands' option parsing.
#include <boost/program_options.hpp>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_error.hpp"

namespace robustfit::app {

// Parses `args` against `options` (+ one positional DATA argument named "data"); turns every
// Boost.Program_options error into a UsageError with the subcommand's name.
boost::program_options::variables_map parse_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& options,
    const std::string& command);

// A named choice (method, metric, backend, ...) through the library's parse function: its
// std::invalid_argument becomes a UsageError "--option: <the library's message>".
template <class T, class Parse>
T parse_or_usage(const std::string& option, const std::string& value, Parse parse) {
  try {
    return parse(value);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--" + option + ": " + e.what());
  }
}

// "a,b, c" -> {"a", "b", "c"}; empty items are a UsageError naming `option`.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

// Numeric option values. The whole text must be the number (no sign, no spaces, no suffix):
// Boost's own conversion would turn "-3" into a huge unsigned value. Every error is a
// UsageError that repeats the text exactly as typed and says what was expected, e.g.
// "--h: '-2' is not an integer >= 1". `option` is the name without dashes.
std::uint64_t parse_integer(const std::string& option, const std::string& text, std::uint64_t min = 0,
                            std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
// A finite decimal number in [min, max]: "--alpha: '0.3' is not a number in [0.5, 1]".
double parse_number(const std::string& option, const std::string& text, double min, double max);
// A count as generate and bench take it: digits, or a scientific form that is a whole number
// ("1e6"), at least `min`: "--n: '2.5' is not a non-negative whole number".
std::uint64_t parse_count(const std::string& option, const std::string& text, std::uint64_t min = 0);
// Any finite number: "--sigma: 'abc' is not a finite number".
double parse_finite(const std::string& option, const std::string& text);
// Comma-separated lists of the same (split_list, then each item as above).
std::vector<std::uint64_t> parse_integer_list(const std::string& option, const std::string& text,
                                              std::uint64_t min = 0);
std::vector<double> parse_number_list(const std::string& option, const std::string& text, double min, double max);
std::vector<double> parse_finite_list(const std::string& option, const std::string& text);

// Output formats of every subcommand.
enum class OutputFormat { table, json };
OutputFormat parse_output_format(const std::string& text);

}  // namespace robustfit::app
