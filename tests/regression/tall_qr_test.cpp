// stacked_block_factors factors each block in a reused buffer, in place; these are the factors
// of the straightforward way (a fresh matrix per block, HouseholderQR<MatrixXd> of a copy), bit
// for bit, for all rows and for gathered rows, over several blocks and block sizes.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/QR>
#include <algorithm>
#include <random>
#include <vector>

#include "regression/src/tall_qr.hpp"

namespace {

using robustfit::regression::detail::stacked_block_factors;

// The stacked factors as tall_qr.cpp computed them before factoring in place.
Eigen::MatrixXd straightforward(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::vector<std::size_t>& rows) {
  const std::size_t m = rows.empty() ? static_cast<std::size_t>(X.rows()) : rows.size();
  const Eigen::Index q = X.cols() + 1;
  const std::size_t blocks = std::max<std::size_t>(1, (m + 8191) / 8192);
  Eigen::MatrixXd stacked(0, q);
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t begin = b * m / blocks, end = (b + 1) * m / blocks;
    Eigen::MatrixXd block(static_cast<Eigen::Index>(end - begin), q);
    for (std::size_t i = begin; i < end; ++i) {
      const auto row = static_cast<Eigen::Index>(rows.empty() ? i : rows[i]);
      block.row(static_cast<Eigen::Index>(i - begin)) << X.row(row), y(row);
    }
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(block);
    const Eigen::MatrixXd factor = qr.matrixQR().topRows(std::min(block.rows(), q)).triangularView<Eigen::Upper>();
    stacked.conservativeResize(stacked.rows() + factor.rows(), q);
    stacked.bottomRows(factor.rows()) = factor;
  }
  return stacked;
}

TEST(TallQr, InPlaceBlockFactorsAreTheStraightforwardOnes) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  for (const Eigen::Index p : {1, 4, 11}) {
    const Eigen::Index n = 40000 + 17 * p;
    Eigen::MatrixXd X(n, p);
    Eigen::VectorXd y(n);
    for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng) * (i % 5 == 0 ? 1e4 : 1.0);
    for (Eigen::Index i = 0; i < n; ++i) y(i) = normal(rng);
    std::vector<std::size_t> some;
    for (Eigen::Index i = 0; i < n; ++i)
      if (rng() % 10 < 7) some.push_back(static_cast<std::size_t>(i));
    const std::vector<std::size_t> few = {3, 9, 10, 200};
    const std::vector<std::size_t>* const row_sets[] = {&some, &few};
    for (const auto* rows : row_sets) {
      EXPECT_EQ(stacked_block_factors(X, y, *rows), straightforward(X, y, *rows)) << p << " " << rows->size();
    }
    EXPECT_EQ(stacked_block_factors(X, y, {}), straightforward(X, y, {})) << p;
  }
}

}  // namespace
