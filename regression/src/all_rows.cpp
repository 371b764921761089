#include "all_rows.hpp"

#include "robustfit/common/parallel.hpp"

namespace robustfit::regression::detail {

namespace {

Eigen::Index index(std::size_t i) { return static_cast<Eigen::Index>(i); }

}  // namespace

Fit fit_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta, Eigen::VectorXd* squares) {
  Fit fit;
  fit_into(X, y, beta, fit, squares);
  return fit;
}

void fit_into(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta, Fit& fit,
              Eigen::VectorXd* squares, const Eigen::VectorXd* weights) {
  fit.fitted.resize(X.rows());  // no reallocation at the same size
  fit.residuals.resize(X.rows());
  if (squares) squares->resize(X.rows());
  common::parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    fit.fitted.segment(b, m).noalias() = X.middleRows(b, m) * beta;
    fit.residuals.segment(b, m) = y.segment(b, m) - fit.fitted.segment(b, m);
    if (squares && weights)  // while in cache
      squares->segment(b, m) = weights->segment(b, m).array() * fit.residuals.segment(b, m).array().square();
    else if (squares)
      squares->segment(b, m) = fit.residuals.segment(b, m).array().square();
  });
}

Eigen::VectorXd residuals_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta) {
  Eigen::VectorXd r(X.rows());
  common::parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    r.segment(b, m).noalias() = y.segment(b, m) - X.middleRows(b, m) * beta;
  });
  return r;
}

Eigen::VectorXd squared_residuals_of(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& beta) {
  Eigen::VectorXd r2(X.rows());
  common::parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    r2.segment(b, m).noalias() = y.segment(b, m) - X.middleRows(b, m) * beta;
    r2.segment(b, m) = r2.segment(b, m).array().square();
  });
  return r2;
}

Eigen::VectorXd squares_of(const Eigen::VectorXd& v) {
  Eigen::VectorXd out(v.size());
  common::parallel_rows(static_cast<std::size_t>(v.size()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = index(begin), m = index(end - begin);
    out.segment(b, m) = v.segment(b, m).array().square();
  });
  return out;
}

double sum_at(const Eigen::VectorXd& values, std::span<const std::size_t> rows) {
  double sum = 0;
  for (std::size_t i : rows) sum += values(index(i));
  return sum;
}

}  // namespace robustfit::regression::detail
