#pragma once
// The backend-neutral engine interface. The estimator logic (sampling, C-step loop,
// convergence, nested subsamples, reweighting) lives once in the drivers (fast_lts.cpp,
// lms.cpp, fast_mcd.cpp); an engine only does the per-candidate number crunching, for many candidates
// at once so that a GPU engine can batch them.
//
// Candidates are the columns of a p x m coefficient matrix. The design X (n x p) includes the
// column of ones when the model has an intercept; it is always column 0 then.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "robustfit/regression/fit_result.hpp"
#include "standardized_rows.hpp"

namespace robustfit::regression::detail {

// [X y] of an engine's data in device memory as double, beside the host's copy it mirrors (the
// CUDA engine in double precision): the finish factors its row subsets there
// (DeviceRowReductions::local_factors). Device pointers, valid while the engine lives.
struct DeviceDesign {
  const Eigen::MatrixXd* host_X = nullptr;
  const Eigen::VectorXd* host_y = nullptr;
  const double* X = nullptr;  // n x p, column-major
  const double* y = nullptr;
  std::size_t n = 0, p = 0;
};

// Row indices of elemental subsets: column j holds the p rows of candidate j.
using SubsetMatrix = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic>;

// Device time spent in residual GEMMs and in order-statistic selection (CUDA engine only).
struct KernelTimes {
  double residuals_s = 0;
  double selection_s = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual std::string backend_name() const = 0;    // "cpu" | "cuda"
  virtual std::string selection_name() const = 0;  // selection algorithm used for objectives
  virtual std::size_t rows() const = 0;
  virtual std::size_t cols() const = 0;

  // Solves X_S beta = y_S for each subset S (column of `subsets`). ok[j] = 0 when X_S is
  // singular (beta undefined then).
  virtual void solve_elemental(const SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                               std::vector<std::uint8_t>& ok) = 0;

  // LTS objective of each candidate: the sum of the h smallest squared residuals, computed
  // from the h-th order statistic t of r^2 as sum_{r^2<t} r^2 + (h - #{r^2<t}) t (exact with ties).
  virtual void lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) = 0;

  // One C-step for each candidate: take the h rows with the smallest r^2 under betas.col(j)
  // (ties by row order), refit least squares on them and store the new coefficients in
  // betas.col(j). objective_before[j] receives the LTS objective of the old coefficients.
  // A candidate whose h-subset is rank deficient keeps its old coefficients.
  virtual void c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) = 0;

  // LMS objective: the h-th smallest r^2 of each candidate. With adjust_intercept, betas(0, j)
  // is first replaced by the intercept minimising it (the exact univariate LMS location of the
  // residuals without intercept: the midpoint of the shortest window of h sorted values).
  //
  // `needed`: the caller keeps only the `needed` best candidates with distinct coefficients
  // (BestCandidates: smaller objective first, equal ones by stream index). With adjust_intercept
  // an engine may then skip the exact evaluation of a candidate that cannot be among them: for
  // such a skipped candidate j, out[j] is a proven lower bound of its objective that is strictly
  // larger than the exact objectives of `needed` other candidates of this call whose slopes
  // (betas rows 1.., compared with ==) differ pairwise (so they end as distinct columns), and
  // betas(0, j) is left as it came. Such a j is beaten by those `needed` candidates under either
  // value, so the kept set is the same as with every objective exact. Every candidate not
  // skipped is evaluated exactly as above. needed >= betas.cols() (kAllCandidates) asks for
  // every objective exactly; without adjust_intercept every objective is exact. The CPU engine
  // evaluates everything (it is the reference); the CUDA engine skips (cuda_engine.cpp).
  static constexpr std::size_t kAllCandidates = static_cast<std::size_t>(-1);
  virtual void lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                              std::span<double> out, std::size_t needed) = 0;

  // FAST-MCD (fast_mcd.cpp) runs on an engine whose X holds the predictors (no intercept
  // column) and whose y is a column of ones, so that the augmented Gram matrix [X y]^T [X y]
  // of a set of rows holds their count, column sums and cross products. `grams` receives, per
  // candidate, that (p+1) x (p+1) matrix (column-major, the lower triangle filled) as a column.

  // The augmented Gram matrix of each column's rows (a start's p+1 or more rows).
  virtual void subset_grams(const SubsetMatrix& rows, Eigen::MatrixXd& grams) = 0;

  // One MCD C-step for each candidate j: squared Mahalanobis distances of all rows,
  // |W_j (x_i - c_j)|^2 with c_j = centers.col(j) and W_j = whiteners.middleCols(j p, p) (the
  // inverse of the covariance's Cholesky factor), the h rows with the smallest (ties by row
  // order), and their augmented Gram matrix into grams.col(j).
  virtual void mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                          Eigen::MatrixXd& grams) = 0;

  // FAST-MCD's passes over all rows after the search, where the engine keeps them
  // (offers_mcd_rows; fast_mcd.cpp does them on the host otherwise): for one estimate (center c,
  // whitener W) the squared distances d_i = |W (x_i - c)|^2 and the rows it takes: the h with the
  // smallest d (ties by row order), or with h = 0 those with d < threshold. Each output is
  // optional (null): every d_i into `distances` (resized to n), the rows taken in row order into
  // `rows`, their augmented Gram matrix ((p+1) x (p+1), lower triangle filled) into `gram`.
  virtual bool offers_mcd_rows() const { return false; }
  virtual void mcd_rows(const Eigen::VectorXd& /*center*/, const Eigen::MatrixXd& /*whitener*/, std::size_t /*h*/, double /*threshold*/,
                        Eigen::VectorXd* /*distances*/, std::vector<std::size_t>* /*rows*/, Eigen::MatrixXd* /*gram*/) {
    throw std::logic_error("mcd_rows: this engine leaves FAST-MCD's final passes to the host");
  }

  // An engine over a subset of the rows (FAST-LTS's nested subsamples).
  virtual std::unique_ptr<Engine> restrict_to(std::span<const std::size_t> rows) const = 0;

  // FAST-MCD's rows (standardized_rows.hpp) from columns first .. first + count - 1 of this
  // engine's X where it keeps them on a device in double (the CUDA engine: a copy there, no
  // second upload; the LTS fit's robust distances); null otherwise.
  virtual std::unique_ptr<StandardizedRows> standardized_columns(std::size_t /*first*/, std::size_t /*count*/) const {
    return nullptr;
  }

  // Where the engine keeps its host data's X and y on a device in double: DeviceDesign.
  virtual std::optional<DeviceDesign> device_design() const { return std::nullopt; }

  // This engine's GEMM and selection time so far, where it measures them (not its restrict_to
  // engines'); the CPU engine does not (its candidates run on many threads at once).
  virtual std::optional<KernelTimes> kernel_times() const { return std::nullopt; }
};

// The engine's device time in residual GEMMs and selections, where it measures it.
inline void record_kernel_times(const Engine& engine, PhaseTimings& timings) {
  if (const auto kernels = engine.kernel_times()) {
    timings.residuals_s = kernels->residuals_s;
    timings.selection_s = kernels->selection_s;
  }
}

}  // namespace robustfit::regression::detail
