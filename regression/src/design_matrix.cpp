#include "design_matrix.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "robustfit/common/huge_pages.hpp"
#include "robustfit/common/parallel.hpp"
#include "tall_qr.hpp"

namespace robustfit::regression::detail {

namespace {

// Names predictor j in messages.
struct Namer {
  std::span<const std::string> names;
  std::string operator()(Eigen::Index j) const {
    if (static_cast<std::size_t>(j) < names.size()) return "predictor '" + names[static_cast<std::size_t>(j)] + "'";
    return "predictor " + std::to_string(j + 1);
  }
};

void require_finite(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& y,
                    const Namer& predictor) {
  for (Eigen::Index i = 0; i < y.size(); ++i)
    if (!std::isfinite(y(i)))
      throw std::invalid_argument("the response has a non-finite value in row " + std::to_string(i + 1));
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      if (!std::isfinite(X(i, j)))
        throw std::invalid_argument(predictor(j) + " has a non-finite value in row " + std::to_string(i + 1));
}

// What the checks need from one read of the input: finiteness, the range of each predictor
// and the Gram matrix X^T X of the design (intercept column included; lower triangle).
struct DesignScan {
  bool finite = true;
  Eigen::VectorXd min, max;
  Eigen::MatrixXd gram;
  double y_largest = 0;  // max |y|
};

// The scan of this part's rows -> the scan of all rows.
void reduce(DesignScan& scan, const RowReductions& all) {
  double flags[] = {scan.finite ? 0.0 : 1.0};
  all.max(flags);
  scan.finite = flags[0] == 0;
  all.min(std::span<double>(scan.min.data(), static_cast<std::size_t>(scan.min.size())));
  all.max(std::span<double>(scan.max.data(), static_cast<std::size_t>(scan.max.size())));
  all.sum(std::span<double>(scan.gram.data(), static_cast<std::size_t>(scan.gram.size())));
  double largest[] = {scan.y_largest};
  all.max(largest);
  scan.y_largest = largest[0];
}

constexpr std::size_t kScanRows = 2048;  // rows per Gram update: the block stays in cache

// Scans the predictors and y in one parallel pass (the n x p input is read once): row blocks of
// the design (intercept column included, `p` columns) are formed in `into`'s X and y (already
// sized) when given, which then hold the design, else in a per-worker scratch block.
DesignScan scan_design(const Eigen::Ref<const Eigen::MatrixXd>& predictors, const Eigen::Ref<const Eigen::VectorXd>& y,
                       Eigen::Index p, ModelData* into) {
  const Eigen::Index q = predictors.cols(), offset = p - q;
  const auto n = static_cast<std::size_t>(y.size());
  std::vector<DesignScan> parts(common::row_chunk_count(n));
  std::vector<Eigen::MatrixXd> scratch(into ? 0 : common::row_workers(n));
  common::parallel_rows_by_worker(n, [&](unsigned w, std::size_t c, std::size_t begin, std::size_t end) {
    DesignScan& part = parts[c];
    part.min = Eigen::VectorXd::Constant(q, std::numeric_limits<double>::infinity());
    part.max = -part.min;
    part.gram = Eigen::MatrixXd::Zero(p, p);
    if (!into && scratch[w].rows() == 0) scratch[w].resize(static_cast<Eigen::Index>(kScanRows), p);
    for (std::size_t at = begin; at < end; at += kScanRows) {
      const auto b = static_cast<Eigen::Index>(at), m = static_cast<Eigen::Index>(std::min(kScanRows, end - at));
      if (into) into->y.segment(b, m) = y.segment(b, m);
      part.finite = part.finite && y.segment(b, m).allFinite();
      Eigen::Block<Eigen::MatrixXd> rows = into ? into->X.middleRows(b, m) : scratch[w].topRows(m);
      if (offset) rows.col(0).setOnes();
      for (Eigen::Index j = 0; j < q; ++j) {
        auto column = rows.col(j + offset);
        column = predictors.col(j).segment(b, m);
        part.finite = part.finite && column.allFinite();
        part.min(j) = std::min(part.min(j), column.minCoeff());
        part.max(j) = std::max(part.max(j), column.maxCoeff());
      }
      part.gram.selfadjointView<Eigen::Lower>().rankUpdate(rows.transpose());
    }
  });
  DesignScan scan = parts.front();
  for (std::size_t c = 1; c < parts.size(); ++c) {  // in chunk order: independent of the threads
    scan.finite = scan.finite && parts[c].finite;
    scan.min = scan.min.cwiseMin(parts[c].min);
    scan.max = scan.max.cwiseMax(parts[c].max);
    scan.gram += parts[c].gram;
  }
  return scan;
}

// True when X certainly has full column rank by a wide margin: sigma_min(X) / sigma_max(X)
// > 1e-6, bounded from the column-scaled Gram matrix allowing for its rounding (at most n eps
// per scaled entry) and the eigensolver's. The pivoted QR below finds a rank deficiency only
// at ratios near p eps (plus its backward error, far below 1e-6), so it would accept X too.
// Anything less clear-cut (ill-conditioned, a zero column, overflow) is left to the QR.
bool certainly_full_rank(const Eigen::MatrixXd& lower_gram, std::size_t n) {
  constexpr double kRatio = 1e-6;
  const Eigen::MatrixXd gram = lower_gram.selfadjointView<Eigen::Lower>();
  const Eigen::VectorXd d = gram.diagonal().cwiseSqrt();
  if (!gram.allFinite() || !(d.minCoeff() > 0)) return false;
  const Eigen::MatrixXd scaled = d.cwiseInverse().asDiagonal() * gram * d.cwiseInverse().asDiagonal();
  const double lambda = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(scaled, Eigen::EigenvaluesOnly).eigenvalues()(0);
  const double eps = std::numeric_limits<double>::epsilon(), p = static_cast<double>(gram.rows());
  const double slack = 2 * p * (static_cast<double>(n) + p) * eps;
  // sigma_min^2 >= (lambda - slack) d_min^2 and sigma_max^2 <= trace(X^T X) (1 + slack).
  return (lambda - slack) * d.minCoeff() * d.minCoeff() > kRatio * kRatio * d.squaredNorm() * (1 + slack);
}

void require_full_rank(const ModelData& data, const RowReductions& all, std::size_t n, const Eigen::MatrixXd& gram,
                       const Namer& predictor) {
  if (certainly_full_rank(gram, n)) return;
  // Pivoted QR of the blockwise R factors (TSQR): the same singular values and column norms as
  // X itself, at the cost of a parallel blocked QR instead of an unblocked pivoted one.
  const Eigen::MatrixXd local = data.n() == 0 ? Eigen::MatrixXd(0, data.X.cols() + 1)
                                              : stacked_block_factors(data.X, data.y, {});
  Eigen::MatrixXd factors = all.stacked(local).leftCols(data.X.cols());
  // Rank does not change with column scaling, but the QR's threshold is relative to the largest
  // pivot: unit columns so that an intercept beside predictors of size 1e150 is not "zero".
  for (Eigen::Index j = 0; j < factors.cols(); ++j) {
    const double norm = factors.col(j).stableNorm();
    if (norm > 0) factors.col(j) /= norm;
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(factors);
  if (static_cast<std::size_t>(qr.rank()) == data.p()) return;
  // The pivoted QR puts the dependent columns last; name the first of them.
  const Eigen::Index column = qr.colsPermutation().indices()(qr.rank());
  const Eigen::Index offset = data.intercept ? 1 : 0;
  const std::string name = column < offset ? std::string("the intercept") : predictor(column - offset);
  throw std::invalid_argument("the design matrix is rank deficient (rank " + std::to_string(qr.rank()) +
                              " < " + std::to_string(data.p()) + " coefficients): " + name +
                              " is a linear combination of the other columns (collinear predictors)");
}

// Squares and sums of squares must stay finite and normal: every column (and y) whose largest
// magnitude is above 1e152 (squares to 1e304, leaving room for sums of ~1e4 such terms) or,
// when not zero, below 1e-152 (squares under double's smallest normal) is refused.
void require_representable(Eigen::Ref<const Eigen::MatrixXd> predictors, const DesignScan& scan, const Namer& predictor) {
  constexpr double kLargest = 1e152, kSmallest = 1e-152;
  const auto check = [&](double largest, const std::string& name) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", largest);
    if (largest > kLargest)
      throw std::invalid_argument(name + " has values as large as " + text +
                                  ": beyond 1e152 their squares overflow double; rescale the data");
    if (largest > 0 && largest < kSmallest)
      throw std::invalid_argument(name + " has no value larger than " + std::string(text) +
                                  " in magnitude: below 1e-152 their squares underflow double; rescale the data");
  };
  for (Eigen::Index j = 0; j < predictors.cols(); ++j) check(std::max(-scan.min(j), scan.max(j)), predictor(j));
  check(scan.y_largest, "the response");
}

}  // namespace

namespace {

// make_model_data, or with `keep` false its checks alone: then the design is scanned through a
// scratch block and never stored (the CLI checks before the fit; at 10^7 x 11 the copy's 880 MB
// of fresh pages cost ~0.1 s), unless the rank needs the rows' QR.
ModelData prepare_model_data(Eigen::Ref<const Eigen::MatrixXd> predictors, Eigen::Ref<const Eigen::VectorXd> y,
                             bool intercept, std::span<const std::string> names, const RowReductions& all, bool keep) {
  const Namer predictor{names};
  if (predictors.rows() != y.size())
    throw std::invalid_argument("X has " + std::to_string(predictors.rows()) + " rows but y has " +
                                std::to_string(y.size()) + " values");
  // Before the scan: its Gram update on an n x 0 matrix is undefined behaviour in Eigen (found
  // by the design fuzz target: `fit --no-intercept` on a file with only the response).
  if (predictors.cols() == 0 && !intercept)
    throw std::invalid_argument("the model has no coefficients: no predictors and no intercept");
  ModelData data;
  data.intercept = intercept;
  const Eigen::Index offset = intercept ? 1 : 0;
  const Eigen::Index p = predictors.cols() + offset;
  if (keep) {
    data.X.resize(predictors.rows(), p);
    data.y.resize(y.size());
    common::prefer_huge_pages(data.X.data(), sizeof(double) * static_cast<std::size_t>(data.X.size()));
  }
  DesignScan scan = scan_design(predictors, y, p, keep ? &data : nullptr);
  scan.y_largest = y.size() > 0 ? y.cwiseAbs().maxCoeff() : 0.0;
  reduce(scan, all);
  const std::size_t n = all.total(static_cast<std::size_t>(predictors.rows()));
  // Finds and names the first one; on one part only: the other parts stop too.
  if (!scan.finite) all.agree([&] { require_finite(predictors, y, predictor); });
  require_representable(predictors, scan, predictor);
  data.column_scale = Eigen::VectorXd::Ones(p);
  for (Eigen::Index j = 0; j < predictors.cols(); ++j) {
    const double largest = std::max(-scan.min(j), scan.max(j));
    if (largest == 0 || (largest >= 0x1p-20 && largest <= 0x1p20)) continue;
    const int exponent = std::ilogb(largest);
    data.column_scale(j + offset) = std::ldexp(1.0, exponent);
    if (keep) data.X.col(j + offset) *= std::ldexp(1.0, -exponent);
  }
  if (n <= static_cast<std::size_t>(p))
    throw std::invalid_argument("too few observations: n = " + std::to_string(n) +
                                " must exceed the number of coefficients p = " + std::to_string(p));
  if (intercept)
    for (Eigen::Index j = 0; j < predictors.cols(); ++j)
      if (scan.max(j) == scan.min(j))
        throw std::invalid_argument(predictor(j) + " is constant (" + std::to_string(scan.min(j)) +
                                    "): it is collinear with the intercept; remove it");
  // The Gram matrix of the stored (scaled) X; the scan summed the caller's.
  const Eigen::VectorXd inverse = data.column_scale.cwiseInverse();
  const Eigen::MatrixXd scaled_gram = inverse.asDiagonal() * scan.gram * inverse.asDiagonal();
  if (!keep && !certainly_full_rank(scaled_gram, n)) return prepare_model_data(predictors, y, intercept, names, all, true);
  if (keep) require_full_rank(data, all, n, scaled_gram, predictor);
  return data;
}

}  // namespace

ModelData make_model_data(Eigen::Ref<const Eigen::MatrixXd> predictors, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                          std::span<const std::string> names, const RowReductions& all) {
  return prepare_model_data(predictors, y, intercept, names, all, true);
}

void check_model_data(Eigen::Ref<const Eigen::MatrixXd> predictors, Eigen::Ref<const Eigen::VectorXd> y, bool intercept,
                      std::span<const std::string> names, const RowReductions& all) {
  prepare_model_data(predictors, y, intercept, names, all, false);
}

void to_original_scale(const ModelData& data, Eigen::VectorXd& coefficients) {
  if (data.column_scale.size() == coefficients.size()) coefficients.array() /= data.column_scale.array();
}

}  // namespace robustfit::regression::detail
