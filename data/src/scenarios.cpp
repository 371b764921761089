// Contaminated regression scenarios (docs/BENCHMARKS.md). With sigma = 1 (the error scale):
//   clean rows      x ~ N(0, I_q), y = 1 + sum_j x_j + e, e ~ N(0, 1)
//   vertical        y += U(10, 100)                                  flagged
//   bad_leverage    x1 ~ N(10, 0.5^2), y = model(x) - 20 + N(0, 0.5^2)  flagged (a tight cluster
//                   far out in x1 whose residual is about -20)
//   good_leverage   x1 = +-U(10, 20), y = model(x) + e               not flagged (on the model)
//   heavy_tails     e replaced by a standard Cauchy draw             flagged (all of them, even
//                   the about half whose |e| < 1: they were drawn from the contaminating law)
//   mixed           floor(m/2) rows bad leverage, the rest vertical  flagged
// Exactly round(epsilon * n) rows are contaminated, chosen uniformly at random.
// Three independent streams of the seed: clean data, row choice, contamination values. So for
// one (n, q, seed) the clean rows are the same for every epsilon and contamination type, and
// for one epsilon the same rows are contaminated by every type.
#include "robustfit/data/scenarios.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "robustfit/common/random.hpp"

namespace robustfit::data {
namespace {

using ScenarioRandom = common::Random;

struct NamedContamination {
  Contamination value;
  std::string_view name;
};
constexpr std::array<NamedContamination, 5> kNames = {{
    {Contamination::vertical, "vertical"},
    {Contamination::bad_leverage, "bad_leverage"},
    {Contamination::good_leverage, "good_leverage"},
    {Contamination::heavy_tails, "heavy_tails"},
    {Contamination::mixed, "mixed"},
}};

void validate(const ScenarioSpec& spec) {
  if (spec.n == 0) throw std::invalid_argument("scenario n must be at least 1");
  (void)to_string(spec.contamination);  // throws for a value outside the enum
  if (!(spec.epsilon >= 0.0 && spec.epsilon < 0.5)) {
    throw std::invalid_argument("scenario epsilon must be in [0, 0.5), got " +
                                std::to_string(spec.epsilon));
  }
  const bool moves_x1 = spec.contamination == Contamination::bad_leverage ||
                        spec.contamination == Contamination::good_leverage ||
                        spec.contamination == Contamination::mixed;
  if (moves_x1 && spec.q == 0 && spec.epsilon > 0.0) {
    throw std::invalid_argument("scenario contamination '" +
                                std::string(to_string(spec.contamination)) +
                                "' moves x1 and needs q >= 1");
  }
}

// Exactly `count` of `n` flags set, each subset equally likely (selection sampling).
std::vector<bool> choose_rows(std::size_t n, std::size_t count, ScenarioRandom& random) {
  std::vector<bool> chosen(n, false);
  std::size_t needed = count;
  for (std::size_t i = 0; i < n && needed > 0; ++i) {
    if (random.uniform() * static_cast<double>(n - i) < static_cast<double>(needed)) {
      chosen[i] = true;
      --needed;
    }
  }
  return chosen;
}

}  // namespace

std::string_view to_string(Contamination contamination) {
  for (const auto& entry : kNames) {
    if (entry.value == contamination) return entry.name;
  }
  throw std::invalid_argument("unknown contamination value " +
                              std::to_string(static_cast<int>(contamination)));
}

Contamination parse_contamination(std::string_view name) {
  std::string normalized(name);
  for (char& c : normalized) {
    if (c == '-') c = '_';  // accept "bad-leverage" as typed on a command line
  }
  std::string known;
  for (const auto& entry : kNames) {
    if (entry.name == normalized) return entry.value;
    known += (known.empty() ? "" : ", ") + std::string(entry.name);
  }
  throw std::invalid_argument("unknown contamination '" + std::string(name) +
                              "'; expected one of: " + known);
}

Scenario make_scenario(const ScenarioSpec& spec) {
  validate(spec);
  const auto n = static_cast<Eigen::Index>(spec.n);
  const auto q = static_cast<Eigen::Index>(spec.q);
  const auto model = [q](const Eigen::MatrixXd& X, Eigen::Index i) {
    return q == 0 ? 1.0 : 1.0 + X.row(i).sum();  // beta = (1, ..., 1)
  };

  Scenario scenario;
  scenario.beta = Eigen::VectorXd::Ones(q + 1);
  scenario.X.resize(n, q);
  scenario.y.resize(n);
  Eigen::VectorXd errors(n);
  ScenarioRandom clean(spec.seed, 0);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < q; ++j) scenario.X(i, j) = clean.normal();
    errors(i) = clean.normal();
  }

  const auto contaminated = static_cast<std::size_t>(
      std::llround(spec.epsilon * static_cast<double>(spec.n)));
  ScenarioRandom picker(spec.seed, 1);
  const std::vector<bool> chosen = choose_rows(spec.n, contaminated, picker);
  std::vector<bool> leverage_in_mix(spec.n, false);
  if (spec.contamination == Contamination::mixed) {
    const std::vector<bool> half = choose_rows(contaminated, contaminated / 2, picker);
    for (std::size_t i = 0, k = 0; i < spec.n; ++i) {
      if (chosen[i]) leverage_in_mix[i] = half[k++];
    }
  }

  ScenarioRandom noise(spec.seed, 2);
  scenario.planted_outlier.assign(spec.n, false);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto row = static_cast<std::size_t>(i);
    if (!chosen[row]) {
      scenario.y(i) = model(scenario.X, i) + errors(i);
      continue;
    }
    Contamination kind = spec.contamination;
    if (kind == Contamination::mixed) {
      kind = leverage_in_mix[row] ? Contamination::bad_leverage : Contamination::vertical;
    }
    switch (kind) {
      case Contamination::vertical:
        scenario.y(i) = model(scenario.X, i) + errors(i) + noise.uniform(10.0, 100.0);
        break;
      case Contamination::bad_leverage:
        scenario.X(i, 0) = 10.0 + 0.5 * noise.normal();
        scenario.y(i) = model(scenario.X, i) - 20.0 + 0.5 * noise.normal();
        break;
      case Contamination::good_leverage: {
        const double sign = noise.uniform() < 0.5 ? -1.0 : 1.0;
        scenario.X(i, 0) = sign * noise.uniform(10.0, 20.0);
        scenario.y(i) = model(scenario.X, i) + errors(i);
        break;
      }
      case Contamination::heavy_tails:
        scenario.y(i) = model(scenario.X, i) + noise.cauchy();
        break;
      case Contamination::mixed:
        break;  // resolved above
    }
    scenario.planted_outlier[row] = kind != Contamination::good_leverage;
  }
  return scenario;
}

}  // namespace robustfit::data
