#include "finish.hpp"

#include <algorithm>
#include <limits>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "all_rows.hpp"
#include "consistency.hpp"
#include "inference.hpp"
#include "least_squares.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"
#include "robustfit/selection/cpu_sort.hpp"
#include "stopwatch.hpp"
#include "univariate.hpp"

namespace robustfit::regression::detail {

using common::parallel_rows;
using selection::kth_smallest_parallel;
using selection::smallest_h_parallel;
using selection::sort_parallel;

namespace {

constexpr double kExactFitScale = 1e-7;  // robustbase: a scale below this is an exact fit
constexpr double kLmsCutoff = 2.5;       // Rousseeuw & Leroy's rejection point

Eigen::Index index(std::size_t i) { return static_cast<Eigen::Index>(i); }

// The final fit's fitted values and residuals (moved into `result`), standardized residuals,
// 0/1 weights and outlier flags; with scale 0 (exact fit) the points off the fit are the
// outliers. Row chunks start at multiples of 4096: none shares a word of `outlier`. The weights
// and standardized residuals are written over vectors the finish no longer needs, where given
// (no fresh pages at large n).
void describe_final_fit(Fit fit, double cutoff, FitResult& result, Eigen::VectorXd spare_weights = {},
                        Eigen::VectorXd spare_standardized = {}) {
  result.fitted = std::move(fit.fitted);
  result.residuals = std::move(fit.residuals);
  const auto n = static_cast<std::size_t>(result.residuals.size());
  result.standardized_residuals = std::move(spare_standardized);
  result.standardized_residuals.resize(index(n));
  result.weights = std::move(spare_weights);
  result.weights.resize(index(n));
  result.outlier.assign(n, false);
  const double scale = result.scale;
  parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const double r = result.residuals(index(i));
      const bool inlier = scale > 0 ? std::abs(r / scale) <= cutoff : std::abs(r) <= kExactFitScale;
      result.standardized_residuals(index(i)) = scale > 0 ? r / scale : 0.0;
      result.weights(index(i)) = inlier ? 1.0 : 0.0;
      result.outlier[i] = !inlier;
    }
  });
}

void set_common(const ModelData& data, const RowReductions& all, std::size_t h, FitResult& result) {
  result.n = all.total(data.n());
  result.p = data.p();
  result.h = h;
  result.intercept = data.intercept;
}

// 0/1 weights |r / scale| <= cutoff and the rows they keep.
struct Reweighting {
  Eigen::VectorXd weights;
  common::RowList rows;
};

// The weights go over `spare` (a vector the finish no longer needs) and are counted per row
// chunk in the same pass; a second pass lists the rows, in room for all n (untouched pages cost
// nothing) so that inference can list its kept rows there.
Reweighting reweighting(const Eigen::VectorXd& residuals, double scale, double cutoff, Eigen::VectorXd spare = {}) {
  const auto n = static_cast<std::size_t>(residuals.size());
  Reweighting w{std::move(spare), {}};
  w.weights.resize(residuals.size());
  std::vector<std::size_t> counts(common::row_chunk_count(n));
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const bool keep = std::abs(residuals(index(i)) / scale) <= cutoff;
      w.weights(index(i)) = keep ? 1.0 : 0.0;
      count += keep ? 1 : 0;
    }
    counts[c] = count;
  });
  w.rows.reserve(n);
  common::gather_rows_into(w.rows, n, counts, [&](std::size_t, std::size_t begin, std::size_t end, std::size_t* out) {
    for (std::size_t i = begin; i < end; ++i)
      if (w.weights(index(i)) > 0) *out++ = i;
  });
  return w;
}

// LS on this part's `rows` over all parts (ls_on_rows: none when fewer than p rows or rank
// deficient), with the factors it solved from: add_inference reuses them for the same rows
// (the caller records them in `factored`).
struct RowsFit {
  FactoredRows factored;
  std::optional<Eigen::VectorXd> beta;
};

RowsFit ls_with_factors(const ModelData& data, const RowReductions& all, std::span<const std::size_t> rows) {
  const std::size_t m = all.total(rows.size());
  RowsFit fit{{{}, false, stacked_factors_of_rows(all, data.X, data.y, rows)}, std::nullopt};
  if (m >= data.p()) fit.beta = ls_of_factors(fit.factored.stacked, m);
  return fit;
}

// Whether `rows` are the rows of the h smallest `values` over all parts, as all.smallest_h would
// select them: exactly h values at or below the largest of them (a tie outside or a NaN says
// no). Two light passes, where a selection takes three: the raw fit rarely moves the best
// subset of the search's coefficients.
bool still_smallest(const RowReductions& all, const Eigen::VectorXd& values, std::span<const std::size_t> rows,
                    std::size_t h) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // The largest value in `rows`, a NaN as +inf (then every row counts); maxima are exact in any order.
  std::vector<double> largest(common::row_chunk_count(rows.size()), -kInf);
  parallel_rows(rows.size(), [&](std::size_t c, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const double v = values(index(rows[k]));
      largest[c] = std::isnan(v) ? kInf : std::max(largest[c], v);
    }
  });
  double t = *std::max_element(largest.begin(), largest.end());
  all.max(std::span<double>(&t, 1));
  const auto n = static_cast<std::size_t>(values.size());
  std::vector<std::size_t> counts(common::row_chunk_count(n));
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i) count += !(values(index(i)) > t);  // NaN counts
    counts[c] = count;
  });
  return all.total(std::accumulate(counts.begin(), counts.end(), std::size_t{0})) == h;
}

Eigen::VectorXd ls_or_throw(const std::optional<Eigen::VectorXd>& beta, const char* what) {
  if (!beta) throw std::runtime_error(std::string("the ") + what + " is rank deficient; no unique least-squares fit");
  return *beta;
}

}  // namespace

void finish_lts(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& beta, std::size_t h,
                double alpha, bool reweight, FitResult& result, std::optional<double> y_window_variance) {
  Stopwatch trace_watch;
  set_common(data, all, h, result);
  result.method = Method::lts;
  const std::size_t n = result.n, p = data.p();
  // As robustbase: the raw coefficients are the LS fit on the best h-subset.
  Eigen::VectorXd raw_squares = squared_residuals_of(data.X, data.y, beta);  // the search's until fit_into
  std::vector<std::size_t> subset = all.smallest_h(raw_squares, h);
  trace("finish smallest_h", trace_watch.lap());
  result.raw_coefficients = ls_on_rows(all, data.X, data.y, subset).value_or(beta);
  trace("finish ls_on_rows", trace_watch.lap());
  result.best_subset = std::move(subset);
  Fit fit;
  fit_into(data.X, data.y, result.raw_coefficients, fit, &raw_squares);
  trace("finish fit_of", trace_watch.lap());
  result.objective = all.sum(still_smallest(all, raw_squares, result.best_subset, h)
                                 ? sum_at(raw_squares, result.best_subset)
                                 : sum_at(raw_squares, all.smallest_h(raw_squares, h)));
  trace("finish objective", trace_watch.lap());
  Eigen::VectorXd spare = std::move(raw_squares), spare_standardized;  // memory for the weights, then the result's

  const double hd = static_cast<double>(h);
  const double s_h = std::sqrt(result.objective / hd);
  // h = n (alpha = 1) trims nothing: robustbase's ltsReg then fits LS with the unbiased scale.
  const double raw_scale = h == n ? std::sqrt(result.objective / static_cast<double>(n - p))
                                  : s_h * trimmed_scale_consistency(hd, n) * lts_small_sample_raw(p, data.intercept, n, alpha);
  const double cutoff = qnorm(0.9875);
  result.coefficients = result.raw_coefficients;
  std::optional<FactoredRows> kept;  // the reweighted fit's rows and factors
  if (raw_scale < kExactFitScale) {
    result.raw_scale = result.scale = 0;
    result.exact_fit = true;
  } else {
    result.raw_scale = result.scale = raw_scale;
    if (reweight) {
      Reweighting w = reweighting(fit.residuals, raw_scale, cutoff, std::move(spare));
      const auto sum_w = static_cast<double>(all.total(w.rows.size()));
      trace("finish reweighting", trace_watch.lap());
      RowsFit kept_fit = ls_with_factors(data, all, w.rows);
      result.coefficients = ls_or_throw(kept_fit.beta, "reweighted design");
      kept = std::move(kept_fit.factored);
      kept->rows = std::move(w.rows);
      trace("finish ls_on_kept", trace_watch.lap());
      // Over the raw fit, used up; sum w r^2 from the pass's products (fit_into: Eigen's bits).
      Eigen::VectorXd weighted_squares;
      fit_into(data.X, data.y, result.coefficients, fit, &weighted_squares, &w.weights);
      trace("finish fit_of 2", trace_watch.lap());
      double scale = std::sqrt(all.sum(weighted_squares.sum()) / (sum_w - 1));
      if (sum_w < static_cast<double>(n))
        scale *= trimmed_scale_consistency(sum_w, n) * lts_small_sample_reweighted(p, data.intercept, n, alpha);
      result.scale = scale;
      spare = std::move(w.weights);
      spare_standardized = std::move(weighted_squares);
    }
  }
  trace("finish scale", trace_watch.lap());
  describe_final_fit(std::move(fit), cutoff, result, std::move(spare), std::move(spare_standardized));
  trace("finish describe", trace_watch.lap());

  // robustbase's robust R^2: with an intercept, 1 - (s_h / the raw univariate MCD scale of y)^2;
  // without, 1 - (sum of the h smallest final r^2) / (sum of the h smallest y^2).
  const auto y_scale = [&] { return y_window_variance ? *y_window_variance : all.min_window_variance(data.y, h); };
  const double ratio = data.intercept ? s_h * s_h / y_scale()
                                      : all.trimmed_sum(squares_of(result.residuals), h) /
                                            all.trimmed_sum(squares_of(data.y), h);
  result.r_squared = std::isfinite(ratio) ? std::clamp(1 - ratio, 0.0, 1.0) : 0.0;
  trace("finish r_squared", trace_watch.lap());
  add_inference(data, all, result, kept ? &*kept : nullptr);
  trace("finish inference", trace_watch.lap());
}

void finish_lts(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, double alpha, bool reweight,
                FitResult& result) {
  finish_lts(data, RowReductions{}, beta, h, alpha, reweight, result);
}

void finish_lms(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& beta, std::size_t h,
                FitResult& result) {
  set_common(data, all, h, result);
  result.method = Method::lms;
  const std::size_t n = result.n, p = data.p();
  result.raw_coefficients = beta;
  Eigen::VectorXd squares;
  Fit fit = fit_of(data.X, data.y, beta, &squares);
  const std::size_t rank[] = {h - 1};
  result.best_subset = all.smallest_h(squares, h);
  // The h-th smallest r^2: the largest of the h smallest (no selection of its own).
  double largest = -std::numeric_limits<double>::infinity();
  for (const std::size_t i : result.best_subset) largest = std::max(largest, squares(index(i)));
  all.max(std::span<double>(&largest, 1));
  result.objective = largest;

  const double nd = static_cast<double>(n), hd = static_cast<double>(h);
  const double raw_scale = (1 + 5 / (nd - static_cast<double>(p))) * std::sqrt(result.objective) / qnorm((nd + hd) / (2 * nd));
  result.coefficients = beta;
  std::optional<FactoredRows> kept;  // the reweighted fit's rows and factors
  if (raw_scale < kExactFitScale) {
    result.raw_scale = result.scale = 0;
    result.exact_fit = true;
  } else {
    result.raw_scale = raw_scale;
    Reweighting w = reweighting(fit.residuals, raw_scale, kLmsCutoff, std::move(squares));  // squares: used up
    const auto sum_w = static_cast<double>(all.total(w.rows.size()));
    result.scale = raw_scale;
    if (sum_w > static_cast<double>(p)) {
      RowsFit kept_fit = ls_with_factors(data, all, w.rows);
      result.coefficients = kept_fit.beta.value_or(beta);
      kept = std::move(kept_fit.factored);
      kept->rows = std::move(w.rows);
      Eigen::VectorXd weighted_squares;  // over the raw fit, used up; sum w r^2 as in finish_lts
      fit_into(data.X, data.y, result.coefficients, fit, &weighted_squares, &w.weights);
      result.scale = std::sqrt(all.sum(weighted_squares.sum()) / (sum_w - static_cast<double>(p)));
    }
  }
  describe_final_fit(std::move(fit), kLmsCutoff, result);

  // Rousseeuw & Leroy's LMS R^2 for coverage h: 1 - objective / (the same criterion for y alone:
  // its univariate LMS about the best location with an intercept, about 0 without).
  double denominator;
  if (data.intercept) {
    const auto window = all.shortest_window_below(data.y, h, std::numeric_limits<double>::infinity());
    const double half = window ? window->half_width : std::numeric_limits<double>::infinity();
    denominator = half * half;
  } else {
    denominator = all.kth_smallest_many(squares_of(data.y), rank)[0];
  }
  const double ratio = result.objective / denominator;
  result.r_squared = std::isfinite(ratio) ? std::clamp(1 - ratio, 0.0, 1.0) : 0.0;
  add_inference(data, all, result, kept ? &*kept : nullptr);
}

void finish_lms(const ModelData& data, const Eigen::VectorXd& beta, std::size_t h, FitResult& result) {
  finish_lms(data, RowReductions{}, beta, h, result);
}

void finish_ls(const ModelData& data, FitResult& result) { finish_ls(data, RowReductions{}, result); }

FitResult fit_ls_on(Eigen::Ref<const Eigen::MatrixXd> X, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                    const RowReductions& all, const char* backend) {
  Stopwatch total;
  const ModelData data = make_model_data(X, y, intercept, {}, all);
  FitResult result;
  finish_ls(data, all, result);
  to_original_scale(data, result.coefficients);
  to_original_scale(data, result.raw_coefficients);
  result.backend = backend;
  result.selection = "none";
  result.timings.total_s = result.timings.finish_s = total.lap();
  return result;
}

void finish_ls(const ModelData& data, const RowReductions& all, FitResult& result) {
  set_common(data, all, 0, result);
  result.h = result.n;
  result.method = Method::ls;
  std::vector<std::size_t> every(data.n());
  std::iota(every.begin(), every.end(), std::size_t{0});
  RowsFit ls = ls_with_factors(data, all, every);
  ls.factored.all = true;
  result.coefficients = result.raw_coefficients = ls_or_throw(ls.beta, "design matrix");
  Fit fit = fit_of(data.X, data.y, result.coefficients);
  result.objective = all.sum(fit.residuals.squaredNorm());
  result.scale = result.raw_scale = std::sqrt(result.objective / static_cast<double>(result.n - data.p()));
  // Eigen's mean() is sum() / size(): the same bits in one process.
  const double mean = all.sum(data.y.sum()) / static_cast<double>(result.n);
  const double total = all.sum(data.intercept ? (data.y.array() - mean).square().sum() : data.y.squaredNorm());
  result.r_squared = total > 0 ? std::clamp(1 - result.objective / total, 0.0, 1.0) : 0.0;
  // LS flags no outliers: every row keeps weight 1 (the standardized residuals are reported).
  result.fitted = std::move(fit.fitted);
  result.residuals = std::move(fit.residuals);
  const Eigen::VectorXd& r = result.residuals;
  result.standardized_residuals = result.scale > 0 ? Eigen::VectorXd(r / result.scale) : Eigen::VectorXd::Zero(r.size());
  result.weights = Eigen::VectorXd::Ones(r.size());
  result.outlier.assign(data.n(), false);
  add_inference(data, all, result, &ls.factored);  // weights 1: the same rows
  result.best_subset = std::move(every);
}

}  // namespace robustfit::regression::detail
