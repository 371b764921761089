#pragma once
// The contaminated regression data bench_lts fits (and the benchmarks of its parts reuse): n
// rows, p normal predictors, a fraction epsilon of the rows contaminated, seeded by n and p so
// that every benchmark sees the same data for a size.
#include <cstddef>
#include <string>

#include "robustfit/data/scenarios.hpp"

namespace robustfit::bench {

inline data::Scenario lts_scenario(std::size_t n, std::size_t p, double epsilon = 0.2,
                                   const std::string& contamination = "vertical") {
  data::ScenarioSpec spec;
  spec.n = n;
  spec.q = p;
  spec.epsilon = epsilon;
  spec.contamination = data::parse_contamination(contamination);
  spec.seed = 1000 + n + p;
  return data::make_scenario(spec);
}

}  // namespace robustfit::bench
