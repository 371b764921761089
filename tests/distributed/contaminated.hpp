#pragma once
// The regression data of the distributed LTS tests.
#include <Eigen/Core>
#include <cstddef>

#include "robustfit/common/random.hpp"

namespace robustfit::testing {

// y = 1 + 2 x1 - x2 + N(0, 0.25), with 20 % of the rows moved far up (vertical outliers) and
// 5 % of the x1 values made large (bad leverage points).
inline void contaminated(std::size_t n, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  robustfit::common::Random random(n);
  X.resize(static_cast<Eigen::Index>(n), 3);
  y.resize(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    X(i, 0) = 1;
    X(i, 1) = random.normal();
    X(i, 2) = random.normal();
    y(i) = 1 + 2 * X(i, 1) - X(i, 2) + 0.5 * random.normal();
    if (i % 5 == 0) y(i) += 20 + random.normal();
    if (i % 20 == 1) X(i, 1) += 15;
  }
}

}  // namespace robustfit::testing
