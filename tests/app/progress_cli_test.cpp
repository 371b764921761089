// The progress line of long fits: on stderr only when it is a terminal, never with --quiet.
// A fit of about 3 s on the 2-core development machine (hbk, 600000 LTS subsets on the CPU
// backend; the line waits 1 s from the fit's start, so a run of the whole command in 1.2-1.3 s,
// as 300000 subsets took on a faster machine, could end before its first report).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace robustfit::testing {
namespace {

const std::vector<std::string> kLongFit = {"fit", dataset_path("hbk.csv").string(), "-y", "Y", "--subsets", "600000",
                                           "--backend", "cpu"};

// stderr of the command run under a pseudo-terminal by util-linux `script`; nullopt without it.
std::optional<std::string> stderr_in_terminal(const std::vector<std::string>& args) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) return std::nullopt;
  std::string command = (executable_dir() / ROBUSTFIT_CLI_RELATIVE_PATH).string();
  for (const auto& a : args) command += " " + a;
  // Inside `script`, stdout goes to /dev/null; what comes back is what the terminal saw.
  const std::string shell = "script -qec '" + command + " >/dev/null' /dev/null 2>&1";
  std::FILE* pipe = ::popen(shell.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string seen;
  char buffer[256];
  for (std::size_t count; (count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) seen.append(buffer, count);
  ::pclose(pipe);
  return seen;
}

TEST(ProgressCli, NothingOnStderrWhenItIsNotATerminal) {
  const auto run = run_cli(kLongFit);  // stderr is a file
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  EXPECT_NE(run.out.find("Least Trimmed Squares"), std::string::npos);
}

TEST(ProgressCli, ShownInATerminalUnlessQuiet) {
  const auto start = std::chrono::steady_clock::now();
  const auto shown = stderr_in_terminal(kLongFit);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!shown) GTEST_SKIP() << "util-linux script is not installed";
  // The line waits a second: a machine that fits this faster shows nothing, rightly.
  if (seconds < 1.2 && shown->empty()) GTEST_SKIP() << "the fit took " << seconds << " s";
  EXPECT_NE(shown->find("robust-fit: LTS: "), std::string::npos) << *shown;
  EXPECT_NE(shown->find('%'), std::string::npos) << *shown;
  auto quiet = kLongFit;
  quiet.push_back("--quiet");
  EXPECT_EQ(stderr_in_terminal(quiet).value_or("?"), "");
}

}  // namespace
}  // namespace robustfit::testing
