#pragma once
// Option text of `generate` and `bench`: scenario names, counts, fractions and the scenario
// parameters, each turned into a UsageError (exit 2) that repeats the offending text.
#include <boost/program_options.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "robustfit/data/distributions.hpp"
#include "robustfit/data/scenarios.hpp"

namespace robustfit::app {

// A --scenario value: a regression scenario (clean, vertical, bad-leverage, good-leverage,
// heavy-tails, mixed) or selection:NAME, a one-column selection distribution.
struct ScenarioChoice {
  std::string name;  // as the user should read it: "bad-leverage", "selection:normal"
  bool selection = false;
  data::Contamination contamination = data::Contamination::none;
  data::Distribution distribution = data::Distribution::uniform;
};
ScenarioChoice parse_scenario(const std::string& text);
std::string scenario_names_help();

// A contaminated fraction in [0, 0.5) (numbers themselves: options_util.hpp).
double parse_fraction(const std::string& option, const std::string& text);

// The scenario-parameter options (--beta, --sigma, --shift, --leverage-*, --good-leverage, --df),
// kept as text and applied to a spec. Defaults: docs/BENCHMARKS.md.
struct ScenarioParameterText {
  std::string beta, sigma, shift, leverage_x, leverage_spread, leverage_offset, leverage_y_spread,
      good_leverage, df;
};
void add_scenario_parameter_options(boost::program_options::options_description& options,
                                    ScenarioParameterText& text);
// Fills spec's parameters from the given options; beta may be one value (every coefficient) or
// q + 1 values (intercept first). Throws UsageError.
void apply_scenario_parameters(const ScenarioParameterText& text, data::ScenarioSpec& spec);

}  // namespace robustfit::app
