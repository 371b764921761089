#pragma once
// The distributed engine's LTS passes (lts_objectives, c_step) against the CPU engine on all
// rows, with the passes on the ranks' CPUs or GPUs: objectives to 1e-9 relative, the C-step's
// objectives and new coefficients likewise. The data and half of the candidates are integers,
// so every backend computes their squares exactly and h cuts through many tied squares: the
// h-subsets must break the ties in global row order as the CPU engine does.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <string>
#include <vector>

#include "cpu_engine.hpp"
#include "mpi/distributed_engine.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "shards.hpp"

namespace robustfit::testing {

inline void tied_rows(std::size_t n, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  X.resize(static_cast<Eigen::Index>(n), 3);
  y.resize(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    X(i, 0) = 1;
    X(i, 1) = static_cast<double>(i % 7);
    X(i, 2) = static_cast<double>((3 * i) % 5);
    y(i) = static_cast<double>(i % 11) + (i % 13 == 0 ? 40 : 0);
  }
}

// m candidates: even columns integers in [-2, 2] (tied squares), odd ones N(0, 1).
inline Eigen::MatrixXd candidates(std::size_t m, std::uint64_t seed) {
  common::Random random(seed);
  Eigen::MatrixXd betas(3, static_cast<Eigen::Index>(m));
  for (Eigen::Index j = 0; j < betas.cols(); ++j)
    for (Eigen::Index r = 0; r < 3; ++r)
      betas(r, j) = j % 2 == 0 ? static_cast<double>(random.below(5)) - 2 : random.normal();
  return betas;
}

inline void expect_passes_equal_cpu_engine(bool gpu, std::size_t n, const std::string& split, std::size_t max_batch) {
  distributed::Communicator comm;
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  tied_rows(n, X, y);
  const std::size_t h = (n + 3 + 1) / 2, m = 9;
  const Eigen::MatrixXd betas = candidates(m, n + max_batch);
  regression::detail::CpuEngine one(X, y);
  const auto [begin, end] = shard_rows(split, n, comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), rows = static_cast<Eigen::Index>(end - begin);
  const Eigen::MatrixXd X_mine = X.middleRows(b, rows);  // the engine refers to its rows
  const Eigen::VectorXd y_mine = y.segment(b, rows);
  regression::detail::DistributedEngine many(comm, X_mine, y_mine, gpu, max_batch);
  const std::string where = "n " + std::to_string(n) + " split " + split + " batch " + std::to_string(max_batch);
  EXPECT_EQ(many.backend_name(), gpu ? "mpi+cuda" : "mpi+cpu");

  std::vector<double> want(m), got(m);
  one.lts_objectives(betas, h, want);
  many.lts_objectives(betas, h, got);
  for (std::size_t j = 0; j < m; ++j) EXPECT_NEAR(got[j], want[j], 1e-9 * std::max(1.0, want[j])) << where << " objective " << j;

  Eigen::MatrixXd stepped_one = betas, stepped_many = betas;
  one.c_step(stepped_one, h, want);
  many.c_step(stepped_many, h, got);
  for (std::size_t j = 0; j < m; ++j) {
    EXPECT_NEAR(got[j], want[j], 1e-9 * std::max(1.0, want[j])) << where << " C-step objective " << j;
    const auto col = static_cast<Eigen::Index>(j);
    EXPECT_LT((stepped_many.col(col) - stepped_one.col(col)).norm(), 1e-9 * std::max(1.0, stepped_one.col(col).norm()))
        << where << " C-step coefficients " << j;
  }
}

}  // namespace robustfit::testing
