// The finish's reductions across ranks (DistributedReductions) against the one-process code on
// the whole vector: the h smallest (ties to the lower row), trimmed sums, the smallest window
// variance (a sample sort across the ranks), LS from stacked QR factors; values with many ties
// and a constant column, even and uneven shards.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <limits>
#include <numeric>

#include "least_squares.hpp"
#include "mpi/distributed_reductions.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"
#include "shards.hpp"
#include "univariate.hpp"

namespace rd = robustfit::distributed;
namespace rr = robustfit::regression::detail;
namespace rt = robustfit::testing;

namespace {

// Normal values, rounded to few distinct ones when `ties`.
Eigen::VectorXd values(std::size_t n, bool ties) {
  robustfit::common::Random random(n + ties);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = ties ? std::round(2 * random.normal()) : 3 + random.normal();
  return v;
}

Eigen::VectorXd part(const Eigen::VectorXd& all, const std::string& split, const rd::Communicator& comm) {
  const auto [begin, end] = rt::shard_rows(split, static_cast<std::size_t>(all.size()), comm.rank(), comm.size());
  return all.segment(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin));
}

TEST(DistributedReductions, OrderStatisticsEqualOneProcess) {
  rd::Communicator comm;
  const rr::DistributedReductions all(comm);
  for (const bool ties : {false, true}) {
    // 200003: several row chunks per rank (the parallel passes and sorts, ties shared by chunks).
    for (const std::size_t n : {7, 1000, 200003}) {
      const Eigen::VectorXd v = values(n, ties);
      const std::span<const double> whole(v.data(), n);
      for (const char* split : rt::kSplits) {
        const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
        const Eigen::VectorXd mine = part(v, split, comm);
        for (const std::size_t h : {n / 2 + 1, (3 * n) / 4, n}) {
          const std::string where = std::string(split) + " n " + std::to_string(n) + " h " + std::to_string(h) +
                                    (ties ? " ties" : "");
          std::vector<std::size_t> want;
          for (std::size_t row : robustfit::selection::smallest_h_parallel(whole, h).rows)
            if (row >= begin && row < end) want.push_back(row - begin);
          EXPECT_EQ(all.smallest_h(mine, h), want) << where;
          const double trimmed = robustfit::selection::trimmed_sum_parallel(whole, h);
          EXPECT_NEAR(all.trimmed_sum(mine, h), trimmed, 1e-12 * std::max(1.0, std::abs(trimmed))) << where;
          const double variance = rr::min_window_variance(whole, h);
          EXPECT_NEAR(all.min_window_variance(mine, h), variance, 1e-11 * std::max(1e-300, variance) + 1e-15) << where;
        }
      }
    }
  }
}

// FAST-MCD's univariate scan across the ranks against the scan of the sorted whole vector
// (univariate.hpp's VarianceWindowScan, written out here): the same window and sums, bit for bit.
TEST(DistributedReductions, VarianceWindowScanEqualsOneProcess) {
  rd::Communicator comm;
  const rr::DistributedReductions all(comm);
  for (const bool ties : {false, true}) {
    for (const std::size_t n : {7, 1000}) {
      const Eigen::VectorXd v = values(n, ties);
      std::vector<double> sorted(v.data(), v.data() + n);
      std::sort(sorted.begin(), sorted.end());
      const double shift = sorted[n / 2];
      for (const std::size_t h : {std::size_t{1}, n / 2 + 1, n}) {
        // The reference: every window's sums afresh, the first of the smallest variance.
        double best = std::numeric_limits<double>::infinity();
        std::size_t start = 0;
        for (std::size_t s = 0; s + h <= n; ++s) {
          double sum = 0, squares = 0;
          for (std::size_t i = s; i < s + h; ++i) sum += sorted[i] - shift, squares += (sorted[i] - shift) * (sorted[i] - shift);
          const double ss = squares - sum * sum / static_cast<double>(h);
          if (s == 0 || ss < best - 1e-9 * std::max(1.0, std::abs(best))) best = ss, start = s;
        }
        const rr::VarianceWindowScan one = rr::RowReductions{}.min_variance_window(v, h, shift);
        for (const char* split : rt::kSplits) {
          const std::string where = std::string(split) + " n " + std::to_string(n) + " h " + std::to_string(h) +
                                    (ties ? " ties" : "");
          const rr::VarianceWindowScan got = all.min_variance_window(part(v, split, comm), h, shift);
          EXPECT_EQ(got.best_start, one.best_start) << where;
          EXPECT_EQ(got.best_sum, one.best_sum) << where;
          EXPECT_EQ(got.best_ss, one.best_ss) << where;
          // Distinct values, h > 1: no windows of nearly equal variance (with h = 1 all are 0).
          if (!ties && h > 1) {
            EXPECT_EQ(got.best_start, start) << where;
          }
        }
      }
    }
  }
}

// The distributed fit's side computation (distributed_fit.cpp): the window variance on a thread
// and communicator of its own while this thread runs other collectives on the original one.
TEST(DistributedReductions, WindowVarianceOnASideCommunicatorBesideOtherCollectives) {
  if (!rd::threads_may_communicate()) GTEST_SKIP() << "MPI was not started with MPI_THREAD_MULTIPLE";
  rd::Communicator comm;
  const std::size_t n = 200003, h = n / 2 + 6;
  const Eigen::VectorXd v = values(n, false), mine = part(v, "empty_then_one", comm);
  const std::span<const double> whole(v.data(), n);
  const double want = rr::min_window_variance(whole, h);
  const auto [begin, end] = rt::shard_rows("empty_then_one", n, comm.rank(), comm.size());
  std::vector<std::size_t> want_rows;
  for (std::size_t row : robustfit::selection::smallest_h_parallel(whole, h).rows)
    if (row >= begin && row < end) want_rows.push_back(row - begin);
  rd::SideCommunicator side(comm);
  std::future<double> beside = std::async(std::launch::async, [&] { return rr::DistributedReductions(side.get()).min_window_variance(mine, h); });
  const rr::DistributedReductions all(comm);
  for (int round = 0; round < 3; ++round) EXPECT_EQ(all.smallest_h(mine, h), want_rows) << "round " << round;
  EXPECT_NEAR(beside.get(), want, 1e-11 * want);
}

TEST(DistributedReductions, ConstantValuesHaveNoWindowVariance) {
  rd::Communicator comm;
  const rr::DistributedReductions all(comm);
  const Eigen::VectorXd mine = part(Eigen::VectorXd::Constant(50, 2.5), "empty_then_one", comm);
  EXPECT_EQ(all.min_window_variance(mine, 26), 0.0);
}

TEST(DistributedReductions, LeastSquaresFromStackedFactorsEqualsOneProcess) {
  rd::Communicator comm;
  const rr::DistributedReductions all(comm);
  const std::size_t n = 20000;  // several blocks of the tall QR on a rank
  robustfit::common::Random random(9);
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), 3);
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    X.row(i) << 1, random.normal(), 1e3 * random.normal();
    y(i) = X(i, 1) - 2e-3 * X(i, 2) + random.normal();
  }
  std::vector<std::size_t> every_third;
  for (std::size_t i = 0; i < n; i += 3) every_third.push_back(i);
  const Eigen::VectorXd want = *rr::ls_on_rows(X, y, every_third);
  for (const char* split : rt::kSplits) {
    const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    std::vector<std::size_t> mine;
    for (std::size_t i : every_third)
      if (i >= begin && i < end) mine.push_back(i - begin);
    const auto got = rr::ls_on_rows(all, X.middleRows(b, m), y.segment(b, m), mine);
    ASSERT_TRUE(got) << split;
    EXPECT_LT((*got - want).norm(), 1e-12 * want.norm()) << split;
    // Fewer rows than coefficients over all ranks (one on each of the first two): no fit, on
    // every rank alike.
    const std::vector<std::size_t> one = m > 0 && comm.rank() < 2 ? std::vector<std::size_t>{0} : std::vector<std::size_t>{};
    EXPECT_FALSE(rr::ls_on_rows(all, X.middleRows(b, m), y.segment(b, m), one)) << split;
  }
}

}  // namespace
