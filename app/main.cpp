// robust-fit: robust linear regression (LTS, LMS) and k-th order statistics from CSV files.
#include <array>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"
#ifdef ROBUSTFIT_WITH_MPI
#include "mpi_run.hpp"
#include "robustfit/distributed/mpi_session.hpp"
#endif

namespace {

constexpr const char* kUsage = R"(robust-fit: robust linear regression (LTS, LMS) on fast k-th order statistics

Usage:
  robust-fit fit DATA.csv --response NAME [options]     fit a linear model robustly
  robust-fit select DATA.csv --column NAME [options]    k-th order statistics of a column
  robust-fit knn --train T.csv [--query Q.csv] --response NAME --k K   exact k-nearest neighbours
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

using Command = int (*)(const std::vector<std::string>&, robustfit::app::Stage);
struct NamedCommand {
  std::string_view name;
  Command run;
};
// Every subcommand, once: dispatch and the "expected ..." of errors come from this list.
constexpr std::array<NamedCommand, 6> kCommands{{
    {"fit", robustfit::app::run_fit},
    {"select", robustfit::app::run_select},
    {"knn", robustfit::app::run_knn},
    {"mcd", robustfit::app::run_mcd},
    {"generate", robustfit::app::run_generate},
    {"bench", robustfit::app::run_bench},
}};

std::string command_names() {  // "fit, select, ... or bench"
  std::string names;
  for (std::size_t i = 0; i < kCommands.size(); ++i)
    names.append(i == 0 ? "" : i + 1 == kCommands.size() ? " or " : ", ").append(kCommands[i].name);
  return names;
}

// Runs the command line; errors are thrown (UsageError: exit 2, anything else: exit 1).
int dispatch(const std::vector<std::string>& all) {
  using namespace robustfit::app;
  if (all.empty()) {
    std::cerr << "robust-fit: error: no command given (expected " << command_names() << ")\n\n" << kUsage;
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
  for (const auto& command : kCommands) {
    if (all[0] != command.name) continue;
#ifdef ROBUSTFIT_WITH_MPI
    if (mpi_world() != nullptr && command.name != "select" && command.name != "fit" && command.name != "mcd")
      throw UsageError(std::string(command.name) + " does not run distributed yet (only select, fit and mcd do); run it without mpirun");
#endif
    return command.run(rest, Stage::run);
  }
  throw UsageError("unknown command '" + all[0] + "' (expected " + command_names() + "; see 'robust-fit --help')");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace robustfit::app;
  const std::vector<std::string> all(argv + 1, argv + argc);
#ifdef ROBUSTFIT_WITH_MPI
  if (robustfit::distributed::launched_by_mpi()) {
    const robustfit::distributed::MpiSession session(argc, argv);
    robustfit::distributed::Communicator world;
    if (world.size() > 1) return run_on_every_rank(world, all, dispatch);
  }
#endif
  try {
    return dispatch(all);
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
