#include "scenario_options.hpp"

#include <charconv>
#include <cmath>

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

bool parse_double(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && !text.empty();
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

std::uint64_t parse_count(const std::string& text, const std::string& option) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc() && ptr == end && !text.empty()) return value;
  double real = 0;
  if (parse_double(text, real) && real >= 0 && real < 0x1p63 && real == std::floor(real))
    return static_cast<std::uint64_t>(real);
  throw UsageError("--" + option + ": '" + text + "' is not a non-negative whole number");
}

double parse_real(const std::string& text, const std::string& option) {
  double value = 0;
  if (!parse_double(text, value) || !std::isfinite(value))
    throw UsageError("--" + option + ": '" + text + "' is not a finite number");
  return value;
}

double parse_fraction(const std::string& text, const std::string& option) {
  const double value = parse_real(text, option);
  if (!(value >= 0 && value < 0.5))
    throw UsageError("--" + option + ": " + text + " is outside [0, 0.5): the contaminated fraction must leave a clean majority");
  return value;
}

std::vector<double> parse_real_list(const std::string& text, const std::string& option) {
  std::vector<double> values;
  for (const auto& item : split_list(text, option)) values.push_back(parse_real(item, option));
  return values;
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
    const auto values = parse_real_list(text, option);
    if (values.size() != 2 || values[0] > values[1])
      throw UsageError("--" + option + ": expected MIN,MAX with MIN <= MAX, got '" + text + "'");
    low = values[0];
    high = values[1];
  };
  if (!t.beta.empty()) {
    const auto beta = parse_real_list(t.beta, "beta");
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
    spec.sigma = parse_real(t.sigma, "sigma");
    if (spec.sigma <= 0) throw UsageError("--sigma: must be positive, got " + t.sigma);
  }
  if (!t.shift.empty()) range(t.shift, "shift", spec.shift_min, spec.shift_max);
  if (!t.leverage_x.empty()) spec.leverage_x = parse_real(t.leverage_x, "leverage-x");
  if (!t.leverage_spread.empty()) spec.leverage_spread = parse_real(t.leverage_spread, "leverage-spread");
  if (!t.leverage_offset.empty()) spec.leverage_offset = parse_real(t.leverage_offset, "leverage-offset");
  if (!t.leverage_y_spread.empty()) spec.leverage_y_spread = parse_real(t.leverage_y_spread, "leverage-y-spread");
  if (spec.leverage_spread < 0 || spec.leverage_y_spread < 0)
    throw UsageError("--leverage-spread, --leverage-y-spread: must be >= 0");
  if (!t.good_leverage.empty()) {
    range(t.good_leverage, "good-leverage", spec.good_leverage_min, spec.good_leverage_max);
    if (spec.good_leverage_min < 0) throw UsageError("--good-leverage: MIN must be >= 0 (the sign is drawn)");
  }
  if (!t.df.empty()) {
    spec.t_df = parse_real(t.df, "df");
    if (spec.t_df <= 0) throw UsageError("--df: degrees of freedom must be positive, got " + t.df);
    if (spec.contamination != data::Contamination::heavy_tails)
      throw UsageError("--df applies to --scenario heavy-tails only");
  }
}

}  // namespace robustfit::app
