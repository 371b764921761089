#pragma once
// One libFuzzer target per subcommand parser: the input's bytes, split at NUL, are the arguments
// after the command's name. A UsageError is the parser's clean answer (exit 2); any other
// exception, a crash, a leak or undefined behaviour is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"

namespace robustfit::fuzz {

inline std::vector<std::string> split_arguments(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\0')
      args.emplace_back();
    else
      args.back().push_back(static_cast<char>(data[i]));
  }
  return args;
}

template <class Parse>
int fuzz_command_line(const std::uint8_t* data, std::size_t size, Parse parse) {
  if (size > 4096) return -1;  // longer command lines add nothing but time; -1 keeps them out of the corpus
  try {
    parse(split_arguments(data, size));
  } catch (const app::UsageError&) {
  }
  return 0;
}

}  // namespace robustfit::fuzz

// The whole target for a parser `void parse_X_arguments(const std::vector<std::string>&)`.
#define ROBUSTFIT_COMMAND_LINE_FUZZ_TARGET(parse_function)                           \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    return robustfit::fuzz::fuzz_command_line(data, size, robustfit::app::parse_function); \
  }
