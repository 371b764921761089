#pragma once
// Writing generated data as CSV while it is produced (constant memory, any n), byte for byte the
// same on every machine: numbers in the shortest form that reads back to the same double
// (std::to_chars, no locale), "NaN", "Inf", "-Inf" as write_csv.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "robustfit/data/distributions.hpp"
#include "robustfit/data/scenarios.hpp"

namespace robustfit::data {

struct WriteStats {
  std::size_t rows = 0;
  std::size_t outliers = 0;    // planted outliers (regression scenarios)
  std::uint64_t bytes = 0;     // bytes of CSV written
};

// Header x1..xq,y, then the rows of ScenarioStream(spec). When `truth` is not null, writes
// {"scenario", "n", "p", "contamination", "seed", "coefficients": {"(Intercept)", "x1", ...},
//  "parameters": {...}, "outliers": [1-based data rows]} to it, the outliers as they come.
// `scenario_name` is the name recorded in the truth file. Throws std::runtime_error when a
// write fails (disk full, closed pipe) and std::invalid_argument for a bad spec.
WriteStats write_scenario_csv(const ScenarioSpec& spec, std::string_view scenario_name, std::FILE* csv,
                              std::FILE* truth = nullptr);

// One column named `column` holding make_distribution<double>(distribution, n, seed, distinct).
// Independent draws (uniform, normal, the mixtures, ...) are streamed; the distributions that are
// arranged as a whole (sorted, shuffled, bucket killer, few huge) are built in memory first.
WriteStats write_distribution_csv(Distribution distribution, std::size_t n, std::uint64_t seed,
                                  std::size_t distinct, std::string_view column, std::FILE* csv);

// The shortest text that reads back to `value` ("NaN", "Inf", "-Inf" for those); `out` needs 32
// bytes. Returns the end of the text.
char* format_number(char* out, double value);

}  // namespace robustfit::data
