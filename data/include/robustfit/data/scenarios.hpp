#pragma once
// Outlier-contaminated regression scenarios of docs/BENCHMARKS.md, generated reproducibly.
// Model: y = beta0 + sum_j beta_j x_j + sigma e, x ~ N(0, I_q), e ~ N(0, 1), beta = (1, ..., 1)
// by default. ScenarioStream produces the rows one at a time (constant memory, any n);
// make_scenario collects the same rows into memory: both give the same numbers.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "robustfit/common/random.hpp"

namespace robustfit::data {

enum class Contamination {
  none,           // "clean": no row contaminated (epsilon must be 0)
  vertical,       // y shifted by U(shift_min, shift_max)
  bad_leverage,   // x1 moved to a tight cluster far out, y placed off the model
  good_leverage,  // x1 far out, y on the model (not outliers of the fit)
  heavy_tails,    // Cauchy (or Student t) errors on the contaminated fraction
  mixed,          // half bad leverage, half vertical
};

std::string_view to_string(Contamination contamination);     // "clean", "vertical", "bad_leverage", ...
Contamination parse_contamination(std::string_view name);  // '-' read as '_'; throws std::invalid_argument

// Every parameter of a scenario; the defaults are those of docs/BENCHMARKS.md.
struct ScenarioSpec {
  std::size_t n = 1000;
  std::size_t q = 2;           // predictors (the intercept is extra)
  double epsilon = 0.0;        // contaminated fraction, in [0, 0.5); round(epsilon n) rows
  Contamination contamination = Contamination::vertical;
  std::uint64_t seed = 1;

  std::vector<double> beta;    // q + 1 true coefficients, intercept first; empty: all ones
  double sigma = 1.0;          // sd of the clean rows' errors (> 0)
  double shift_min = 10.0;     // vertical: y += U(shift_min, shift_max)
  double shift_max = 100.0;
  double leverage_x = 10.0;        // bad leverage: x1 ~ N(leverage_x, leverage_spread^2),
  double leverage_spread = 0.5;    //   y = model + leverage_offset + N(0, leverage_y_spread^2)
  double leverage_offset = -20.0;
  double leverage_y_spread = 0.5;
  double good_leverage_min = 10.0;  // good leverage: x1 = +-U(min, max), y on the model
  double good_leverage_max = 20.0;
  double t_df = 0.0;           // heavy tails: 0 = standard Cauchy errors, else Student t with t_df
                               // degrees of freedom (times sigma either way)
};

// Throws std::invalid_argument naming the bad field (epsilon outside [0, 0.5), n = 0, beta of
// the wrong length, sigma <= 0, an empty shift range, ...).
void validate(const ScenarioSpec& spec);

// The true coefficients of a spec (spec.beta, or q + 1 ones).
Eigen::VectorXd true_coefficients(const ScenarioSpec& spec);

// Rows of a scenario in order, one at a time. Three independent streams of the seed: clean data
// (stream 0), the choice of contaminated rows (stream 1), the contamination values (stream 2).
// So for one (n, q, seed) the clean rows are the same for every epsilon and contamination type,
// and for one epsilon the same rows are contaminated by every type.
class ScenarioStream {
 public:
  explicit ScenarioStream(const ScenarioSpec& spec);  // validates

  // Writes the next row's q predictors to x and returns its y; `outlier` says whether the row is
  // a planted outlier. Call at most spec.n times.
  double next(double* x, bool& outlier);

  std::size_t rows_done() const { return row_; }
  std::size_t contaminated_rows() const { return contaminated_; }  // round(epsilon n)
  const Eigen::VectorXd& beta() const { return beta_; }
  const ScenarioSpec& spec() const { return spec_; }

 private:
  double model(const double* x) const;
  double heavy_tail_error();

  ScenarioSpec spec_;
  Eigen::VectorXd beta_;
  std::size_t contaminated_ = 0;
  std::size_t row_ = 0;
  std::size_t still_to_choose_ = 0;      // selection sampling over the rows (stream 1)
  std::size_t chosen_so_far_ = 0;
  std::size_t leverage_still_to_choose_ = 0;  // mixed: which chosen rows are bad leverage
  common::Random clean_, picker_, mix_picker_, noise_;
};

struct Scenario {
  Eigen::MatrixXd X;                 // n x q
  Eigen::VectorXd y;                 // n
  Eigen::VectorXd beta;              // true coefficients, intercept first (q + 1)
  std::vector<bool> planted_outlier; // the rows contaminated as outliers of the model
};

// The whole ScenarioStream in memory.
Scenario make_scenario(const ScenarioSpec& spec);

}  // namespace robustfit::data
