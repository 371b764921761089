#include "all_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::regression::detail {

namespace {

Eigen::Index index(std::size_t i) { return static_cast<Eigen::Index>(i); }

// Regular sample of the values, and the margin (in sample ranks) that brackets a rank of the
// full data with near certainty for data in any non-adversarial order (8 sigma).
constexpr std::size_t kSample = 65536;
constexpr std::size_t kMargin = 1024;

struct Bracket {
  double low, high;
};

// Sample order statistics around k's place; -inf / +inf where the margin runs off the sample
// (or for a NaN in the sample: the pass over all values then finds it).
Bracket bracket_rank(std::span<const double> values, std::size_t k) {
  const std::size_t n = values.size(), s = std::min(kSample, n);
  std::vector<double> sample(s);
  for (std::size_t i = 0; i < s; ++i) sample[i] = values[i * n / s];
  const std::size_t centre = static_cast<std::size_t>(static_cast<double>(k) / static_cast<double>(n) * static_cast<double>(s));
  constexpr double inf = std::numeric_limits<double>::infinity();
  Bracket bracket{-inf, inf};
  if (std::any_of(sample.begin(), sample.end(), [](double v) { return std::isnan(v); })) return bracket;
  if (centre >= kMargin) bracket.low = selection::kth_smallest_inplace<double>(sample, centre - kMargin);
  if (centre + kMargin < s) bracket.high = selection::kth_smallest_inplace<double>(sample, centre + kMargin);
  return bracket;
}

}  // namespace

Fit fit_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta) {
  Fit fit{Eigen::VectorXd(X.rows()), Eigen::VectorXd(X.rows())};
  parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    fit.fitted.segment(b, m).noalias() = X.middleRows(b, m) * beta;
    fit.residuals.segment(b, m) = y.segment(b, m) - fit.fitted.segment(b, m);
  });
  return fit;
}

Eigen::VectorXd residuals_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta) {
  Eigen::VectorXd r(X.rows());
  parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    r.segment(b, m).noalias() = y.segment(b, m) - X.middleRows(b, m) * beta;
  });
  return r;
}

Eigen::VectorXd squares_of(const Eigen::VectorXd& v) {
  Eigen::VectorXd out(v.size());
  parallel_rows(static_cast<std::size_t>(v.size()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    out.segment(b, m) = v.segment(b, m).array().square();
  });
  return out;
}

double kth_smallest_parallel(std::span<const double> values, std::size_t k) {
  const std::size_t n = values.size(), chunks = row_chunk_count(n);
  if (chunks == 1 || k >= n) return selection::kth_smallest<double>(values, k);
  const Bracket bracket = bracket_rank(values, k);
  std::vector<std::size_t> below(chunks), inside(chunks);
  std::vector<std::uint8_t> nan(chunks);
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t low = 0, in = 0;
    bool any_nan = false;
    for (std::size_t i = begin; i < end; ++i) {
      const double v = values[i];
      low += v < bracket.low;
      in += v >= bracket.low && v <= bracket.high;
      any_nan = any_nan || std::isnan(v);
    }
    below[c] = low;
    inside[c] = in;
    nan[c] = any_nan;
  });
  std::size_t low = 0, in = 0;
  for (std::size_t c = 0; c < chunks; ++c) low += below[c], in += inside[c];
  const bool bracketed = low <= k && k < low + in;
  if (!bracketed || std::find(nan.begin(), nan.end(), 1) != nan.end()) return selection::kth_smallest<double>(values, k);
  // The order statistics low .. low + in - 1 are the values inside the bracket.
  std::vector<double> candidates(in);
  std::vector<std::size_t> offsets(chunks, 0);
  std::partial_sum(inside.begin(), inside.end() - 1, offsets.begin() + 1);
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    double* out = candidates.data() + offsets[c];
    for (std::size_t i = begin; i < end; ++i)
      if (values[i] >= bracket.low && values[i] <= bracket.high) *out++ = values[i];
  });
  return selection::kth_smallest_inplace<double>(candidates, k - low);
}

SmallestRows smallest_h_rows(const Eigen::VectorXd& squares, std::size_t h) {
  const auto n = static_cast<std::size_t>(squares.size()), chunks = row_chunk_count(n);
  SmallestRows result;
  result.threshold = kth_smallest_parallel(std::span<const double>(squares.data(), n), h - 1);
  const double t = result.threshold;
  std::vector<std::size_t> below(chunks), equal(chunks);
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    std::size_t low = 0, tied = 0;
    for (std::size_t i = begin; i < end; ++i) {
      low += squares(index(i)) < t;
      tied += squares(index(i)) == t;
    }
    below[c] = low;
    equal[c] = tied;
  });
  // Rows below t, plus the first (h - #below) rows equal to t in row order: hand the ties out
  // to the chunks in order.
  std::size_t ties = h;
  for (std::size_t c = 0; c < chunks; ++c) ties -= below[c];
  std::vector<std::size_t> counts(chunks), chunk_ties(chunks);
  for (std::size_t c = 0; c < chunks; ++c) {
    chunk_ties[c] = std::min(ties, equal[c]);
    ties -= chunk_ties[c];
    counts[c] = below[c] + chunk_ties[c];
  }
  result.rows = gather_rows(n, counts, [&](std::size_t c, std::size_t begin, std::size_t end, std::size_t* out) {
    std::size_t left = chunk_ties[c];
    for (std::size_t i = begin; i < end; ++i) {
      const double v = squares(index(i));
      if (v < t || (v == t && left > 0 && left--)) *out++ = i;
    }
  });
  return result;
}

double trimmed_sum_parallel(const Eigen::VectorXd& values, std::size_t h) {
  const auto n = static_cast<std::size_t>(values.size()), chunks = row_chunk_count(n);
  const double t = kth_smallest_parallel(std::span<const double>(values.data(), n), h - 1);
  std::vector<double> sums(chunks);
  std::vector<std::size_t> counts(chunks);
  parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i)
      if (values(index(i)) < t) {
        sum += values(index(i));
        ++count;
      }
    sums[c] = sum;
    counts[c] = count;
  });
  double below = 0;
  std::size_t count = 0;
  for (std::size_t c = 0; c < chunks; ++c) below += sums[c], count += counts[c];
  return below + static_cast<double>(h - count) * t;
}

}  // namespace robustfit::regression::detail
