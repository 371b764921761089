#include "least_squares.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <limits>
#include <vector>

#include "robustfit/selection/cpu_select.hpp"
#include "tall_qr.hpp"

namespace robustfit::regression::detail {


std::optional<Eigen::VectorXd> ls_on_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                          std::span<const std::size_t> rows) {
  const std::size_t m = rows.empty() ? static_cast<std::size_t>(X.rows()) : rows.size();
  if (m < static_cast<std::size_t>(X.cols())) return std::nullopt;
  // QR of [X y] by blocks: R = [R11 r; 0 rho], beta = R11^-1 r. One block (m <= 8192 rows) is
  // exactly one Householder QR of [X y].
  const Eigen::MatrixXd stacked = stacked_block_factors(X, y, rows);
  const Eigen::Index p = X.cols();
  const Eigen::MatrixXd R = stacked.rows() == p + 1 || stacked.rows() <= p
                                ? stacked
                                : Eigen::MatrixXd(Eigen::HouseholderQR<Eigen::MatrixXd>(stacked).matrixQR()
                                                      .topRows(p + 1).triangularView<Eigen::Upper>());
  if (R.rows() < p) return std::nullopt;
  const auto diagonal = R.topLeftCorner(p, p).diagonal().cwiseAbs();
  const double largest = diagonal.maxCoeff();
  const double tolerance = largest * static_cast<double>(m) * std::numeric_limits<double>::epsilon();
  if (!(largest > 0) || diagonal.minCoeff() <= tolerance) return std::nullopt;
  Eigen::VectorXd beta = R.topLeftCorner(p, p).triangularView<Eigen::Upper>().solve(R.col(p).head(p));
  if (!beta.allFinite()) return std::nullopt;
  return beta;
}

std::optional<Eigen::VectorXd> solve_normal_equations(const Eigen::MatrixXd& gram, const Eigen::VectorXd& rhs) {
  const Eigen::LLT<Eigen::MatrixXd> llt(gram);
  if (llt.info() != Eigen::Success) return std::nullopt;
  // Cholesky squares the condition number: use it only while the diagonal of L stays well away
  // from zero relative to its largest entry (about 1e-5, i.e. condition below ~1e10).
  const auto d = llt.matrixLLT().diagonal().cwiseAbs();
  if (!(d.minCoeff() > 1e-5 * d.maxCoeff())) return std::nullopt;
  Eigen::VectorXd beta = llt.solve(rhs);
  if (!beta.allFinite()) return std::nullopt;
  return beta;
}

double trimmed_sum_inplace(std::span<double> squares, std::size_t h) {
  const double t = selection::kth_smallest_inplace(squares, h - 1);
  double below = 0;
  std::size_t count = 0;
  for (double v : squares)
    if (v < t) {
      below += v;
      ++count;
    }
  return below + static_cast<double>(h - count) * t;
}

HSubset smallest_h(const Eigen::VectorXd& residuals, std::size_t h) {
  std::vector<double> squares(static_cast<std::size_t>(residuals.size()));
  for (std::size_t i = 0; i < squares.size(); ++i) squares[i] = residuals(static_cast<Eigen::Index>(i)) * residuals(static_cast<Eigen::Index>(i));
  std::vector<double> work = squares;
  const double t = selection::kth_smallest_inplace(std::span<double>(work), h - 1);
  // Rows below t, plus the first (h - #below) rows equal to t, collected in row order.
  std::size_t ties = h - static_cast<std::size_t>(std::count_if(squares.begin(), squares.end(), [t](double v) { return v < t; }));
  HSubset subset;
  subset.rows.reserve(h);
  for (std::size_t i = 0; i < squares.size(); ++i)
    if (squares[i] < t || (squares[i] == t && ties > 0 && ties--)) subset.rows.push_back(i);
  for (std::size_t i : subset.rows) subset.objective += squares[i];
  return subset;
}

}  // namespace robustfit::regression::detail
