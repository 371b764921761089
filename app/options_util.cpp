#include "options_util.hpp"

#include "cli_error.hpp"

namespace po = boost::program_options;

namespace robustfit::app {

po::variables_map parse_command_line(const std::vector<std::string>& args, const po::options_description& options,
                                     const std::string& command) {
  po::positional_options_description positional;
  positional.add("data", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(command + ": " + e.what() + " (see 'robust-fit " + command + " --help')");
  }
  return vm;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(',', begin);
    std::string item = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    if (item.empty()) throw UsageError("--" + option + ": empty item in list '" + text + "'");
    items.push_back(item);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return items;
}

OutputFormat parse_output_format(const std::string& text) {
  if (text == "table") return OutputFormat::table;
  if (text == "json") return OutputFormat::json;
  throw UsageError("--output: unknown format '" + text + "' (expected table or json)");
}

}  // namespace robustfit::app
