#pragma once
// Small helpers shared by the subcommands' option parsing.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace robustfit::app {

// Parses `args` against `options` (+ one positional DATA argument named "data"); turns every
// Boost.Program_options error into a UsageError with the subcommand's name.
boost::program_options::variables_map parse_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& options,
    const std::string& command);

// "a,b, c" -> {"a", "b", "c"}; empty items are a UsageError naming `option`.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

// Output formats of every subcommand.
enum class OutputFormat { table, json };
OutputFormat parse_output_format(const std::string& text);

}  // namespace robustfit::app
