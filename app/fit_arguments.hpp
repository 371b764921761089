#pragma once
// robust-fit fit's command line, as parsed (fit_command.cpp), for the one-process and the
// mpirun paths.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace robustfit::app {

struct FitArguments {
  std::string data_file, response, predictors, method, backend, selection, precision, output, residuals, plot;
  std::string alpha_text, h_text, subsets_text, seed_text;  // numbers as typed: parse_integer / parse_number
  std::string shard_files;                                  // --shard-files as typed
  std::vector<std::string> shard_file_list;
  double alpha = 0.5;
  std::optional<std::size_t> h, subsets;
  std::uint64_t seed = 0;
  bool no_intercept = false, drop_missing = false, no_mcd = false, quiet = false;
};

}  // namespace robustfit::app
