#include "design_matrix.hpp"

#include <Eigen/QR>
#include <cmath>
#include <stdexcept>
#include <string>

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

void require_finite(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Namer& predictor) {
  for (Eigen::Index i = 0; i < y.size(); ++i)
    if (!std::isfinite(y(i)))
      throw std::invalid_argument("the response has a non-finite value in row " + std::to_string(i + 1));
  for (Eigen::Index j = 0; j < X.cols(); ++j)
    for (Eigen::Index i = 0; i < X.rows(); ++i)
      if (!std::isfinite(X(i, j)))
        throw std::invalid_argument(predictor(j) + " has a non-finite value in row " + std::to_string(i + 1));
}

void require_full_rank(const ModelData& data, const Namer& predictor) {
  // Pivoted QR of the blockwise R factors (TSQR): the same singular values and column norms as
  // X itself, at the cost of a parallel blocked QR instead of an unblocked pivoted one.
  const Eigen::MatrixXd factors = stacked_block_factors(data.X, data.y, {});
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(factors.leftCols(data.X.cols()));
  if (static_cast<std::size_t>(qr.rank()) == data.p()) return;
  // The pivoted QR puts the dependent columns last; name the first of them.
  const Eigen::Index column = qr.colsPermutation().indices()(qr.rank());
  const Eigen::Index offset = data.intercept ? 1 : 0;
  const std::string name = column < offset ? std::string("the intercept") : predictor(column - offset);
  throw std::invalid_argument("the design matrix is rank deficient (rank " + std::to_string(qr.rank()) +
                              " < " + std::to_string(data.p()) + " coefficients): " + name +
                              " is a linear combination of the other columns (collinear predictors)");
}

}  // namespace

ModelData make_model_data(const Eigen::MatrixXd& predictors, const Eigen::VectorXd& y, bool intercept,
                          std::span<const std::string> names) {
  const Namer predictor{names};
  if (predictors.rows() != y.size())
    throw std::invalid_argument("X has " + std::to_string(predictors.rows()) + " rows but y has " +
                                std::to_string(y.size()) + " values");
  require_finite(predictors, y, predictor);
  ModelData data;
  data.intercept = intercept;
  const Eigen::Index offset = intercept ? 1 : 0;
  data.X.resize(predictors.rows(), predictors.cols() + offset);
  if (intercept) data.X.col(0).setOnes();
  data.X.rightCols(predictors.cols()) = predictors;
  data.y = y;
  if (data.p() == 0) throw std::invalid_argument("the model has no coefficients: no predictors and no intercept");
  if (data.n() <= data.p())
    throw std::invalid_argument("too few observations: n = " + std::to_string(data.n()) +
                                " must exceed the number of coefficients p = " + std::to_string(data.p()));
  if (intercept)
    for (Eigen::Index j = 0; j < predictors.cols(); ++j)
      if (predictors.col(j).maxCoeff() == predictors.col(j).minCoeff())
        throw std::invalid_argument(predictor(j) + " is constant (" + std::to_string(predictors(0, j)) +
                                    "): it is collinear with the intercept; remove it");
  require_full_rank(data, predictor);
  return data;
}

}  // namespace robustfit::regression::detail
