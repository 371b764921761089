#include "inference.hpp"

#include <Eigen/QR>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "robustfit/common/parallel.hpp"
#include "all_rows.hpp"
#include "least_squares.hpp"

namespace robustfit::regression::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two-sided p-value of a t statistic on df degrees of freedom (NaN where undefined).
double t_p_value(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  if (std::isinf(t)) return 0.0;
  return 2 * boost::math::cdf(boost::math::complement(boost::math::students_t_distribution<double>(df), std::abs(t)));
}

double f_p_value(double f, double df1, double df2) {
  if (!(df1 > 0) || !(df2 > 0) || std::isnan(f)) return kNaN;
  if (std::isinf(f)) return 0.0;
  return boost::math::cdf(boost::math::complement(boost::math::fisher_f_distribution<double>(df1, df2), f));
}

// Whether this part's kept rows (w > 0, counts[c] in row chunk c) are `factored`'s rows: a
// parallel comparison, without listing them.
bool same_rows(const Eigen::VectorXd& w, std::span<const std::size_t> counts, const FactoredRows& factored) {
  const auto n = static_cast<std::size_t>(w.size());
  std::vector<std::size_t> offsets(counts.size() + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  if (factored.all) return offsets.back() == n;
  if (offsets.back() != factored.rows.size()) return false;
  std::vector<char> same(counts.size(), 1);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    const std::size_t* row = factored.rows.data() + offsets[c];
    for (std::size_t i = begin; i < end; ++i)
      if (w(static_cast<Eigen::Index>(i)) > 0 && *row++ != i) {
        same[c] = 0;
        return;
      }
  });
  return std::ranges::all_of(same, [](char s) { return s != 0; });
}

// The stacked factors of the kept rows over all parts: `factored`'s when it holds these rows on
// every part (at large n the reweighting's and the final weights' rows usually differ: the
// raw and final scales and residuals move rows across the cutoff), else their TSQR, with the
// kept rows listed in `factored`'s row list's memory where there is one.
Eigen::MatrixXd kept_factors(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& w,
                             std::span<const std::size_t> counts, FactoredRows* factored) {
  common::RowList rows;
  if (factored) {
    double same = same_rows(w, counts, *factored) ? 1 : 0;
    all.min(std::span<double>(&same, 1));
    if (same > 0) return factored->stacked;
    rows = std::move(factored->rows);
  }
  common::gather_rows_into(rows, data.n(), counts, [&](std::size_t, std::size_t begin, std::size_t end, std::size_t* out) {
    for (std::size_t i = begin; i < end; ++i)
      if (w(static_cast<Eigen::Index>(i)) > 0) *out++ = i;
  });
  return stacked_factors_of_rows(all, data.X, data.y, rows);
}

// diag((X_w' X_w)^-1) from the R factor of the kept rows (TSQR, as ls_on_rows factors them);
// NaN when those rows are rank deficient (summary.lts would report fewer coefficients).
Eigen::VectorXd unscaled_variances(const ModelData& data, const RowReductions& all, const Eigen::VectorXd& w,
                                   std::span<const std::size_t> counts, std::size_t kept, FactoredRows* factored) {
  const Eigen::Index p = data.X.cols();
  if (kept < data.p()) return Eigen::VectorXd::Constant(p, kNaN);
  const Eigen::MatrixXd stacked = kept_factors(data, all, w, counts, factored);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(stacked.leftCols(p));
  if (qr.rank() < p) return Eigen::VectorXd::Constant(p, kNaN);
  // (X'X)^-1 = P R^-1 R^-T P': the permutation only reorders the diagonal.
  const Eigen::MatrixXd R = qr.matrixR().topLeftCorner(p, p).triangularView<Eigen::Upper>();
  const Eigen::MatrixXd R_inverse =
      R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p, p));
  const Eigen::VectorXd permuted = R_inverse.rowwise().squaredNorm();
  Eigen::VectorXd variances(p);
  for (Eigen::Index j = 0; j < p; ++j) variances(qr.colsPermutation().indices()(j)) = permuted(j);
  return variances;
}

}  // namespace

void add_inference(const ModelData& data, FitResult& result) { add_inference(data, RowReductions{}, result); }

void add_inference(const ModelData& data, const RowReductions& all, FitResult& result, FactoredRows* factored) {
  const Eigen::VectorXd& w = result.weights;
  const Eigen::VectorXd& r = result.residuals;
  const Eigen::VectorXd& f = result.fitted;
  const std::size_t n = data.n();
  // One pass over the row chunks for the kept rows' count, rss and sum w f (with an intercept:
  // the weighted mean's) or sum w f^2 (without: mss); each chunk's sums are Eigen sums over its
  // segments, added in chunk order (sum_over_row_chunks' numbers: below 65536 rows the serial sums).
  const std::size_t chunks = common::row_chunk_count(n);
  std::vector<std::size_t> counts(chunks);
  std::vector<std::array<double, 2>> sums(chunks);
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    std::size_t count = 0;
    for (Eigen::Index i = b; i < b + m; ++i) count += w(i) > 0 ? 1 : 0;
    counts[c] = count;
    const auto wc = w.segment(b, m).array();
    const auto fc = f.segment(b, m).array();
    sums[c] = {(wc * r.segment(b, m).array().square()).sum(), data.intercept ? (wc * fc).sum() : (wc * fc.square()).sum()};
  });
  double chunk_rss = 0, chunk_second = 0;
  for (const auto& s : sums) {
    chunk_rss += s[0];
    chunk_second += s[1];
  }
  const std::size_t kept = all.total(std::accumulate(counts.begin(), counts.end(), std::size_t{0}));
  const auto n_w = static_cast<double>(kept);
  const auto p = static_cast<double>(data.p());
  const double df = n_w - p;
  Inference& inference = result.inference;
  inference = Inference{};
  inference.df = df > 0 ? kept - data.p() : 0;

  const double rss = all.sum(chunk_rss);
  double mss;
  if (data.intercept) {
    const double mean = all.sum(chunk_second) / n_w;
    mss = all.sum(sum_over_row_chunks(n, [&](Eigen::Index b, Eigen::Index m) {
      return (w.segment(b, m).array() * (f.segment(b, m).array() - mean).square()).sum();
    }));
  } else {
    mss = all.sum(chunk_second);
  }
  const double variance = df > 0 ? rss / df : kNaN;
  inference.sigma = std::sqrt(variance);

  const Eigen::VectorXd unscaled = unscaled_variances(data, all, w, counts, kept, factored);
  for (Eigen::Index j = 0; j < result.coefficients.size(); ++j) {
    CoefficientInference c;
    c.estimate = result.coefficients(j);
    c.std_error = std::sqrt(unscaled(j) * variance);
    c.t_value = c.estimate / c.std_error;
    c.p_value = t_p_value(c.t_value, df);
    inference.coefficients.push_back(c);
  }

  const double intercept = data.intercept ? 1 : 0;
  const double numerator_df = p - intercept;
  if (numerator_df > 0) {
    inference.multiple_r_squared = mss / (mss + rss);
    inference.adj_r_squared = df > 0 ? 1 - (1 - inference.multiple_r_squared) * ((n_w - intercept) / df) : kNaN;
    inference.f_numerator_df = data.p() - (data.intercept ? 1 : 0);
    inference.f_statistic = (mss / numerator_df) / variance;
    inference.f_p_value = f_p_value(*inference.f_statistic, numerator_df, df);
  }
}

}  // namespace robustfit::regression::detail
