#pragma once
// Independent reference for the kNN tests: every distance computed the plain way, a full sort by
// (distance, row), the first k taken.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace robustfit::testing {

// The module's distance definition: terms in column order, rounded one by one (this header is
// compiled with -ffp-contract=off in the test target, see tests/CMakeLists.txt).
inline double reference_distance(const Eigen::MatrixXd& A, Eigen::Index i, const Eigen::MatrixXd& B, Eigen::Index r,
                                 bool manhattan) {
  double s = 0;
  for (Eigen::Index j = 0; j < A.cols(); ++j) {
    const double diff = A(i, j) - B(r, j);
    s += manhattan ? std::fabs(diff) : diff * diff;
  }
  return manhattan ? s : std::sqrt(s);
}

// (distance, row) of the k nearest rows of `train` to query row i of `queries`, ascending.
inline std::vector<std::pair<double, std::int64_t>> brute_force_knn(const Eigen::MatrixXd& train,
                                                                    const Eigen::MatrixXd& queries, Eigen::Index i,
                                                                    std::size_t k, bool manhattan,
                                                                    Eigen::Index exclude_row = -1) {
  std::vector<std::pair<double, std::int64_t>> all;
  for (Eigen::Index r = 0; r < train.rows(); ++r)
    if (r != exclude_row) all.emplace_back(reference_distance(queries, i, train, r, manhattan), r);
  std::sort(all.begin(), all.end());
  all.resize(k);
  return all;
}

}  // namespace robustfit::testing
