// The CPU engine's filter kernel (filter_kernel.hpp) and block pruning against the brute-force
// reference: every kernel variant this CPU runs, block boundaries, n not a multiple of the
// block, k = n, ties at the k-th distance spread over many blocks, magnitudes where the filter's
// absolute error term matters or where it must give way to direct distances, and results that
// do not depend on how the queries are batched.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "brute_force.hpp"
#include "cpu_engine.hpp"
#include "filter_kernel.hpp"
#include "robustfit/common/random.hpp"
#include "spatial_order.hpp"

namespace nb = robustfit::neighbors;
using robustfit::testing::brute_force_knn;

namespace {

Eigen::MatrixXd normal_points(Eigen::Index rows, Eigen::Index d, std::uint64_t seed, double scale = 1.0) {
  robustfit::common::Random random(seed);
  Eigen::MatrixXd X(rows, d);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = (random.normal() * 10 + 3) * scale;
  return X;
}

// Few distinct points (levels^d), each repeated many times: exact ties at every distance, and
// the tied rows of one distance fall into many blocks.
Eigen::MatrixXd lattice_points(Eigen::Index rows, Eigen::Index d, std::uint64_t seed, int levels) {
  robustfit::common::Random random(seed);
  Eigen::MatrixXd X(rows, d);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = static_cast<double>(random.below(static_cast<std::uint64_t>(levels)));
  return X;
}

// The engine's ordered lists against brute force, row by row and distance by distance.
void expect_engine_matches(const Eigen::MatrixXd& train, const Eigen::MatrixXd& queries, std::size_t k,
                           const std::string& where) {
  const nb::RowMatrix t = train, q = queries;
  auto engine = nb::detail::make_cpu_engine(t, nb::Metric::euclidean);
  const auto lists = engine->nearest(q, k, true, std::nullopt);
  for (Eigen::Index i = 0; i < queries.rows(); ++i) {
    const auto expected = brute_force_knn(train, queries, i, k, false);
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * k + j;
      ASSERT_EQ(lists.rows[at], expected[j].second) << where << " query " << i << " position " << j;
      ASSERT_EQ(lists.distances[at], expected[j].first) << where << " query " << i << " position " << j;
    }
  }
}

// Runs body once for every kernel variant this CPU has, then restores the default.
template <class Body>
void for_each_variant(Body&& body) {
  const std::string before = nb::detail::scan_block_variant();
  int ran = 0;
  for (const char* name : {"baseline", "avx2", "avx512"}) {
    if (!nb::detail::use_scan_block_variant(name)) continue;
    ++ran;
    SCOPED_TRACE(name);
    body(std::string(name));
  }
  ASSERT_TRUE(nb::detail::use_scan_block_variant(before));
  EXPECT_GE(ran, 1);
}

constexpr auto B = static_cast<Eigen::Index>(nb::detail::kBlockRows);

}  // namespace

TEST(KnnFilterKernel, EveryVariantMatchesBruteForceAcrossBlockBoundaries) {
  for_each_variant([](const std::string& variant) {
    // n just under, at and over one block, and over several blocks with a partial last one.
    for (const Eigen::Index n : {B - 1, B, B + 1, 3 * B + 37})
      for (const Eigen::Index d : {1, 3, 8, 17}) {
        const Eigen::MatrixXd train = normal_points(n, d, 100 + static_cast<std::uint64_t>(n + d));
        const Eigen::MatrixXd queries = normal_points(23, d, 200 + static_cast<std::uint64_t>(n + d));
        for (const std::size_t k : {std::size_t{1}, std::size_t{10}, static_cast<std::size_t>(n)})
          expect_engine_matches(train, queries, k,
                                variant + " n=" + std::to_string(n) + " d=" + std::to_string(d) + " k=" + std::to_string(k));
      }
  });
}

TEST(KnnFilterKernel, TiesAtTheKthDistanceGoToTheSmallerRowsAcrossBlocks) {
  // 3^2 distinct points over 5 blocks: every k cuts through a group of exactly tied rows.
  for_each_variant([](const std::string& variant) {
    const Eigen::MatrixXd train = lattice_points(5 * B - 3, 2, 7, 3), queries = lattice_points(30, 2, 8, 4);
    for (const std::size_t k : {std::size_t{1}, std::size_t{50}, std::size_t{141}, std::size_t{700}, static_cast<std::size_t>(5 * B - 3)})
      expect_engine_matches(train, queries, k, variant + " k=" + std::to_string(k));
  });
}

TEST(KnnFilterKernel, TinyHugeAndMixedMagnitudes) {
  for_each_variant([](const std::string& variant) {
    // 1e-155: squares in the subnormal range (the bound's absolute term); 1e-170: squares
    // underflow to zero (every row a candidate, direct distances decide); 1e150: squares near the
    // top of the range with the filter still on; 1e152: the filter's squares would overflow, direct
    // path (THE distances themselves stay finite).
    for (const double scale : {1e-155, 1e-170, 1e150, 1e152}) {
      const Eigen::MatrixXd train = normal_points(2 * B + 5, 3, 40, scale), queries = normal_points(15, 3, 41, scale);
      expect_engine_matches(train, queries, 7, variant + " scale " + std::to_string(scale));
    }
    // Far from the origin with a tiny spread, |q|^2 + |x|^2 - 2 q.x cancels to rounding noise:
    // the error bound then admits every row and the direct distances decide.
    const Eigen::MatrixXd offset = Eigen::MatrixXd::Constant(2 * B + 5, 3, 1e8);
    expect_engine_matches(offset + normal_points(2 * B + 5, 3, 44, 1e-4),
                          offset.topRows(15) + normal_points(15, 3, 45, 1e-4), 6, variant + " offset");
    // A few far rows make one block's error bound huge: its rows are rechecked, none lost.
    Eigen::MatrixXd train = normal_points(3 * B, 4, 42);
    for (Eigen::Index i = 0; i < train.rows(); i += 97) train.row(i) *= 1e120;
    expect_engine_matches(train, normal_points(20, 4, 43), 12, variant + " mixed");
  });
}

TEST(KnnFilterKernel, LeaveOneOutOverManyBlocksWithKEqualToNMinusOne) {
  const Eigen::MatrixXd X = lattice_points(2 * B + 9, 3, 60, 3);
  const nb::RowMatrix train = X;
  auto engine = nb::detail::make_cpu_engine(train, nb::Metric::euclidean);
  for (const std::size_t k : {std::size_t{1}, std::size_t{40}, static_cast<std::size_t>(X.rows() - 1)}) {
    const auto lists = engine->nearest(train, k, true, std::size_t{0});
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const auto expected = brute_force_knn(X, X, i, k, false, i);
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(lists.rows[static_cast<std::size_t>(i) * k + j], expected[j].second) << "k " << k << " query " << i;
        ASSERT_EQ(lists.distances[static_cast<std::size_t>(i) * k + j], expected[j].first) << "k " << k << " query " << i;
      }
    }
  }
}

TEST(KnnFilterKernel, ResultsDoNotDependOnHowQueriesAreBatched) {
  // Queries searched all at once (spatially reordered, grouped, split over threads) and one at
  // a time give identical lists.
  const nb::RowMatrix train = normal_points(4 * B + 11, 8, 70), queries = normal_points(90, 8, 71);
  auto engine = nb::detail::make_cpu_engine(train, nb::Metric::euclidean);
  const std::size_t k = 25;
  const auto together = engine->nearest(queries, k, true, std::nullopt);
  for (Eigen::Index i = 0; i < queries.rows(); ++i) {
    const nb::RowMatrix one = queries.row(i);
    const auto alone = engine->nearest(one, k, true, std::nullopt);
    for (std::size_t j = 0; j < k; ++j) {
      ASSERT_EQ(alone.rows[j], together.rows[static_cast<std::size_t>(i) * k + j]) << "query " << i;
      ASSERT_EQ(alone.distances[j], together.distances[static_cast<std::size_t>(i) * k + j]) << "query " << i;
    }
  }
}

TEST(KnnSpatialOrder, IsAPermutationWithCompactLeaves) {
  const nb::RowMatrix X = normal_points(1000, 3, 80);
  const std::size_t leaf = 64;
  const auto order = nb::detail::spatial_order(X, leaf);
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> identity(X.rows());
  std::iota(identity.begin(), identity.end(), std::size_t{0});
  EXPECT_EQ(sorted, identity);
  EXPECT_EQ(nb::detail::spatial_order(X, leaf), order);  // deterministic
  // The leaves' boxes are much smaller than those of leaves in the original (random) order.
  auto leaf_volumes = [&](const std::vector<std::size_t>& o) {
    double sum = 0;
    for (std::size_t b = 0; b * leaf < o.size(); ++b) {
      Eigen::MatrixXd L(static_cast<Eigen::Index>(std::min(leaf, o.size() - b * leaf)), 3);
      for (Eigen::Index i = 0; i < L.rows(); ++i) L.row(i) = X.row(static_cast<Eigen::Index>(o[b * leaf + static_cast<std::size_t>(i)]));
      sum += (L.colwise().maxCoeff() - L.colwise().minCoeff()).prod();
    }
    return sum;
  };
  EXPECT_LT(leaf_volumes(order), 0.1 * leaf_volumes(identity));
}
