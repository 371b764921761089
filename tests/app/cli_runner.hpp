#pragma once
// Runs the robust-fit executable (built beside the tests) and captures what it says.
#include <string>
#include <vector>

namespace robustfit::testing {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Arguments are passed through the shell, single-quoted.
CliRun run_cli(const std::vector<std::string>& args);

// A file under a fresh temporary directory with `content`; returns its path.
std::string temp_file(const std::string& name, const std::string& content);

// Whether `text` contains `part` (the CLI tests' check on printed output).
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace robustfit::testing
