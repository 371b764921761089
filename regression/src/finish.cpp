#include "finish.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "consistency.hpp"
#include "least_squares.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "univariate.hpp"

namespace robustfit::regression::detail {

namespace {

constexpr double kExactFitScale = 1e-7;  // robustbase: a scale below this is an exact fit
constexpr double kLmsCutoff = 2.5;       // Rousseeuw & Leroy's rejection point

// Fitted values, residuals, standardized residuals, 0/1 weights and outlier flags of the
// final coefficients; with scale 0 (exact fit) the points off the fit are the outliers.
void describe_final_fit(const ModelData& data, double cutoff, FitResult& result) {
  result.fitted = data.X * result.coefficients;
  result.residuals = data.y - result.fitted;
  const auto n = static_cast<Eigen::Index>(data.n());
  result.standardized_residuals.resize(n);
  result.weights.resize(n);
  result.outlier.assign(data.n(), false);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double r = result.residuals(i);
    const bool inlier = result.scale > 0 ? std::abs(r / result.scale) <= cutoff : std::abs(r) <= kExactFitScale;
    result.standardized_residuals(i) = result.scale > 0 ? r / result.scale : 0.0;
    result.weights(i) = inlier ? 1.0 : 0.0;
    result.outlier[static_cast<std::size_t>(i)] = !inlier;
  }
}

void set_common(const ModelData& data, std::size_t h, FitResult& result) {
  result.n = data.n();
  result.p = data.p();
  result.h = h;
  result.intercept = data.intercept;
}

std::vector<double> squares(const Eigen::VectorXd& v) {
  std::vector<double> out(static_cast<std::size_t>(v.size()));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = v(static_cast<Eigen::Index>(i)) * v(static_cast<Eigen::Index>(i));
  return out;
}

Eigen::VectorXd ls_or_throw(const std::optional<Eigen::VectorXd>& beta, const char* what) {
  if (!beta) throw std::runtime_error(std::string("the ") + what + " is rank deficient; no unique least-squares fit");
  return *beta;
}

}  // namespace

void finish_lts(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, double alpha,
                bool reweight, FitResult& result) {
  set_common(data, h, result);
  result.method = Method::lts;
  const std::size_t n = data.n(), p = data.p();
  // As robustbase: the raw coefficients are the LS fit on the best h-subset.
  const HSubset subset = smallest_h(data.y - data.X * beta, h);
  result.raw_coefficients = ls_on_rows(data.X, data.y, subset.rows).value_or(beta);
  result.best_subset = subset.rows;
  const Eigen::VectorXd raw_residuals = data.y - data.X * result.raw_coefficients;
  result.objective = smallest_h(raw_residuals, h).objective;

  const double hd = static_cast<double>(h);
  const double s_h = std::sqrt(result.objective / hd);
  const double raw_scale = s_h * trimmed_scale_consistency(hd, n) * lts_small_sample_raw(p, data.intercept, n, alpha);
  const double cutoff = qnorm(0.9875);
  result.coefficients = result.raw_coefficients;
  if (raw_scale < kExactFitScale) {
    result.raw_scale = result.scale = 0;
  } else {
    result.raw_scale = result.scale = raw_scale;
    if (reweight) {
      Eigen::VectorXd weights(static_cast<Eigen::Index>(n));
      for (Eigen::Index i = 0; i < weights.size(); ++i) weights(i) = std::abs(raw_residuals(i) / raw_scale) <= cutoff ? 1.0 : 0.0;
      const double sum_w = weights.sum();
      result.coefficients = ls_or_throw(ls_weighted01(data.X, data.y, weights), "reweighted design");
      const Eigen::VectorXd r = data.y - data.X * result.coefficients;
      double scale = std::sqrt((weights.array() * r.array().square()).sum() / (sum_w - 1));
      if (sum_w < static_cast<double>(n))
        scale *= trimmed_scale_consistency(sum_w, n) * lts_small_sample_reweighted(p, data.intercept, n, alpha);
      result.scale = scale;
    }
  }
  describe_final_fit(data, cutoff, result);

  // robustbase's robust R^2: with an intercept, 1 - (s_h / the raw univariate MCD scale of y)^2;
  // without, 1 - (sum of the h smallest final r^2) / (sum of the h smallest y^2).
  double ratio;
  if (data.intercept) {
    const std::vector<double> y(data.y.data(), data.y.data() + n);
    ratio = s_h * s_h / min_window_variance(y, h);
  } else {
    std::vector<double> r2 = squares(result.residuals), y2 = squares(data.y);
    ratio = trimmed_sum_inplace(r2, h) / trimmed_sum_inplace(y2, h);
  }
  result.r_squared = std::isfinite(ratio) ? std::clamp(1 - ratio, 0.0, 1.0) : 0.0;
}

void finish_lms(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, FitResult& result) {
  set_common(data, h, result);
  result.method = Method::lms;
  const std::size_t n = data.n(), p = data.p();
  result.raw_coefficients = beta;
  const Eigen::VectorXd raw_residuals = data.y - data.X * beta;
  std::vector<double> r2 = squares(raw_residuals);
  result.objective = selection::kth_smallest<double>(r2, h - 1);
  result.best_subset = smallest_h(raw_residuals, h).rows;

  const double nd = static_cast<double>(n), hd = static_cast<double>(h);
  const double raw_scale = (1 + 5 / (nd - static_cast<double>(p))) * std::sqrt(result.objective) / qnorm((nd + hd) / (2 * nd));
  result.coefficients = beta;
  if (raw_scale < kExactFitScale) {
    result.raw_scale = result.scale = 0;
  } else {
    result.raw_scale = raw_scale;
    Eigen::VectorXd weights(static_cast<Eigen::Index>(n));
    for (Eigen::Index i = 0; i < weights.size(); ++i) weights(i) = std::abs(raw_residuals(i) / raw_scale) <= kLmsCutoff ? 1.0 : 0.0;
    const double sum_w = weights.sum();
    result.scale = raw_scale;
    if (sum_w > static_cast<double>(p)) {
      result.coefficients = ls_weighted01(data.X, data.y, weights).value_or(beta);
      const Eigen::VectorXd r = data.y - data.X * result.coefficients;
      result.scale = std::sqrt((weights.array() * r.array().square()).sum() / (sum_w - static_cast<double>(p)));
    }
  }
  describe_final_fit(data, kLmsCutoff, result);

  // Rousseeuw & Leroy's LMS R^2 for coverage h: 1 - objective / (the same criterion for y alone:
  // its univariate LMS about the best location with an intercept, about 0 without).
  std::vector<double> y(data.y.data(), data.y.data() + n);
  double denominator;
  if (data.intercept) {
    const double half = shortest_window_inplace(y, h).half_width;
    denominator = half * half;
  } else {
    std::vector<double> y2 = squares(data.y);
    denominator = selection::kth_smallest<double>(y2, h - 1);
  }
  const double ratio = result.objective / denominator;
  result.r_squared = std::isfinite(ratio) ? std::clamp(1 - ratio, 0.0, 1.0) : 0.0;
}

void finish_ls(const ModelData& data, FitResult& result) {
  set_common(data, data.n(), result);
  result.method = Method::ls;
  result.coefficients = result.raw_coefficients = ls_or_throw(ls_on_rows(data.X, data.y, {}), "design matrix");
  const Eigen::VectorXd r = data.y - data.X * result.coefficients;
  result.objective = r.squaredNorm();
  result.scale = result.raw_scale = std::sqrt(result.objective / static_cast<double>(data.n() - data.p()));
  const double total = data.intercept ? (data.y.array() - data.y.mean()).square().sum() : data.y.squaredNorm();
  result.r_squared = total > 0 ? std::clamp(1 - result.objective / total, 0.0, 1.0) : 0.0;
  // LS flags no outliers: every row keeps weight 1 (the standardized residuals are reported).
  result.fitted = data.X * result.coefficients;
  result.residuals = r;
  result.standardized_residuals = result.scale > 0 ? Eigen::VectorXd(r / result.scale) : Eigen::VectorXd::Zero(r.size());
  result.weights = Eigen::VectorXd::Ones(r.size());
  result.outlier.assign(data.n(), false);
  result.best_subset.resize(data.n());
  for (std::size_t i = 0; i < data.n(); ++i) result.best_subset[i] = i;
}

}  // namespace robustfit::regression::detail
