// The subcommands' parse stage (what the fuzz targets call): every command-line check, no file
// read or written. A bad command line is a UsageError; a good one returns without touching the
// (nonexistent) data file or the output paths.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"

namespace robustfit::testing {
namespace {

using app::UsageError;
using Args = std::vector<std::string>;

const std::string kMissing = "/nonexistent/robustfit/data.csv";

TEST(ParseArguments, GoodCommandLinesReadAndWriteNothing) {
  EXPECT_NO_THROW(app::parse_fit_arguments({kMissing, "-y", "y", "--method", "lms", "--h", "20", "--residuals", "/nonexistent/r.csv"}));
  EXPECT_NO_THROW(app::parse_select_arguments({kMissing, "-c", "x", "--quantile", "0,0.5,1"}));
  EXPECT_NO_THROW(app::parse_generate_arguments({"-s", "vertical", "--n", "1e3", "-e", "0.1", "-o", "/nonexistent/g.csv"}));
  EXPECT_NO_THROW(app::parse_bench_arguments({"-s", "clean", "--n", "100", "-o", "/nonexistent/b.json"}));
  EXPECT_NO_THROW(app::parse_fit_arguments({"--help"}));  // prints nothing at the parse stage
  EXPECT_FALSE(std::filesystem::exists("/nonexistent"));
}

TEST(ParseArguments, BadCommandLinesAreUsageErrors) {
  const std::vector<std::pair<void (*)(const Args&), Args>> cases = {
      {app::parse_fit_arguments, {kMissing}},                                   // no --response
      {app::parse_fit_arguments, {kMissing, "-y", "y", "--alpha", "0.3"}},
      {app::parse_fit_arguments, {kMissing, "-y", "y", "--bogus"}},
      {app::parse_select_arguments, {kMissing, "-c", "x", "--k", "0"}},
      {app::parse_select_arguments, {kMissing, "-c", "x", "--median", "--k", "1"}},
      {app::parse_generate_arguments, {"-s", "vertical", "--n", "2.5", "-e", "0.1"}},
      {app::parse_generate_arguments, {"-s", "vertical", "--n", "10", "-e", "0.5"}},
      {app::parse_bench_arguments, {"-s", "clean", "--n", "100", "--repeat", "0"}},
      {app::parse_bench_arguments, {"-s", "clean", "--n", "100", "--sigma", "1e999"}},
  };
  for (const auto& [parse, args] : cases) {
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_THROW(parse(args), UsageError) << line;
  }
}

// Boost's placeholder substitution looped forever on a token that contains its own placeholder
// (found by fit_arguments_fuzz): now a UsageError that repeats the token as typed.
TEST(ParseArguments, TokensContainingBoostPlaceholdersAreUsageErrors) {
  for (const std::string token : {"-%original_token%-", "--%option%", "--no-intercept=%value%", "-%prefix%x"}) {
    try {
      app::parse_fit_arguments({kMissing, "-y", "y", token});
      ADD_FAILURE() << token << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(token.substr(0, token.find('='))), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace robustfit::testing
