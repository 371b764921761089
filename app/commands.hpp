#pragma once
// Subcommands of robust-fit. Each takes the arguments after its name and returns the exit code;
// they throw UsageError for command-line problems and other exceptions for data problems.
#include <string>
#include <vector>

namespace robustfit::app {

int run_fit(const std::vector<std::string>& args);
int run_select(const std::vector<std::string>& args);
int run_knn(const std::vector<std::string>& args);
int run_generate(const std::vector<std::string>& args);
int run_bench(const std::vector<std::string>& args);
int run_mcd(const std::vector<std::string>& args);

}  // namespace robustfit::app
