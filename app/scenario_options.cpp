#include "scenario_options.hpp"

#include "cli_error.hpp"
#include "options_util.hpp"

namespace po = boost::program_options;

namespace robustfit::app {
namespace {

constexpr const char* kRegressionScenarios[] = {"clean", "vertical", "bad-leverage", "good-leverage",
                                                "heavy-tails", "mixed"};

std::string with_underscores(std::string text) {
  for (char& c : text)
    if (c == '-') c = '_';
  return text;
}

}  // namespace

std::string scenario_names_help() {
  std::string names;
  for (const char* name : kRegressionScenarios) names += (names.empty() ? "" : ", ") + std::string(name);
  return names + ", selection:NAME";
}

ScenarioChoice parse_scenario(const std::string& text) {
  ScenarioChoice choice;
  const std::string prefix = "selection:";
  if (text.rfind(prefix, 0) == 0) {
    choice.selection = true;
    const std::string name = with_underscores(text.substr(prefix.size()));
    try {
      choice.distribution = data::parse_distribution(name);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--scenario: " + std::string(e.what()));
    }
    choice.name = prefix + name;
    return choice;
  }
  for (const char* name : kRegressionScenarios) {
    if (with_underscores(text) == with_underscores(name)) {
      choice.name = name;
      choice.contamination = data::parse_contamination(with_underscores(text));
      return choice;
    }
  }
  throw UsageError("--scenario: unknown scenario '" + text + "' (expected one of: " + scenario_names_help() +
                   "; see 'robust-fit generate --help')");
}

double parse_fraction(const std::string& option, const std::string& text) {
  const double value = parse_finite(option, text);
  if (!(value >= 0 && value < 0.5))
    throw UsageError("--" + option + ": '" + text +
                     "' is outside [0, 0.5): the contaminated fraction must leave a clean majority");
  return value;
}

void add_scenario_parameter_options(po::options_description& options, ScenarioParameterText& t) {
  options.add_options()
    ("beta", po::value(&t.beta), "true coefficients: one value for all, or p + 1 values, intercept first (default 1)")
    ("sigma", po::value(&t.sigma), "sd of the clean rows' errors (default 1)")
    ("shift", po::value(&t.shift), "vertical: y += U(MIN, MAX), given as MIN,MAX (default 10,100)")
    ("leverage-x", po::value(&t.leverage_x), "bad leverage: centre of the x1 cluster (default 10)")
    ("leverage-spread", po::value(&t.leverage_spread), "bad leverage: sd of x1 in the cluster (default 0.5)")
    ("leverage-offset", po::value(&t.leverage_offset), "bad leverage: y = model + OFFSET + N(0, s^2) (default -20)")
    ("leverage-y-spread", po::value(&t.leverage_y_spread), "bad leverage: s, the sd of y about the offset (default 0.5)")
    ("good-leverage", po::value(&t.good_leverage), "good leverage: x1 = +-U(MIN, MAX), given as MIN,MAX (default 10,20)")
    ("df", po::value(&t.df), "heavy tails: Student t errors with DF degrees of freedom (default: Cauchy)");
}

void apply_scenario_parameters(const ScenarioParameterText& t, data::ScenarioSpec& spec) {
  const auto range = [](const std::string& text, const std::string& option, double& low, double& high) {
    const auto values = parse_finite_list(option, text);
    if (values.size() != 2 || values[0] > values[1])
      throw UsageError("--" + option + ": expected MIN,MAX with MIN <= MAX, got '" + text + "'");
    low = values[0];
    high = values[1];
  };
  if (!t.beta.empty()) {
    const auto beta = parse_finite_list("beta", t.beta);
    if (beta.size() == 1) {
      spec.beta.assign(spec.q + 1, beta[0]);
    } else if (beta.size() == spec.q + 1) {
      spec.beta = beta;
    } else {
      throw UsageError("--beta: give one value or p + 1 = " + std::to_string(spec.q + 1) +
                       " values (intercept first), got " + std::to_string(beta.size()));
    }
  }
  if (!t.sigma.empty()) {
    spec.sigma = parse_finite("sigma", t.sigma);
    if (spec.sigma <= 0) throw UsageError("--sigma: must be positive, got " + t.sigma);
  }
  if (!t.shift.empty()) range(t.shift, "shift", spec.shift_min, spec.shift_max);
  if (!t.leverage_x.empty()) spec.leverage_x = parse_finite("leverage-x", t.leverage_x);
  if (!t.leverage_spread.empty()) spec.leverage_spread = parse_finite("leverage-spread", t.leverage_spread);
  if (!t.leverage_offset.empty()) spec.leverage_offset = parse_finite("leverage-offset", t.leverage_offset);
  if (!t.leverage_y_spread.empty()) spec.leverage_y_spread = parse_finite("leverage-y-spread", t.leverage_y_spread);
  if (spec.leverage_spread < 0 || spec.leverage_y_spread < 0)
    throw UsageError("--leverage-spread, --leverage-y-spread: must be >= 0");
  if (!t.good_leverage.empty()) {
    range(t.good_leverage, "good-leverage", spec.good_leverage_min, spec.good_leverage_max);
    if (spec.good_leverage_min < 0) throw UsageError("--good-leverage: MIN must be >= 0 (the sign is drawn)");
  }
  if (!t.df.empty()) {
    spec.t_df = parse_finite("df", t.df);
    if (spec.t_df <= 0) throw UsageError("--df: degrees of freedom must be positive, got " + t.df);
    if (spec.contamination != data::Contamination::heavy_tails)
      throw UsageError("--df applies to --scenario heavy-tails only");
  }
}

}  // namespace robustfit::app
