#include "cpu_engine.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <limits>

#include "all_rows.hpp"
#include "least_squares.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"
#include "univariate.hpp"

namespace robustfit::regression::detail {

using common::parallel_for;
using common::parallel_rows;
using common::worker_count;

CpuEngine::CpuEngine(Eigen::MatrixXd X, Eigen::VectorXd y)
    : own_X_(std::move(X)), own_y_(std::move(y)), X_(own_X_), X_rows_(row_major(X_)), y_(own_y_) {}

CpuEngine::CpuEngine(const ModelData& data) : X_(data.X), X_rows_(row_major(data.X)), y_(data.y) {}

CpuEngine::RowMajorMatrix CpuEngine::row_major(const Eigen::MatrixXd& X) {
  RowMajorMatrix rows(X.rows(), X.cols());
  parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    rows.middleRows(b, m) = X.middleRows(b, m);
  });
  return rows;
}

std::optional<Eigen::VectorXd> CpuEngine::refit(std::span<const std::size_t> rows) const {
  const Eigen::Index p = X_.cols(), m = static_cast<Eigen::Index>(rows.size());
  RowMajorMatrix A(m, p);
  Eigen::VectorXd b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    A.row(i) = X_rows_.row(static_cast<Eigen::Index>(rows[static_cast<std::size_t>(i)]));
    b(i) = y_(static_cast<Eigen::Index>(rows[static_cast<std::size_t>(i)]));
  }
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(p, p);
  gram.selfadjointView<Eigen::Lower>().rankUpdate(A.transpose());
  if (auto beta = solve_normal_equations(gram, A.transpose() * b)) return beta;
  std::vector<std::size_t> all;
  return ls_on_rows(Eigen::MatrixXd(A), b, all);
}

void CpuEngine::squared_residuals(const Eigen::VectorXd& beta, std::vector<double>& out) const {
  out.resize(rows());
  Eigen::Map<Eigen::VectorXd> r(out.data(), X_.rows());
  r.noalias() = y_ - X_ * beta;
  r.array() = r.array().square();
}

void CpuEngine::solve_elemental(const SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                                std::vector<std::uint8_t>& ok) {
  const Eigen::Index p = X_.cols();
  betas.resize(p, subsets.cols());
  ok.assign(static_cast<std::size_t>(subsets.cols()), 0);
  parallel_for(static_cast<std::size_t>(subsets.cols()), [&](unsigned, std::size_t j) {
    Eigen::MatrixXd A(p, p);
    Eigen::VectorXd b(p);
    for (Eigen::Index r = 0; r < p; ++r) {
      const auto row = static_cast<Eigen::Index>(subsets(r, static_cast<Eigen::Index>(j)));
      A.row(r) = X_.row(row);
      b(r) = y_(row);
    }
    // Full pivoting gives a reliable rank decision for these small systems.
    Eigen::FullPivLU<Eigen::MatrixXd> lu(A);
    lu.setThreshold(1e-12);
    if (lu.isInvertible()) {
      betas.col(static_cast<Eigen::Index>(j)) = lu.solve(b);
      ok[j] = betas.col(static_cast<Eigen::Index>(j)).allFinite() ? 1 : 0;
    }
  });
}

void CpuEngine::lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) {
  std::vector<std::vector<double>> scratch(worker_count(static_cast<std::size_t>(betas.cols())));
  parallel_for(static_cast<std::size_t>(betas.cols()), [&](unsigned w, std::size_t j) {
    squared_residuals(betas.col(static_cast<Eigen::Index>(j)), scratch[w]);
    out[j] = selection::trimmed_sum_inplace<double>(scratch[w], h);
  });
}

void CpuEngine::c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) {
  parallel_for(static_cast<std::size_t>(betas.cols()), [&](unsigned, std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    const Eigen::VectorXd residuals = y_ - X_ * betas.col(col);
    const Eigen::VectorXd squares = residuals.array().square();
    const auto subset = selection::smallest_h<double>(values_of(squares), h);
    objective_before[j] = sum_at(squares, subset.rows);
    if (auto beta = refit(subset.rows)) betas.col(col) = *beta;
  });
}

void CpuEngine::lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                               std::span<double> out) {
  std::vector<std::vector<double>> scratch(worker_count(static_cast<std::size_t>(betas.cols())));
  parallel_for(static_cast<std::size_t>(betas.cols()), [&](unsigned w, std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    auto& values = scratch[w];
    values.resize(rows());
    Eigen::Map<Eigen::VectorXd> r(values.data(), X_.rows());
    if (adjust_intercept) {
      // Residuals without the intercept; the best intercept is their univariate LMS location.
      r.noalias() = y_ - X_.rightCols(X_.cols() - 1) * betas.col(col).tail(X_.cols() - 1);
      const ShortestWindow window = shortest_window_inplace(values, h);
      betas(0, col) = window.center;
      out[j] = window.half_width * window.half_width;
    } else {
      r.noalias() = y_ - X_ * betas.col(col);
      r.array() = r.array().square();
      out[j] = selection::kth_smallest_inplace(std::span<double>(values), h - 1);
    }
  });
}

std::unique_ptr<Engine> CpuEngine::restrict_to(std::span<const std::size_t> rows) const {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()), X_.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    X.row(static_cast<Eigen::Index>(i)) = X_.row(static_cast<Eigen::Index>(rows[i]));
    y(static_cast<Eigen::Index>(i)) = y_(static_cast<Eigen::Index>(rows[i]));
  }
  return std::make_unique<CpuEngine>(std::move(X), std::move(y));
}

}  // namespace robustfit::regression::detail
