// LMS across ranks (fit_lms_distributed) against fit_lms on all rows in one process: the
// search (the exact intercept adjustment across ranks), the refinement and the finish to 1e-9,
// and this rank's rows of the per-row results (outlier flags, weights, the h-subset) exactly;
// even and uneven shards (a rank of no rows, a rank of one row). Also the reductions the LMS
// fit adds (kth_smallest_many, shortest_window_below, before, gathered) against one process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "contaminated.hpp"
#include "fit_comparison.hpp"
#include "mpi/distributed_fit.hpp"
#include "mpi/distributed_reductions.hpp"
#include "mpi/distributed_window.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/estimators.hpp"
#include "shards.hpp"
#include "univariate.hpp"

namespace rd = robustfit::distributed;
namespace rr = robustfit::regression;
namespace rt = robustfit::testing;

namespace {

using robustfit::testing::expect_close;

void expect_same_fit(std::size_t n, const std::string& split, rr::LmsOptions options) {
  rd::Communicator comm;
  Eigen::MatrixXd X1;
  Eigen::VectorXd y;
  rt::contaminated(n, X1, y);
  const Eigen::MatrixXd X = X1.rightCols(2);
  const rr::FitResult want = rr::fit_lms(X, y, options);

  const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  const rr::FitResult got = rr::fit_lms_distributed(comm, X.middleRows(b, m), y.segment(b, m), options);
  const std::string where = "n " + std::to_string(n) + " split " + split;

  EXPECT_EQ(got.method, rr::Method::lms) << where;
  EXPECT_EQ(got.n, want.n) << where;
  EXPECT_EQ(got.h, want.h) << where;
  EXPECT_EQ(got.subsets_tried, want.subsets_tried) << where;
  EXPECT_EQ(got.exhaustive, want.exhaustive) << where;
  EXPECT_EQ(got.exact_fit, want.exact_fit) << where;
  expect_close(got.objective, want.objective, "objective " + where);
  rt::expect_same_coefficients(got, want, where);
  expect_close(got.scale, want.scale, "scale " + where);
  expect_close(got.raw_scale, want.raw_scale, "raw scale " + where);
  expect_close(got.r_squared, want.r_squared, "LMS R^2 " + where);
  expect_close(got.inference.sigma, want.inference.sigma, "sigma " + where);

  rt::expect_same_rows(got, want, begin, end, where);
}

rr::LmsOptions with_subsets(std::size_t subsets) {
  rr::LmsOptions options;
  options.subsets = subsets;
  options.seed = 7;
  return options;
}

TEST(DistributedLmsFit, EqualsOneProcessOnEvenAndUnevenShards) {
  for (const char* split : rt::kSplits) expect_same_fit(400, split, with_subsets(100));
}

TEST(DistributedLmsFit, WithoutInterceptAndWithGivenCoverage) {
  rr::LmsOptions no_intercept = with_subsets(100);
  no_intercept.intercept = false;  // the h-th smallest square, no window
  expect_same_fit(300, "one_then_empty", no_intercept);
  rr::LmsOptions coverage = with_subsets(60);
  coverage.h = 240;  // 2h > n
  expect_same_fit(300, "empty_then_one", coverage);
}

// The default search: deterministic starts fetched to every rank, LS steps then Chebyshev steps.
TEST(DistributedLmsFit, DefaultSearchEqualsOneProcess) {
  rr::LmsOptions options;
  options.seed = 3;
  expect_same_fit(120, "even", options);
}

TEST(DistributedLmsFit, LargerUnevenShards) { expect_same_fit(5000, "empty_then_one", with_subsets(40)); }

// Normal values, rounded to few distinct ones when `ties`.
Eigen::VectorXd values(std::size_t n, bool ties, std::uint64_t seed) {
  robustfit::common::Random random(seed);
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = ties ? std::round(2 * random.normal()) : 3 + random.normal();
  return v;
}

TEST(DistributedShortestWindow, EqualsOneProcess) {
  rd::Communicator comm;
  const rr::detail::DistributedReductions all(comm);
  for (const bool ties : {false, true})
    for (const std::size_t n : {1, 7, 1000}) {
      for (const char* split : rt::kSplits) {
        const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
        const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
        std::vector<Eigen::VectorXd> whole, mine;
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
          whole.push_back(values(n, ties, seed * 100 + n));
          mine.push_back(whole.back().segment(b, m));
        }
        for (const std::size_t h : {std::size_t{1}, std::max<std::size_t>(1, n / 2), n / 2 + 1, (3 * n) / 4 + 1, n}) {
          if (h > n) continue;
          const std::string where = std::string(split) + " n " + std::to_string(n) + " h " + std::to_string(h) +
                                    (ties ? " ties" : "");
          const std::vector<rr::detail::ShortestWindow> got = rr::detail::shortest_windows(comm, mine, h);
          ASSERT_EQ(got.size(), whole.size());
          for (std::size_t i = 0; i < whole.size(); ++i) {
            std::vector<double> sorted(whole[i].data(), whole[i].data() + n);
            std::sort(sorted.begin(), sorted.end());
            const rr::detail::ShortestWindow want = rr::detail::shortest_window_sorted(sorted, h);
            EXPECT_EQ(got[i].half_width, want.half_width) << where;
            EXPECT_EQ(got[i].center, want.center) << where;
          }
          // Through the reductions, with bounds: just above the answer (found), at it (none).
          const rr::detail::ShortestWindow want = got[0];
          const auto above = all.shortest_window_below(mine[0], h, std::nextafter(want.half_width, 1e300));
          ASSERT_TRUE(above.has_value() || want.half_width == 0) << where;
          if (above) {
            EXPECT_EQ(above->center, want.center) << where;
          }
          EXPECT_FALSE(all.shortest_window_below(mine[0], h, want.half_width).has_value()) << where;
          // The k-th smallest.
          std::vector<double> sorted(whole[0].data(), whole[0].data() + n);
          std::sort(sorted.begin(), sorted.end());
          const std::size_t ks[] = {0, h - 1, n - 1};
          const std::vector<double> kth = all.kth_smallest_many(mine[0], ks);
          for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(kth[k], sorted[ks[k]]) << where;
          // This rank's first row over all ranks, and every rank's rows in rank order.
          EXPECT_EQ(all.before(static_cast<std::size_t>(m)), begin) << where;
          const Eigen::MatrixXd rows = all.gathered(Eigen::MatrixXd(mine[0]));
          ASSERT_EQ(rows.rows(), static_cast<Eigen::Index>(n)) << where;
          EXPECT_EQ(Eigen::VectorXd(rows.col(0)), whole[0]) << where;
        }
      }
    }
}

}  // namespace
