#pragma once
// Subcommands of robust-fit. Each takes the arguments after its name and returns the exit code;
// they throw UsageError for command-line problems and other exceptions for data problems.
#include <string>
#include <vector>

namespace robustfit::app {

// How far a subcommand goes: parse stops after every command-line check, before any file is
// read or written (the fuzz targets and tests call it); run does the work.
enum class Stage { parse, run };

int run_fit(const std::vector<std::string>& args, Stage stage = Stage::run);
int run_select(const std::vector<std::string>& args, Stage stage = Stage::run);
int run_knn(const std::vector<std::string>& args, Stage stage = Stage::run);
int run_mcd(const std::vector<std::string>& args, Stage stage = Stage::run);
int run_generate(const std::vector<std::string>& args, Stage stage = Stage::run);
int run_bench(const std::vector<std::string>& args, Stage stage = Stage::run);

// The command line alone: throws UsageError where the command would; --help prints nothing.
inline void parse_fit_arguments(const std::vector<std::string>& args) { run_fit(args, Stage::parse); }
inline void parse_select_arguments(const std::vector<std::string>& args) { run_select(args, Stage::parse); }
inline void parse_knn_arguments(const std::vector<std::string>& args) { run_knn(args, Stage::parse); }
inline void parse_mcd_arguments(const std::vector<std::string>& args) { run_mcd(args, Stage::parse); }
inline void parse_generate_arguments(const std::vector<std::string>& args) { run_generate(args, Stage::parse); }
inline void parse_bench_arguments(const std::vector<std::string>& args) { run_bench(args, Stage::parse); }

}  // namespace robustfit::app
