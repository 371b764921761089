#include "options_util.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>

#include "cli_error.hpp"

namespace po = boost::program_options;

namespace robustfit::app {

namespace {

// Boost fills "%option%", "%original_token%", ... into its messages by replacing each
// placeholder until none is left, so typed text that contains its own placeholder
// ("-%original_token%-") never ends: a hang the fit_arguments fuzz target found. The typed
// text goes in with '%' swapped for '\x01' and comes back out of the finished message.
struct SubstitutionAccess : po::error_with_option_name {
  static std::map<std::string, std::string>& of(po::error_with_option_name& e) {
    return e.*(&SubstitutionAccess::m_substitutions);
  }
};

std::string message_of(po::error_with_option_name& e) {
  for (auto& [name, value] : SubstitutionAccess::of(e)) std::replace(value.begin(), value.end(), '%', '\x01');
  std::string message = e.what();
  std::replace(message.begin(), message.end(), '\x01', '%');
  return message;
}

}  // namespace

po::variables_map parse_command_line(const std::vector<std::string>& args, const po::options_description& options,
                                     const std::string& command) {
  po::positional_options_description positional;
  positional.add("data", 1);
  po::variables_map vm;
  const auto usage = [&](const std::string& what) {
    return UsageError(command + ": " + what + " (see 'robust-fit " + command + " --help')");
  };
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (po::error_with_option_name& e) {
    throw usage(message_of(e));
  } catch (const po::error& e) {
    throw usage(e.what());
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

namespace {

std::string shortest(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

[[noreturn]] void reject(const std::string& option, const std::string& text, const std::string& expected) {
  throw UsageError("--" + option + ": '" + text + "' is not " + expected);
}

// The whole text as a double (from_chars: no leading '+' or spaces); false when it is not one.
bool whole_text_as_double(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end;
}

}  // namespace

std::uint64_t parse_integer(const std::string& option, const std::string& text, std::uint64_t min, std::uint64_t max) {
  const std::string expected = max == std::numeric_limits<std::uint64_t>::max()
                                   ? "an integer >= " + std::to_string(min)
                                   : "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  // from_chars takes digits only: no sign, no spaces, no "0x"; the whole text must be used.
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range)
    throw UsageError("--" + option + ": '" + text + "' is too large (at most " + std::to_string(max) + ")");
  if (error != std::errc() || stop != end || value < min || value > max) reject(option, text, expected);
  return value;
}

double parse_number(const std::string& option, const std::string& text, double min, double max) {
  double value = 0;
  // Text beyond double's range (1e999) is an error; NaN and infinities fail the range test.
  if (!whole_text_as_double(text, value) || !(value >= min && value <= max))
    reject(option, text, "a number in [" + shortest(min) + ", " + shortest(max) + "]");
  return value;
}

std::uint64_t parse_count(const std::string& option, const std::string& text, std::uint64_t min) {
  const std::string expected = min == 0 ? "a non-negative whole number" : "a whole number >= " + std::to_string(min);
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc() && stop == end) {
    if (value < min) reject(option, text, expected);
    return value;
  }
  double real = 0;
  // 2^63 keeps the conversion exact and far above any count that fits in memory.
  if (whole_text_as_double(text, real) && real >= static_cast<double>(min) && real < 0x1p63 && real == std::floor(real))
    return static_cast<std::uint64_t>(real);
  reject(option, text, expected);
}

double parse_finite(const std::string& option, const std::string& text) {
  double value = 0;
  if (!whole_text_as_double(text, value) || !std::isfinite(value)) reject(option, text, "a finite number");
  return value;
}

std::vector<double> parse_finite_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  for (const auto& item : split_list(text, option)) values.push_back(parse_finite(option, item));
  return values;
}

std::vector<std::uint64_t> parse_integer_list(const std::string& option, const std::string& text, std::uint64_t min) {
  std::vector<std::uint64_t> values;
  for (const auto& item : split_list(text, option)) values.push_back(parse_integer(option, item, min));
  return values;
}

std::vector<double> parse_number_list(const std::string& option, const std::string& text, double min, double max) {
  std::vector<double> values;
  for (const auto& item : split_list(text, option)) values.push_back(parse_number(option, item, min, max));
  return values;
}

OutputFormat parse_output_format(const std::string& text) {
  if (text == "table") return OutputFormat::table;
  if (text == "json") return OutputFormat::json;
  throw UsageError("--output: unknown format '" + text + "' (expected table or json)");
}

}  // namespace robustfit::app
