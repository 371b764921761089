// Contaminated regression scenarios (docs/BENCHMARKS.md). With the default parameters:
//   clean rows      x ~ N(0, I_q), y = 1 + sum_j x_j + e, e ~ N(0, 1)
//   vertical        y += U(10, 100)                                  flagged
//   bad_leverage    x1 ~ N(10, 0.5^2), y = model(x) - 20 + N(0, 0.5^2)  flagged (a tight cluster
//                   far out in x1 whose residual is about -20)
//   good_leverage   x1 = +-U(10, 20), y = model(x) + e               not flagged (on the model)
//   heavy_tails     e replaced by a standard Cauchy draw             flagged (all of them, even
//                   the about half whose |e| < 1: they were drawn from the contaminating law)
//   mixed           floor(m/2) rows bad leverage, the rest vertical  flagged
// Exactly m = round(epsilon * n) rows are contaminated, chosen uniformly at random by selection
// sampling (row i is taken with probability still-needed / rows-left), which needs no memory.
//
// The streams are those of the original in-memory generator, draw for draw: stream 0 gives each
// row's q normals and then its error; stream 1 decides the rows in order and, for mixed, then
// decides which of the m chosen rows are bad leverage (floor(m/2) of them, selection sampling
// again); stream 2 gives the contaminated rows' values in row order. The mixed split comes after
// the whole first pass of stream 1, so the constructor replays that pass (n uniform draws, no
// storage) to find where the split starts.
#include "robustfit/data/scenarios.hpp"

#include <array>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace robustfit::data {
namespace {

struct NamedContamination {
  Contamination value;
  std::string_view name;
};
constexpr std::array<NamedContamination, 6> kNames = {{
    {Contamination::none, "clean"},
    {Contamination::vertical, "vertical"},
    {Contamination::bad_leverage, "bad_leverage"},
    {Contamination::good_leverage, "good_leverage"},
    {Contamination::heavy_tails, "heavy_tails"},
    {Contamination::mixed, "mixed"},
}};

std::size_t contaminated_count(const ScenarioSpec& spec) {
  return static_cast<std::size_t>(std::llround(spec.epsilon * static_cast<double>(spec.n)));
}

void require(bool ok, const std::string& message) {
  if (!ok) throw std::invalid_argument("scenario " + message);
}

std::string number(double value) {
  std::string text = std::to_string(value);
  return text;
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

void validate(const ScenarioSpec& spec) {
  require(spec.n > 0, "n must be at least 1");
  (void)to_string(spec.contamination);  // throws for a value outside the enum
  require(spec.epsilon >= 0.0 && spec.epsilon < 0.5,
          "epsilon must be in [0, 0.5), got " + number(spec.epsilon));
  require(spec.contamination != Contamination::none || spec.epsilon == 0.0,
          "'clean' has no contamination: epsilon must be 0, got " + number(spec.epsilon));
  const bool moves_x1 = spec.contamination == Contamination::bad_leverage ||
                        spec.contamination == Contamination::good_leverage ||
                        spec.contamination == Contamination::mixed;
  require(!(moves_x1 && spec.q == 0 && spec.epsilon > 0.0),
          "contamination '" + std::string(to_string(spec.contamination)) + "' moves x1 and needs q >= 1");
  require(spec.beta.empty() || spec.beta.size() == spec.q + 1,
          "beta needs q + 1 = " + std::to_string(spec.q + 1) + " values (intercept first), got " +
              std::to_string(spec.beta.size()));
  for (const double b : spec.beta) require(std::isfinite(b), "beta values must be finite");
  require(spec.sigma > 0.0 && std::isfinite(spec.sigma), "sigma must be positive, got " + number(spec.sigma));
  require(std::isfinite(spec.shift_min) && std::isfinite(spec.shift_max) && spec.shift_min <= spec.shift_max,
          "vertical shift range needs finite shift_min <= shift_max");
  require(std::isfinite(spec.leverage_x) && std::isfinite(spec.leverage_offset),
          "leverage position and offset must be finite");
  require(spec.leverage_spread >= 0.0 && std::isfinite(spec.leverage_spread) &&
              spec.leverage_y_spread >= 0.0 && std::isfinite(spec.leverage_y_spread),
          "leverage spreads must be >= 0");
  require(std::isfinite(spec.good_leverage_min) && std::isfinite(spec.good_leverage_max) &&
              0.0 <= spec.good_leverage_min && spec.good_leverage_min <= spec.good_leverage_max,
          "good leverage range needs 0 <= min <= max");
  require(spec.t_df == 0.0 || (spec.t_df > 0.0 && std::isfinite(spec.t_df)),
          "t degrees of freedom must be positive (0: Cauchy), got " + number(spec.t_df));
}

Eigen::VectorXd true_coefficients(const ScenarioSpec& spec) {
  if (spec.beta.empty()) return Eigen::VectorXd::Ones(static_cast<Eigen::Index>(spec.q + 1));
  return Eigen::Map<const Eigen::VectorXd>(spec.beta.data(), static_cast<Eigen::Index>(spec.beta.size()));
}

ScenarioStream::ScenarioStream(const ScenarioSpec& spec)
    : spec_((validate(spec), spec)),
      beta_(true_coefficients(spec)),
      contaminated_(contaminated_count(spec)),
      still_to_choose_(contaminated_),
      clean_(spec.seed, 0),
      picker_(spec.seed, 1),
      mix_picker_(spec.seed, 1),
      noise_(spec.seed, 2) {
  if (spec_.contamination == Contamination::mixed) {
    // Replay the first pass of stream 1: it draws once per row until the last row is chosen.
    std::size_t needed = contaminated_;
    for (std::size_t i = 0; i < spec_.n && needed > 0; ++i) {
      if (mix_picker_.uniform() * static_cast<double>(spec_.n - i) < static_cast<double>(needed)) --needed;
    }
    leverage_still_to_choose_ = contaminated_ / 2;
  }
}

// beta0 + (beta1 x1 + ... + betaq xq), summed in that order (as Eigen's row sum did).
double ScenarioStream::model(const double* x) const {
  if (spec_.q == 0) return beta_(0);
  double sum = beta_(1) * x[0];
  for (std::size_t j = 1; j < spec_.q; ++j) sum += beta_(static_cast<Eigen::Index>(j + 1)) * x[j];
  return beta_(0) + sum;
}

double ScenarioStream::heavy_tail_error() {
  if (spec_.t_df == 0.0) return spec_.sigma * noise_.cauchy();
  // Inverse CDF of Student's t (Boost.Math): one uniform per draw, the same on every machine.
  const boost::math::students_t_distribution<double> t(spec_.t_df);
  return spec_.sigma * boost::math::quantile(t, noise_.uniform_open());
}

double ScenarioStream::next(double* x, bool& outlier) {
  const std::size_t q = spec_.q;
  for (std::size_t j = 0; j < q; ++j) x[j] = clean_.normal();
  const double error = spec_.sigma * clean_.normal();
  const std::size_t i = row_++;
  outlier = false;

  bool chosen = false;
  if (still_to_choose_ > 0 &&
      picker_.uniform() * static_cast<double>(spec_.n - i) < static_cast<double>(still_to_choose_)) {
    chosen = true;
    --still_to_choose_;
  }
  if (!chosen) return model(x) + error;

  Contamination kind = spec_.contamination;
  if (kind == Contamination::mixed) {
    const std::size_t left = contaminated_ - chosen_so_far_;
    const bool leverage = leverage_still_to_choose_ > 0 &&
                          mix_picker_.uniform() * static_cast<double>(left) <
                              static_cast<double>(leverage_still_to_choose_);
    if (leverage) --leverage_still_to_choose_;
    kind = leverage ? Contamination::bad_leverage : Contamination::vertical;
  }
  ++chosen_so_far_;
  outlier = kind != Contamination::good_leverage;
  switch (kind) {
    case Contamination::vertical:
      return model(x) + error + noise_.uniform(spec_.shift_min, spec_.shift_max);
    case Contamination::bad_leverage:
      x[0] = spec_.leverage_x + spec_.leverage_spread * noise_.normal();
      return model(x) + spec_.leverage_offset + spec_.leverage_y_spread * noise_.normal();
    case Contamination::good_leverage: {
      const double sign = noise_.uniform() < 0.5 ? -1.0 : 1.0;
      x[0] = sign * noise_.uniform(spec_.good_leverage_min, spec_.good_leverage_max);
      return model(x) + error;
    }
    case Contamination::heavy_tails:
      return model(x) + heavy_tail_error();
    case Contamination::none:
    case Contamination::mixed:
      break;  // none chooses no rows; mixed was resolved above
  }
  return model(x) + error;
}

Scenario make_scenario(const ScenarioSpec& spec) {
  ScenarioStream stream(spec);
  const auto n = static_cast<Eigen::Index>(spec.n);
  const auto q = static_cast<Eigen::Index>(spec.q);
  Scenario scenario;
  scenario.beta = stream.beta();
  scenario.X.resize(n, q);
  scenario.y.resize(n);
  scenario.planted_outlier.assign(spec.n, false);
  std::vector<double> row(spec.q);
  for (Eigen::Index i = 0; i < n; ++i) {
    bool outlier = false;
    scenario.y(i) = stream.next(row.data(), outlier);
    for (Eigen::Index j = 0; j < q; ++j) scenario.X(i, j) = row[static_cast<std::size_t>(j)];
    scenario.planted_outlier[static_cast<std::size_t>(i)] = outlier;
  }
  return scenario;
}

}  // namespace robustfit::data
