// FAST-MCD (Rousseeuw & Van Driessen 1999) with robustbase::covMcd's defaults, written once over
// the Engine interface on the concentration-step search it shares with FAST-LTS
// (concentration.hpp): starts of p + 1 rows (extended by random rows while their covariance is
// singular), C-steps on Mahalanobis distances, nested subsamples for n >= 600, the best to
// convergence; then the raw estimate with its consistency and small-sample factors, one
// reweighting step and the robust distances. The search runs on the data standardized by
// column medians and MADs (as robustbase does), estimates are reported in the data's units.
// Written once for one process and for rows spread over MPI ranks (mcd_fit.hpp): every pass
// over all rows is this part's rows plus a reduction over the parts (row_reductions.hpp).
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "all_rows.hpp"
#include "concentration.hpp"
#include "design_matrix.hpp"
#include "engine_factory.hpp"
#include "mcd_consistency.hpp"
#include "mcd_fit.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"
#include "standardized_rows.hpp"
#include "stopwatch.hpp"
#include "subsets.hpp"

namespace robustfit::regression {
namespace detail {
namespace {

using Index = Eigen::Index;
Index idx(std::size_t i) { return static_cast<Index>(i); }

// This part's rows of the data where the caller keeps them: never copied (at 10^6 x 10 the first
// touch of a copy's 80 MB cost more than a pass over the data).
using Rows = Eigen::Ref<const Eigen::MatrixXd>;

// robustbase's FAST-MCD: 10 finalists per stage; above n = 5000 only the best goes on to the
// final iterations (robustbase: 1 to 10 C-steps by n p; we iterate it to convergence).
constexpr SearchPlan kMcdPlan{.keep_best = 10, .initial_steps = 2, .max_steps = 500, .subsample_size = 300,
                              .max_subsamples = 5, .final_keep_above = 5000, .final_keep = 1};
// robustbase's replow: all (p+1)-subsets are tried when n is at most this (p + 1 = 1 .. 6).
constexpr std::size_t kExhaustiveUpTo[] = {500, 50, 22, 17, 15, 14};
constexpr double kOnHyperplane = 1e-8;   // robustbase: |a^T (x - m)| below this lies on the plane
constexpr double kLargeLogDet = 50;      // robustbase's logdet.Lrg: -log det / p beyond it is singular
constexpr double kExactScale = 1e-7;     // robustbase: a univariate scale below this is zero

// robustbase's singularity threshold for the pivots of a standardized covariance.
double singular_pivot(std::size_t p) { return p < 5 ? 1e-12 : p <= 8 ? 1e-14 : 1e-16; }

struct Moments {
  Eigen::VectorXd center;
  Eigen::MatrixXd covariance;  // divisor count - 1
};

// Mean and covariance from an augmented Gram matrix [X 1]^T [X 1] (lower triangle).
Moments moments_of_gram(const double* gram, std::size_t p) {
  const Eigen::Map<const Eigen::MatrixXd> G(gram, idx(p + 1), idx(p + 1));
  const double count = G(idx(p), idx(p));
  Moments m;
  m.center = G.row(idx(p)).head(idx(p)).transpose() / count;
  m.covariance = G.topLeftCorner(idx(p), idx(p)).selfadjointView<Eigen::Lower>();
  m.covariance -= count * m.center * m.center.transpose();
  m.covariance /= count - 1;
  return m;
}

// The rows of X listed in [from, to) of `rows` (when null, rows from .. to - 1), minus `shift`
// when given, into A (resized): column by column, so that each column of X is read in order.
// The values of a copy with A.rowwise() -= shift.
void gather_chunk(Rows X, const std::vector<std::size_t>* rows, std::size_t from, std::size_t to,
                  const Eigen::VectorXd* shift, Eigen::MatrixXd& A) {
  const Index m = idx(to - from);
  A.resize(m, X.cols());
  for (Index j = 0; j < X.cols(); ++j) {
    auto a = A.col(j);
    if (rows == nullptr) {
      a = X.col(j).segment(idx(from), m);
    } else {
      for (Index i = 0; i < m; ++i) a(i) = X(idx((*rows)[from + static_cast<std::size_t>(i)]), j);
    }
    if (shift != nullptr) a.array() -= (*shift)(j);
  }
}

// Mean and covariance (two-pass) of the given rows of this part's X (sorted; all its rows when
// `rows` is null) together with the other parts' (`all`), in parallel over fixed row chunks,
// partial sums added in chunk order, then over the parts. Each pass gathers a chunk into its
// worker's scratch matrix (Eigen's column sums and rank update then see what they saw on a fresh
// copy: the same numbers) rather than into a new matrix per chunk.
Moments moments_of_rows(Rows X, const std::vector<std::size_t>* rows, const RowReductions& all) {
  const auto n = static_cast<std::size_t>(X.rows());
  const Index p = X.cols();
  const std::size_t chunks = common::row_chunk_count(n);
  // The chunk's rows: [first[c], first[c+1]) of `rows`, or its whole range.
  std::vector<std::size_t> first(chunks + 1);
  for (std::size_t c = 0; c <= chunks; ++c)
    first[c] = rows == nullptr ? common::row_chunk_begin(n, c)
                               : static_cast<std::size_t>(std::lower_bound(rows->begin(), rows->end(), common::row_chunk_begin(n, c)) - rows->begin());
  const std::size_t count = all.total(rows == nullptr ? n : rows->size());
  std::vector<Eigen::MatrixXd> scratch(common::row_workers(n));
  std::vector<Eigen::VectorXd> sums(chunks);
  common::parallel_rows_by_worker(n, [&](unsigned w, std::size_t c, std::size_t, std::size_t) {
    gather_chunk(X, rows, first[c], first[c + 1], nullptr, scratch[w]);
    sums[c] = scratch[w].colwise().sum().transpose();
  });
  Moments m;
  m.center = Eigen::VectorXd::Zero(p);
  for (const auto& sum : sums) m.center += sum;
  all.sum(std::span<double>(m.center.data(), static_cast<std::size_t>(p)));
  m.center /= static_cast<double>(count);
  std::vector<Eigen::MatrixXd> products(chunks);
  common::parallel_rows_by_worker(n, [&](unsigned w, std::size_t c, std::size_t, std::size_t) {
    gather_chunk(X, rows, first[c], first[c + 1], &m.center, scratch[w]);
    products[c] = Eigen::MatrixXd::Zero(p, p);
    products[c].selfadjointView<Eigen::Lower>().rankUpdate(scratch[w].transpose());
  });
  Eigen::MatrixXd lower = Eigen::MatrixXd::Zero(p, p);
  for (const auto& product : products) lower += product;
  all.sum(std::span<double>(lower.data(), static_cast<std::size_t>(lower.size())));
  m.covariance = lower.selfadjointView<Eigen::Lower>();
  m.covariance /= static_cast<double>(count - 1);
  return m;
}

// Cholesky factor of a covariance, or nullopt when a pivot (a conditional variance) falls
// below `pivot` (robustbase's sweep criterion) or it is not positive definite.
std::optional<Eigen::LLT<Eigen::MatrixXd>> factor(const Eigen::MatrixXd& covariance, double pivot) {
  Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  if (llt.info() != Eigen::Success) return std::nullopt;
  const Eigen::MatrixXd L = llt.matrixL();
  for (Index j = 0; j < L.rows(); ++j)
    if (!(L(j, j) * L(j, j) >= pivot)) return std::nullopt;
  return llt;
}

double log_det(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  return 2 * llt.matrixLLT().diagonal().array().log().sum();
}

// W = L^-1 for the covariance's Cholesky factor L: |W (x - c)|^2 is the squared Mahalanobis
// distance of x from c.
Eigen::MatrixXd whitener(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  const Eigen::MatrixXd L = llt.matrixL();
  return L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(L.rows(), L.cols()));
}

// (X - median) / mad column by column, in parallel over row chunks (elementwise: the numbers
// of the serial expression).
Eigen::MatrixXd standardized(Rows X, const Eigen::VectorXd& median, const Eigen::VectorXd& mad) {
  Eigen::MatrixXd Z(X.rows(), X.cols());
  common::parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const Index b = idx(begin), m = idx(end - begin);
    for (Index j = 0; j < X.cols(); ++j)
      Z.col(j).segment(b, m) = (X.col(j).segment(b, m).array() - median(j)) / mad(j);
  });
  return Z;
}

// Squared Mahalanobis distances of all rows of X into d (resized; a spent vector of n values is
// reused, its pages already touched), in parallel over fixed row chunks: a chunk's whitened rows
// (one GEMM) into its worker's scratch, then their sums of squares.
void squared_distances(Rows X, const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::VectorXd& d) {
  const auto n = static_cast<std::size_t>(X.rows());
  const Eigen::MatrixXd W = whitener(llt);
  const Eigen::RowVectorXd shift = (W * center).transpose();
  d.resize(X.rows());
  std::vector<Eigen::MatrixXd> scratch(common::row_workers(n));
  common::parallel_rows_by_worker(n, [&](unsigned w, std::size_t, std::size_t begin, std::size_t end) {
    const auto b = idx(begin), m = idx(end - begin);
    Eigen::MatrixXd& Y = scratch[w];
    Y.noalias() = X.middleRows(b, m) * W.transpose();
    auto chunk = d.segment(b, m).array();
    chunk = (Y.col(0).array() - shift(0)).square();
    for (Index k = 1; k < Y.cols(); ++k) chunk += (Y.col(k).array() - shift(k)).square();
  });
}

// sqrt of every entry in place, in parallel over fixed row chunks (elementwise: the same numbers).
void take_square_roots(Eigen::VectorXd& v) {
  common::parallel_rows(static_cast<std::size_t>(v.size()), [&](std::size_t, std::size_t begin, std::size_t end) {
    v.segment(idx(begin), idx(end - begin)) = v.segment(idx(begin), idx(end - begin)).cwiseSqrt();
  });
}

// Candidate columns: [center (p); vec(covariance) (p * p)].
Eigen::VectorXd pack(const Moments& m) {
  const Index p = m.center.size();
  Eigen::VectorXd c(p + p * p);
  c.head(p) = m.center;
  c.tail(p * p) = Eigen::Map<const Eigen::VectorXd>(m.covariance.data(), p * p);
  return c;
}

Moments unpack(const Eigen::VectorXd& c, std::size_t p) {
  return {c.head(idx(p)), Eigen::Map<const Eigen::MatrixXd>(c.data() + p, idx(p), idx(p))};
}

// More than h rows on a hyperplane a^T (x - center) = 0 (an exact fit).
struct Hyperplane {
  int code = 0;              // robustbase's exactCode: 1 data singular, 2 during the search, 3 a MAD is zero
  std::size_t variable = 0;  // code 3: the variable (0-based)
  Eigen::VectorXd normal;    // a, in the units of the data it was found in
  Eigen::VectorXd center;
  std::vector<std::size_t> rows;  // this part's rows on it
  std::size_t count = 0;          // the rows on it over all parts
};

// The rows of X on the hyperplane through `center` along the smallest principal axis of
// `covariance` (its normal), counted over all parts.
Hyperplane hyperplane_of(Rows X, const Eigen::VectorXd& center, const Eigen::MatrixXd& covariance,
                         const RowReductions& all) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(covariance);
  Hyperplane plane;
  plane.normal = eigen.eigenvectors().col(0);
  Index largest = 0;
  plane.normal.cwiseAbs().maxCoeff(&largest);
  if (plane.normal(largest) < 0) plane.normal = -plane.normal;  // a sign that does not depend on the solver
  plane.center = center;
  const Eigen::VectorXd distance = ((X.rowwise() - center.transpose()) * plane.normal).cwiseAbs();
  for (Index i = 0; i < X.rows(); ++i)
    if (distance(i) < kOnHyperplane) plane.rows.push_back(static_cast<std::size_t>(i));
  plane.count = all.total(plane.rows.size());
  return plane;
}

// The standardized rows z = (x - median) / mad on the host: the engine's data in the host's
// path; where the engine made them on the device, made here only if asked for (the hyperplane of
// a singular h-subset, rare).
class HostStandardized {
 public:
  HostStandardized(Rows X, const Eigen::VectorXd& median, const Eigen::VectorXd& mad, const Eigen::MatrixXd* made)
      : X_(X), median_(median), mad_(mad), made_(made) {}
  const Eigen::MatrixXd& rows() const {
    if (made_ != nullptr) return *made_;
    if (!lazy_) lazy_ = standardized(X_, median_, mad_);
    return *lazy_;
  }

 private:
  Rows X_;
  const Eigen::VectorXd& median_;
  const Eigen::VectorXd& mad_;
  const Eigen::MatrixXd* made_;
  mutable std::optional<Eigen::MatrixXd> lazy_;
};

// FAST-MCD's operations for the shared search.
class McdSteps {
 public:
  McdSteps(const HostStandardized& Z, std::size_t p, std::size_t h, const RowReductions& all)
      : Z_(Z), h_(h), pivot_(singular_pivot(p)), all_(all) {}

  Candidates starts(Engine& engine, Random& random, std::size_t count, bool& exhaustive) {
    const std::size_t n = engine.rows(), p = engine.cols();
    exhaustive = p + 1 <= 6 && n <= kExhaustiveUpTo[p];
    const SubsetMatrix subsets = exhaustive ? enumerate_subsets(n, p + 1) : draw_subsets(random, n, p + 1, count);
    Eigen::MatrixXd grams;
    engine.subset_grams(subsets, grams);
    Candidates c;
    c.tried = static_cast<std::size_t>(subsets.cols());
    std::vector<Eigen::VectorXd> kept;
    for (Index j = 0; j < subsets.cols(); ++j) {
      Moments m = moments_of_gram(grams.col(j).data(), p);
      if (!factor(m.covariance, pivot_)) {
        ++c.singular;
        std::vector<std::int64_t> rows(subsets.col(j).data(), subsets.col(j).data() + p + 1);
        if (!extend_until_regular(engine, random, rows, m)) continue;
      }
      kept.push_back(pack(m));
    }
    if (kept.empty()) throw std::invalid_argument("no start of p + 1 rows has a regular covariance, even extended to half the rows");
    c.betas.resize(kept.front().size(), idx(kept.size()));
    for (std::size_t j = 0; j < kept.size(); ++j) c.betas.col(idx(j)) = kept[j];
    return c;
  }

  void c_step(Engine& engine, Eigen::MatrixXd& candidates, std::size_t h, std::span<double> before) {
    const std::size_t p = engine.cols();
    const Index m = candidates.cols(), pp = idx(p);
    Eigen::MatrixXd centers(pp, m), whiteners(pp, pp * m);
    for (Index j = 0; j < m; ++j) {
      const Moments old = unpack(candidates.col(j), p);
      // Candidates are regular: singular covariances never enter (see below).
      const Eigen::LLT<Eigen::MatrixXd> llt(old.covariance);
      before[static_cast<std::size_t>(j)] = log_det(llt);
      centers.col(j) = old.center;
      whiteners.middleCols(j * pp, pp) = whitener(llt);
    }
    Eigen::MatrixXd grams;
    engine.mcd_c_step(centers, whiteners, h, grams);
    for (Index j = 0; j < m; ++j) {
      const Moments next = moments_of_gram(grams.col(j).data(), p);
      if (factor(next.covariance, pivot_)) {
        candidates.col(j) = pack(next);
      } else {
        note_singular(next);  // the candidate keeps its old estimate and stops improving
      }
    }
  }

  void objectives(Engine& engine, const Eigen::MatrixXd& candidates, std::size_t, std::span<double> out) const {
    const std::size_t p = engine.cols();
    for (Index j = 0; j < candidates.cols(); ++j)
      out[static_cast<std::size_t>(j)] = log_det(Eigen::LLT<Eigen::MatrixXd>(unpack(candidates.col(j), p).covariance));
  }

  // Below the best so far beyond rounding (the first objective always improves on +inf).
  bool improves(double objective, double best) const {
    return std::isinf(best) ? objective < best : best - objective > 1e-12 * std::max(1.0, std::abs(best));
  }
  bool exact(double) const { return false; }
  // `before` is the log det of the h-subset the candidate came from, on the rows of its stage.
  bool carries_objective() const { return false; }

  // The first hyperplane with at least h rows of the data met during the search.
  const std::optional<Hyperplane>& exact_fit() const { return exact_fit_; }

 private:
  // robustbase: a singular start takes one more random row until its covariance is regular;
  // false when that reaches half the rows (then the rows lie on a hyperplane).
  bool extend_until_regular(Engine& engine, Random& random, std::vector<std::int64_t>& rows, Moments& m) {
    const std::size_t n = engine.rows(), p = engine.cols();
    while (rows.size() < std::max(p + 2, n / 2)) {
      std::sort(rows.begin(), rows.end());
      // The r-th row not yet taken.
      auto r = static_cast<std::int64_t>(random.below(n - rows.size()));
      for (const std::int64_t taken : rows)
        if (taken <= r) ++r;
      rows.push_back(r);
      const SubsetMatrix one = Eigen::Map<const SubsetMatrix>(rows.data(), idx(rows.size()), 1);
      Eigen::MatrixXd gram;
      engine.subset_grams(one, gram);
      m = moments_of_gram(gram.data(), p);
      if (factor(m.covariance, pivot_)) return true;
    }
    note_singular(m);
    return false;
  }

  // A singular h-subset: an exact fit when at least h rows of the whole data lie on its plane.
  // Every part gets here alike (the Gram matrices are reduced), so the count is a collective.
  void note_singular(const Moments& m) {
    if (exact_fit_) return;
    Hyperplane plane = hyperplane_of(Z_.rows(), m.center, m.covariance, all_);
    if (plane.count >= h_) {
      plane.code = 2;
      exact_fit_ = std::move(plane);
    }
  }

  const HostStandardized& Z_;  // this part's rows of the (standardized) data
  std::size_t h_;
  double pivot_;
  const RowReductions& all_;
  std::optional<Hyperplane> exact_fit_;
};

std::string format_coefficient(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.5g", std::abs(value) < 1e-12 ? 0.0 : value);
  return text;
}

// robustbase's .MCDsingularityMsg for a hyperplane, on one line.
std::string hyperplane_message(const Hyperplane& plane, std::size_t h, std::size_t n) {
  const auto p = static_cast<std::size_t>(plane.normal.size());
  std::string message;
  if (plane.code == 1) message = "The covariance matrix of the data is singular. ";
  if (plane.code == 2) message = "The covariance matrix has become singular during the iterations of the MCD algorithm. ";
  if (plane.code == 3)
    message = "The " + std::to_string(h) + "-th order statistic of the absolute deviation of variable " +
              std::to_string(plane.variable + 1) + " is zero. ";
  message += "There are " + std::to_string(plane.count) + " observations (in the entire dataset of " +
             std::to_string(n) + " obs.) lying on the ";
  if (p <= 3) {
    message += p == 2 ? "line" : p == 3 ? "plane" : "point";
    message += " with equation ";
    for (std::size_t j = 0; j < p; ++j)
      message += (j ? " + " : "") + format_coefficient(plane.normal(idx(j))) + " (x_i" + std::to_string(j + 1) + "-m_" +
                 std::to_string(j + 1) + ")";
    message += " = 0 with (m_1,m_2) the mean of these observations.";
  } else {
    message += "hyperplane with equation a_1*(x_i1 - m_1) + ... + a_p*(x_ip - m_p) = 0 with (m_1, ..., m_p) the mean "
               "of these observations and coefficients a_i from the vector a <- c(";
    for (std::size_t j = 0; j < p; ++j) message += (j ? ", " : "") + format_coefficient(plane.normal(idx(j)));
    message += ")";
  }
  return message;
}

std::vector<std::size_t> one_based(std::vector<std::size_t> rows) {
  for (auto& r : rows) ++r;
  return rows;
}

// An exact fit: the mean and (corrected) covariance of the rows on the hyperplane; the rows
// off it are flagged.
void describe_exact_fit(Rows X, Hyperplane plane, double factor_raw, McdResult& result,
                        const RowReductions& all) {
  // Fewer than 2 rows within 1e-8 of a plane of singular data (data of large magnitude): the
  // moments of all rows rather than of none.
  const Moments on = moments_of_rows(X, plane.count >= 2 ? &plane.rows : nullptr, all);
  result.exact_fit = true;
  result.exact_fit_message = hyperplane_message(plane, result.h, result.n);
  result.hyperplane.assign(plane.normal.data(), plane.normal.data() + plane.normal.size());
  result.raw_center = result.center = on.center;
  result.raw_covariance = result.covariance = factor_raw * on.covariance;
  result.log_det = -std::numeric_limits<double>::infinity();
  result.distances.resize(0);
  result.raw_distances.resize(0);
  const auto local = static_cast<std::size_t>(X.rows());
  std::vector<bool> is_on(local, false);
  for (const std::size_t r : plane.rows) is_on[r] = true;
  result.flagged.clear();
  for (std::size_t i = 0; i < local; ++i)
    if (!is_on[i]) result.flagged.push_back(i + 1);
}

// The passes over all rows that FAST-MCD's last steps make, estimates in the data's units: on the
// host over this part's rows of X (and `all`), or where the CUDA engine keeps the standardized
// rows (EngineRows). Distances are invariant under the standardization, moments are converted.
class FinalRows {
 public:
  virtual ~FinalRows() = default;
  // The h rows closest to `best` (in the search's standardized units; ties by row) into `rows`,
  // with their moments. HostRows leaves their squared distances in d, memory the reweighting
  // reuses; EngineRows leaves d as it was.
  virtual Moments closest(const Moments& best, std::size_t h, std::vector<std::size_t>& rows, Eigen::VectorXd& d) const = 0;
  // Squared distances of every row under (center, llt) into d (a spent vector is reused).
  virtual void distances(const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::VectorXd& d) const = 0;
  // distances() and the moments of the rows with d below `threshold`, their count over all parts.
  virtual Moments below(const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, double threshold,
                        Eigen::VectorXd& d, std::size_t& count) const = 0;
};

class HostRows final : public FinalRows {
 public:
  // Z: the standardized rows of the search (closest() only).
  HostRows(Rows X, const HostStandardized* Z, const RowReductions& all) : X_(X), Z_(Z), all_(all) {}
  Moments closest(const Moments& best, std::size_t h, std::vector<std::size_t>& rows, Eigen::VectorXd& d) const override {
    squared_distances(Z_->rows(), best.center, Eigen::LLT<Eigen::MatrixXd>(best.covariance), d);
    rows = all_.smallest_h(d, h);
    return moments_of_rows(X_, &rows, all_);
  }
  void distances(const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::VectorXd& d) const override {
    squared_distances(X_, center, llt, d);
  }
  Moments below(const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, double threshold, Eigen::VectorXd& d,
                std::size_t& count) const override {
    squared_distances(X_, center, llt, d);
    const std::vector<std::size_t> kept = common::rows_where(static_cast<std::size_t>(X_.rows()), [&](std::size_t i) { return d(idx(i)) < threshold; });
    count = all_.total(kept.size());
    return moments_of_rows(X_, &kept, all_);
  }

 private:
  Rows X_;
  const HostStandardized* Z_;
  const RowReductions& all_;
};

// One process whose engine keeps the standardized rows z = (x - median) / mad (the CUDA
// engine): no pass over X on the host. The moments come from the rows' Gram matrix (sums in
// z, where the means are small next to the spreads) and are converted to the data's units.
class EngineRows final : public FinalRows {
 public:
  EngineRows(Engine& engine, const Eigen::VectorXd& median, const Eigen::VectorXd& mad)
      : engine_(engine), median_(median), mad_(mad) {}
  Moments closest(const Moments& best, std::size_t h, std::vector<std::size_t>& rows, Eigen::VectorXd&) const override {
    Eigen::MatrixXd gram;
    engine_.mcd_rows(best.center, whitener(Eigen::LLT<Eigen::MatrixXd>(best.covariance)), h, 0, nullptr, &rows, &gram);
    return in_data_units(moments_of_gram(gram.data(), static_cast<std::size_t>(median_.size())));
  }
  void distances(const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, Eigen::VectorXd& d) const override {
    engine_.mcd_rows(standardized_center(center), whitener(llt) * mad_.asDiagonal(), 0, 0, &d, nullptr, nullptr);
  }
  Moments below(const Eigen::VectorXd& center, const Eigen::LLT<Eigen::MatrixXd>& llt, double threshold, Eigen::VectorXd& d,
                std::size_t& count) const override {
    Eigen::MatrixXd gram;
    engine_.mcd_rows(standardized_center(center), whitener(llt) * mad_.asDiagonal(), 0, threshold, &d, nullptr, &gram);
    const auto p = static_cast<std::size_t>(median_.size());
    count = static_cast<std::size_t>(gram(idx(p), idx(p)));
    return in_data_units(moments_of_gram(gram.data(), p));
  }

 private:
  // In z, the whitener is W diag(mad) about (c - median) / mad.
  Eigen::VectorXd standardized_center(const Eigen::VectorXd& center) const {
    return (center - median_).cwiseQuotient(mad_);
  }
  Moments in_data_units(Moments z) const {
    z.center = median_ + z.center.cwiseProduct(mad_);
    z.covariance = mad_.asDiagonal() * z.covariance * mad_.asDiagonal();
    return z;
  }

  Engine& engine_;
  const Eigen::VectorXd& median_;
  const Eigen::VectorXd& mad_;
};

// One reweighting step (robustbase's cov.wt with 0/1 weights mah < qchisq(0.975, p)), then the
// robust distances and flags. `reweighted_factor(sum_w)` corrects the reweighted covariance.
// `raw_mah`: a spent vector whose memory the raw distances may take.
template <class Factor>
void reweight(const FinalRows& rows, McdResult& result, Factor&& reweighted_factor, Eigen::VectorXd raw_mah = {}) {
  const auto p = static_cast<std::size_t>(result.p);
  const double cutoff2 = result.cutoff * result.cutoff;
  const auto raw_llt = factor(result.raw_covariance, 0);
  if (!raw_llt) throw std::runtime_error("the raw MCD covariance is not positive definite");
  std::size_t kept_count = 0;
  Moments rew = rows.below(result.raw_center, *raw_llt, cutoff2, raw_mah, kept_count);
  const auto local = static_cast<std::size_t>(raw_mah.size());
  bool singular = kept_count < 2;
  for (Index j = 0; j < rew.covariance.cols() && !singular; ++j) singular = (rew.covariance.col(j).array() == 0).all();
  if (!singular && kept_count != result.n) rew.covariance *= reweighted_factor(static_cast<double>(kept_count));
  result.center = rew.center;
  result.covariance = rew.covariance;
  std::optional<Eigen::VectorXd> reweighted;
  if (!singular) {
    const auto llt = factor(rew.covariance, 0);
    if (llt && -log_det(*llt) / static_cast<double>(p) <= kLargeLogDet) rows.distances(rew.center, *llt, reweighted.emplace());
  }
  const Eigen::VectorXd& mah = reweighted ? *reweighted : raw_mah;
  result.flagged = one_based(common::rows_where(local, [&](std::size_t i) { return !(mah(idx(i)) < cutoff2); }));
  // The distances are the square roots, taken in place.
  take_square_roots(raw_mah);
  result.raw_distances = std::move(raw_mah);
  if (reweighted) {
    take_square_roots(*reweighted);
    result.distances = std::move(*reweighted);
  } else {
    result.distances = result.raw_distances;
  }
}

// alpha = 1 (h = n): the classical estimate, reweighted with the consistency factor only.
void classical(Rows X, McdResult& result, const RowReductions& all) {
  const auto p = static_cast<std::size_t>(X.cols());
  const Moments every = moments_of_rows(X, nullptr, all);
  result.raw_center = every.center;
  result.raw_covariance = every.covariance;
  result.best_subset.resize(static_cast<std::size_t>(X.rows()));
  for (std::size_t i = 0; i < result.best_subset.size(); ++i) result.best_subset[i] = i + 1;
  const auto llt = factor(every.covariance, singular_pivot(p));
  if (!llt) {
    Hyperplane plane = hyperplane_of(X, every.center, every.covariance, all);
    plane.code = 1;
    describe_exact_fit(X, std::move(plane), 1.0, result, all);
    return;
  }
  result.log_det = log_det(*llt);
  reweight(HostRows(X, nullptr, all), result, [&](double sum_w) { return mcd_consistency(p, sum_w / static_cast<double>(result.n)); });
}

// p = 1: the exact univariate MCD (robustbase's rfmcduni): the h consecutive order statistics
// of smallest variance, by running sums over the values sorted over all parts (ties by row).
void univariate(Rows X, double factor_raw, McdResult& result, const RowReductions& all) {
  const std::size_t n = result.n, h = result.h;
  const Eigen::VectorXd column = X.col(0);
  // Window sums about the median: no cancellation for data far from 0.
  const std::size_t middle[] = {n / 2};
  const double shift = all.kth_smallest_many(column, middle)[0];
  const VarianceWindowScan scan = all.min_variance_window(column, h, shift);
  // The window's rows: sorted positions [start, start + h), i.e. the start + h smallest (ties
  // by row) without the start smallest.
  std::vector<std::size_t> window = all.smallest_h(column, scan.best_start + h);
  if (scan.best_start > 0) {
    const std::vector<std::size_t> before = all.smallest_h(column, scan.best_start);
    std::vector<std::size_t> rest;
    std::set_difference(window.begin(), window.end(), before.begin(), before.end(), std::back_inserter(rest));
    window = std::move(rest);
  }
  const double hd = static_cast<double>(h);
  const double center = scan.best_sum / hd + shift;
  // The winning window's sum of squares again, directly (the running sums drift), in sorted
  // order as robustbase sums it (one process: bit for bit its former sum).
  std::vector<double> in_window;
  for (const std::size_t r : window) in_window.push_back(X(idx(r), 0));
  std::sort(in_window.begin(), in_window.end());
  double ss = 0;
  for (const double v : in_window) ss += (v - center) * (v - center);
  ss = all.sum(ss);
  result.best_subset = one_based(window);
  result.raw_center = Eigen::VectorXd::Constant(1, center);
  const double raw_variance = factor_raw * ss / hd;  // robustbase: the window's variance with divisor h
  result.raw_covariance = Eigen::MatrixXd::Constant(1, 1, raw_variance);
  // robustbase's criterion: log of the h smallest squared deviations from the center / (h - 1).
  const Eigen::VectorXd deviations = (column.array() - center).square();
  result.log_det = std::log(all.trimmed_sum(deviations, h) / std::max(1.0, hd - 1));
  if (std::sqrt(raw_variance) < kExactScale) {
    result.exact_fit = true;
    result.exact_fit_message = "Initial scale 0 because more than 'h' (=" + std::to_string(h) + ") observations are identical.";
    result.center = result.raw_center;
    result.raw_covariance = result.covariance = Eigen::MatrixXd::Zero(1, 1);
    result.log_det = -std::numeric_limits<double>::infinity();
    result.hyperplane = {1.0};
    result.flagged.clear();
    for (Index i = 0; i < X.rows(); ++i)
      if (!(std::abs(X(i, 0) - center) < kExactScale)) result.flagged.push_back(static_cast<std::size_t>(i) + 1);
    return;
  }
  reweight(HostRows(X, nullptr, all), result, [&](double sum_w) {
    return mcd_consistency(1, sum_w / static_cast<double>(n)) * mcd_small_sample_reweighted(1, n, result.alpha);
  });
}

// Column medians (the mean of the two middle values for even n, as R's median) and MADs as
// robustbase's FAST-MCD takes them: the h-th smallest absolute deviation from the median; the
// order statistics over all parts. In one process all columns at once on the host (the order
// statistics are exact: the same numbers as the reductions'); across processes one column after
// another, each selection a collective.
void medians_and_mads(Rows X, std::size_t n, std::size_t h, const RowReductions& all, Eigen::VectorXd& median,
                      Eigen::VectorXd& mad) {
  median.resize(X.cols());
  mad.resize(X.cols());
  const std::vector<std::size_t> middle = n % 2 == 0 ? std::vector<std::size_t>{n / 2 - 1, n / 2} : std::vector<std::size_t>{n / 2};
  const std::size_t kth[] = {h - 1};
  const auto middle_value = [&](const std::vector<double>& v) { return n % 2 == 0 ? (v[1] + v[0]) / 2 : v[0]; };
  if (all.spans_processes()) {
    for (Index j = 0; j < X.cols(); ++j) {
      const Eigen::VectorXd column = X.col(j);
      median(j) = middle_value(all.kth_smallest_many(column, middle));
      mad(j) = all.kth_smallest_many((column.array() - median(j)).abs().matrix(), kth)[0];
    }
    return;
  }
  // Every column's ranks from one bracket and one pass over its row chunks, all columns' chunks
  // in one parallel loop; the deviations |x - median| are never stored.
  std::vector<std::span<const double>> columns;
  for (Index j = 0; j < X.cols(); ++j) columns.emplace_back(X.col(j).data(), static_cast<std::size_t>(X.rows()));
  const auto medians = selection::kth_smallest_many_columns<double>(columns, middle);
  for (Index j = 0; j < X.cols(); ++j) median(j) = middle_value(medians[static_cast<std::size_t>(j)]);
  const auto mads = selection::kth_smallest_many_columns<double>(columns, kth, values_of(median));
  for (Index j = 0; j < X.cols(); ++j) mad(j) = mads[static_cast<std::size_t>(j)][0];
}

void multivariate(Rows X, const McdOptions& options, const McdParts& parts, double factor_raw,
                  McdResult& result, const RowReductions& all) {
  const std::size_t n = result.n, p = result.p, h = result.h;
  const double pivot = singular_pivot(p);
  const SearchSize size{n, p, options.subsets};
  Stopwatch trace_watch;
  // In one process on a GPU, X goes to the device once: the moments of all rows, the medians and
  // MADs and the standardized rows are made there. A device without the room for a step leaves
  // it and the rest to the host.
  std::unique_ptr<StandardizedRows> on_device;
  if (parts.standardized_on_device && !all.spans_processes()) {
    try {
      on_device = parts.standardized_on_device(X, options, size);
    } catch (const std::bad_alloc&) {
      // X does not fit on the device: the host's path (whose engine may still fit, in batches)
    }
  }
  const auto done_on_device = [&](auto&& step) {
    if (!on_device) return false;
    try {
      step();
      return true;
    } catch (const std::bad_alloc&) {
      on_device.reset();
      return false;
    }
  };
  // robustbase: a singular covariance of all the data is an exact fit.
  Moments every;
  if (!done_on_device([&] { on_device->moments(every.center, every.covariance); })) every = moments_of_rows(X, nullptr, all);
  trace("mcd moments all", trace_watch.lap());
  if (!factor(every.covariance, pivot)) {
    Hyperplane plane = hyperplane_of(X, every.center, every.covariance, all);
    plane.code = 1;
    describe_exact_fit(X, std::move(plane), factor_raw, result, all);
    return;
  }
  // Standardize by column medians and MADs (the h-th smallest absolute deviation); a MAD of
  // zero means more than h equal values in that column: an exact fit.
  Eigen::VectorXd median, mad;
  if (!done_on_device([&] { on_device->medians_and_mads(h, median, mad); })) medians_and_mads(X, n, h, all, median, mad);
  trace("mcd medians mads", trace_watch.lap());
  for (std::size_t j = 0; j < p; ++j) {
    if (mad(idx(j)) < pivot) {
      Hyperplane plane;
      plane.code = 3;
      plane.variable = j;
      plane.normal = Eigen::VectorXd::Unit(idx(p), idx(j));
      for (Index i = 0; i < X.rows(); ++i)
        if (std::abs(X(i, idx(j)) - median(idx(j))) < kOnHyperplane) plane.rows.push_back(static_cast<std::size_t>(i));
      plane.count = all.total(plane.rows.size());
      describe_exact_fit(X, std::move(plane), factor_raw, result, all);
      return;
    }
  }
  ModelData data;  // the host's path: the standardized rows the engine uploads
  std::unique_ptr<Engine> engine;
  done_on_device([&] { engine = on_device->engine(median, mad); });
  if (!engine) {
    data.intercept = false;
    data.X = standardized(X, median, mad);
    data.y = Eigen::VectorXd::Ones(X.rows());  // the engine's Gram matrices then carry counts and sums
    trace("mcd standardize", trace_watch.lap());
    engine = parts.engine(data, options, size);
  }
  result.backend = engine->backend_name();
  trace("mcd engine", trace_watch.lap());
  const HostStandardized Z(X, median, mad, on_device ? nullptr : &data.X);
  McdSteps steps(Z, p, h, all);
  PhaseTimings timings;
  const SearchOutcome search = concentration_search(steps, *engine, h, options.subsets, options.seed, kMcdPlan, timings,
                                                   Progress(options.progress));
  result.subsets_tried = search.tried;
  result.singular_subsets = search.singular;
  trace("mcd search", trace_watch.lap());
  if (const auto& plane = steps.exact_fit()) {
    Hyperplane original = *plane;  // back to the data's units: a^T D^-1 (x - m)
    original.normal = plane->normal.cwiseQuotient(mad).normalized();
    describe_exact_fit(X, std::move(original), factor_raw, result, all);
    return;
  }
  // The best h-subset under the best candidate; its mean and covariance in the data's units.
  const HostRows host(X, &Z, all);
  const EngineRows device(*engine, median, mad);
  const FinalRows& rows = engine->offers_mcd_rows() && !all.spans_processes() ? static_cast<const FinalRows&>(device) : host;
  const Moments best = unpack(search.best, p);
  Eigen::VectorXd d;
  std::vector<std::size_t> subset;
  const Moments raw = rows.closest(best, h, subset, d);
  trace("mcd best subset, raw moments", trace_watch.lap());
  result.best_subset = one_based(std::move(subset));
  result.raw_center = raw.center;
  result.raw_covariance = factor_raw * raw.covariance;
  const auto llt = factor(raw.covariance, 0);
  result.log_det = llt ? log_det(*llt) : -std::numeric_limits<double>::infinity();
  reweight(rows, result, [&](double sum_w) {
    return mcd_consistency(p, sum_w / static_cast<double>(n)) * mcd_small_sample_reweighted(p, n, result.alpha);
  }, std::move(d));
  trace("mcd reweight", trace_watch.lap());
}

}  // namespace


McdParts one_process_mcd_parts() {
  McdParts parts;
  parts.engine = [](const ModelData& data, const McdOptions& options, const SearchSize& size) {
    return make_engine(data, options.backend, options.selection, Precision::double_precision, size);
  };
  parts.standardized_on_device = [](Eigen::Ref<const Eigen::MatrixXd> X, const McdOptions& options, const SearchSize& size) {
    return standardized_rows_on_device(X, options.backend, options.selection, size);
  };
  return parts;
}

McdResult fit_mcd_on(Eigen::Ref<const Eigen::MatrixXd> X, const RowReductions& all, const McdOptions& options,
                     const McdParts& parts) {
  const auto local = static_cast<std::size_t>(X.rows()), p = static_cast<std::size_t>(X.cols());
  if (p == 0) throw std::invalid_argument("MCD needs at least one variable");
  const std::size_t before = all.before(local);  // rows are named by their number over all parts
  all.agree([&] {
    // One parallel pass finds whether there is a bad value (at 10^7 x 10 the serial loop took
    // ~0.1 s); the serial loop then names the first.
    std::vector<char> finite(common::row_chunk_count(local), 1);
    common::parallel_rows(local, [&](std::size_t c, std::size_t begin, std::size_t end) {
      for (Eigen::Index j = 0; j < X.cols(); ++j) finite[c] &= X.col(j).segment(idx(begin), idx(end - begin)).allFinite();
    });
    if (std::find(finite.begin(), finite.end(), 0) == finite.end()) return;
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      for (Eigen::Index i = 0; i < X.rows(); ++i)
        if (!std::isfinite(X(i, j)))
          throw std::invalid_argument("value in row " + std::to_string(before + static_cast<std::size_t>(i) + 1) +
                                      ", variable " + std::to_string(j + 1) + " is not finite");
  });
  const std::size_t n = all.total(local);
  if (!(options.alpha >= 0.5 && options.alpha <= 1))
    throw std::invalid_argument("alpha = " + std::to_string(options.alpha) + " is out of range: it must lie in [0.5, 1]");
  if (options.subsets == 0) throw std::invalid_argument("the number of subsets must be at least 1");
  if (n <= p + 1)
    throw std::invalid_argument("MCD needs more than p + 1 observations: n = " + std::to_string(n) + ", p = " +
                                std::to_string(p) + " variables");
  McdResult result;
  result.n = n;
  result.p = p;
  result.alpha = options.alpha;
  result.h = h_alpha_n(options.alpha, n, p);
  result.backend = parts.backend;
  if (result.h <= p || result.h > n)
    throw std::invalid_argument("h = " + std::to_string(result.h) + " is out of range for MCD: it must lie in [" +
                                std::to_string(p + 1) + ", " + std::to_string(n) + "]");
  result.cutoff = std::sqrt(qchisq(0.975, static_cast<double>(p)));
  if (result.h == n) {
    classical(X, result, all);
    return result;
  }
  const double factor_raw = mcd_consistency(p, static_cast<double>(result.h) / static_cast<double>(n)) *
                            mcd_small_sample_raw(p, n, options.alpha);
  if (p == 1) {
    univariate(X, factor_raw, result, all);
  } else {
    multivariate(X, options, parts, factor_raw, result, all);
  }
  return result;
}

}  // namespace detail

McdResult fit_mcd(Eigen::Ref<const Eigen::MatrixXd> X, const McdOptions& options) {
  // The passes over all rows on the GPU when the search's engine is the CUDA one; bad options
  // are fit_mcd_on's to report (the host's reductions meanwhile).
  Backend backend = Backend::cpu;
  try {
    const auto n = static_cast<std::size_t>(X.rows()), p = static_cast<std::size_t>(X.cols());
    backend = detail::engine_backend(options.backend, options.selection, Precision::double_precision,
                                     detail::SearchSize{n, p, options.subsets});
  } catch (const std::exception&) {
  }
  const std::unique_ptr<detail::RowReductions> all = detail::one_process_reductions(backend);
  McdResult result = detail::fit_mcd_on(X, *all, options, detail::one_process_mcd_parts());
  detail::Progress(options.progress).report("finish", 1.0);
  return result;
}

}  // namespace robustfit::regression
