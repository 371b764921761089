// robust-fit: robust linear regression (LTS, LMS) and k-th order statistics from CSV files.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"

namespace {

constexpr const char* kUsage = R"(robust-fit: robust linear regression (LTS, LMS) on fast k-th order statistics

Usage:
  robust-fit fit DATA.csv --response NAME [options]     fit a linear model robustly
  robust-fit select DATA.csv --column NAME [options]    k-th order statistics of a column
  robust-fit generate --scenario NAME --n N [options]   contaminated test data as CSV
  robust-fit bench --scenario NAME,... --n N,... [...]  compare estimators on a grid of scenarios
  robust-fit mcd DATA.csv [--columns A,B,...]           robust location, scatter and distances (MCD)
  robust-fit <command> --help                           options of a command
  robust-fit --version

Examples:
  robust-fit fit data/datasets/stackloss.csv --response stack.loss
  robust-fit fit data.csv --response y --predictors x1,x2 --method lms --output json
  robust-fit select data.csv --column x --median

Errors are printed as 'robust-fit: error: ...'; the exit code is 1 for data problems
and 2 for command-line problems.
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace robustfit::app;
  const std::vector<std::string> all(argv + 1, argv + argc);
  try {
    if (all.empty()) {
      std::cerr << "robust-fit: error: no command given (expected fit, select, generate, bench or mcd)\n\n" << kUsage;
      return kExitUsageError;
    }
    if (all[0] == "--help" || all[0] == "-h" || all[0] == "help") {
      std::cout << kUsage;
      return kExitOk;
    }
    if (all[0] == "--version") {
      std::cout << "robust-fit 0.1.0\n";
      return kExitOk;
    }
    const std::vector<std::string> rest(all.begin() + 1, all.end());
    if (all[0] == "fit") return run_fit(rest);
    if (all[0] == "select") return run_select(rest);
    if (all[0] == "generate") return run_generate(rest);
    if (all[0] == "bench") return run_bench(rest);
    if (all[0] == "mcd") return run_mcd(rest);
    throw UsageError("unknown command '" + all[0] + "' (expected fit, select, generate, bench or mcd; see 'robust-fit --help')");
  } catch (const UsageError& e) {
    std::cerr << "robust-fit: error: " << e.what() << '\n';
    return kExitUsageError;
  } catch (const std::bad_alloc& e) {
    // GPU allocation failures derive from bad_alloc and say what was asked for.
    const std::string what = e.what();
    std::cerr << "robust-fit: error: " << (what == "std::bad_alloc" ? std::string("out of memory") : what) << '\n';
    return kExitDataError;
  } catch (const std::exception& e) {
    std::cerr << "robust-fit: error: " << e.what() << '\n';
    return kExitDataError;
  }
}
