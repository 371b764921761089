#pragma once
// QR factors are unique up to the signs of R's rows: R with its rows turned so that its diagonal
// is non-negative, to compare factors from different QR methods.
#include <Eigen/Core>

namespace robustfit::testing {

inline Eigen::MatrixXd positive_diagonal(Eigen::MatrixXd R) {
  for (Eigen::Index i = 0; i < R.rows() && i < R.cols(); ++i)
    if (R(i, i) < 0) R.row(i) *= -1;
  return R;
}

}  // namespace robustfit::testing
