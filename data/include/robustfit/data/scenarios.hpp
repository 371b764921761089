#pragma once
// Outlier-contaminated regression scenarios of docs/BENCHMARKS.md, generated reproducibly.
// Model: y = beta0 + sum_j beta_j x_j + e, x ~ N(0, I_q), e ~ N(0, 1), beta = (1, ..., 1).
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace robustfit::data {

enum class Contamination {
  vertical,       // y shifted by +10..+100 sigma
  bad_leverage,   // x1 moved to ~+10 (clustered), y placed off the model
  good_leverage,  // x far out, y on the model (not outliers of the fit)
  heavy_tails,    // Cauchy errors on the contaminated fraction
  mixed,          // a mix of vertical and bad leverage
};

std::string_view to_string(Contamination contamination);
Contamination parse_contamination(std::string_view name);  // throws std::invalid_argument

struct ScenarioSpec {
  std::size_t n = 1000;
  std::size_t q = 2;           // predictors (the intercept is extra)
  double epsilon = 0.0;        // contaminated fraction, in [0, 0.5)
  Contamination contamination = Contamination::vertical;
  std::uint64_t seed = 1;
};

struct Scenario {
  Eigen::MatrixXd X;                 // n x q
  Eigen::VectorXd y;                 // n
  Eigen::VectorXd beta;              // true coefficients, intercept first (q + 1)
  std::vector<bool> planted_outlier; // the rows contaminated as outliers of the model
};

// Deterministic for a given spec (own generator, not std:: distributions).
Scenario make_scenario(const ScenarioSpec& spec);

}  // namespace robustfit::data
