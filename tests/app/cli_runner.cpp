#include "cli_runner.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "test_paths.hpp"

namespace robustfit::testing {

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::filesystem::path scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("robustfit-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

CliRun run_cli(const std::vector<std::string>& args) {
  const auto exe = executable_dir() / ROBUSTFIT_CLI_RELATIVE_PATH;
  const auto out_file = scratch_dir() / "stdout.txt", err_file = scratch_dir() / "stderr.txt";
  std::string command = quote(exe.string());
  for (const auto& a : args) command += " " + quote(a);
  command += " </dev/null >" + quote(out_file.string()) + " 2>" + quote(err_file.string());
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(out_file);
  run.err = slurp(err_file);
  return run;
}

std::string temp_file(const std::string& name, const std::string& content) {
  const auto path = scratch_dir() / name;
  std::ofstream(path) << content;
  return path.string();
}

}  // namespace robustfit::testing
