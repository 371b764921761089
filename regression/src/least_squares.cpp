#include "least_squares.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <limits>

#include "tall_qr.hpp"

namespace robustfit::regression::detail {

std::optional<Eigen::VectorXd> ls_on_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                          std::span<const std::size_t> rows) {
  const std::size_t m = rows.empty() ? static_cast<std::size_t>(X.rows()) : rows.size();
  if (m < static_cast<std::size_t>(X.cols())) return std::nullopt;
  // QR of [X y] by blocks: R = [R11 r; 0 rho], beta = R11^-1 r. One block (m <= 8192 rows) is
  // exactly one Householder QR of [X y].
  return ls_of_factors(stacked_block_factors(X, y, rows), m);
}

std::optional<Eigen::VectorXd> ls_of_factors(const Eigen::MatrixXd& stacked, std::size_t m) {
  const Eigen::Index p = stacked.cols() - 1;
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

Eigen::MatrixXd factors_of_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, std::span<const std::size_t> rows) {
  if (rows.empty()) return Eigen::MatrixXd(0, X.cols() + 1);
  return stacked_block_factors(X, y, rows);
}

Eigen::MatrixXd stacked_factors_of_rows(const RowReductions& reductions, const Eigen::MatrixXd& X,
                                        const Eigen::VectorXd& y, std::span<const std::size_t> rows) {
  return reductions.stacked(reductions.local_factors(X, y, rows));
}

std::optional<Eigen::VectorXd> ls_on_rows(const RowReductions& reductions, const Eigen::MatrixXd& X,
                                          const Eigen::VectorXd& y, std::span<const std::size_t> rows) {
  const std::size_t m = reductions.total(rows.size());
  if (m < static_cast<std::size_t>(X.cols())) return std::nullopt;
  return ls_of_factors(stacked_factors_of_rows(reductions, X, y, rows), m);
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

}  // namespace robustfit::regression::detail
