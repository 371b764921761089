#pragma once
// One libFuzzer target per subcommand parser (fuzz_harness.hpp: command_line_input).
#include "fuzz_harness.hpp"

// The whole target for a parser `void parse_X_arguments(const std::vector<std::string>&)`.
// Inputs over 4096 bytes add nothing but time; -1 keeps them out of the corpus.
#define ROBUSTFIT_COMMAND_LINE_FUZZ_TARGET(parse_function)                                     \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {           \
    if (size > 4096) return -1;                                                                 \
    robustfit::fuzz::command_line_input(robustfit::fuzz::as_text(data, size), robustfit::app::parse_function); \
    return 0;                                                                                   \
  }
