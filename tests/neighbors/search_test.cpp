// knn_search and the CPU engine against a brute-force full sort by (distance, row), on random
// data with planted exact ties and duplicate points.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "brute_force.hpp"
#include "error_of.hpp"
#include "cpu_engine.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/neighbors/knn.hpp"

namespace nb = robustfit::neighbors;
using robustfit::testing::brute_force_knn;
using robustfit::testing::error_of;

namespace {

// Points on a coarse integer grid (many exact distance ties), some rows duplicated.
Eigen::MatrixXd tied_points(Eigen::Index rows, Eigen::Index d, std::uint64_t seed, int levels = 3) {
  robustfit::common::Random random(seed);
  Eigen::MatrixXd X(rows, d);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = static_cast<double>(random.below(static_cast<std::uint64_t>(levels)));
  for (Eigen::Index i = 1; i < rows; i += 7) X.row(i) = X.row(static_cast<Eigen::Index>(random.below(static_cast<std::uint64_t>(i))));
  return X;
}

Eigen::MatrixXd continuous_points(Eigen::Index rows, Eigen::Index d, std::uint64_t seed) {
  robustfit::common::Random random(seed);
  Eigen::MatrixXd X(rows, d);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < d; ++j) X(i, j) = random.normal() * 10 + 3;
  for (Eigen::Index i = 2; i < rows; i += 5) X.row(i) = X.row(i - 2);  // duplicates
  return X;
}

void expect_matches_brute_force(const Eigen::MatrixXd& train, const Eigen::MatrixXd& queries, std::size_t k,
                                nb::Metric metric) {
  nb::KnnOptions options;
  options.k = k;
  options.metric = metric;
  options.backend = robustfit::selection::Backend::cpu;
  const auto result = nb::knn_search(train, queries, options);
  ASSERT_EQ(result.rows.rows(), queries.rows());
  ASSERT_EQ(static_cast<std::size_t>(result.rows.cols()), k);
  for (Eigen::Index i = 0; i < queries.rows(); ++i) {
    const auto expected = brute_force_knn(train, queries, i, k, metric == nb::Metric::manhattan);
    for (std::size_t j = 0; j < k; ++j) {
      ASSERT_EQ(result.rows(i, static_cast<Eigen::Index>(j)), expected[j].second) << "query " << i << " position " << j;
      ASSERT_EQ(result.distances(i, static_cast<Eigen::Index>(j)), expected[j].first) << "query " << i << " position " << j;
    }
  }
}

}  // namespace

TEST(KnnSearch, MatchesBruteForceWithTiesAndDuplicates) {
  for (const Eigen::Index d : {1, 2, 8, 64}) {
    const Eigen::MatrixXd train = tied_points(150, d, 10 + static_cast<std::uint64_t>(d));
    const Eigen::MatrixXd queries = tied_points(40, d, 20 + static_cast<std::uint64_t>(d));
    for (const std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, std::size_t{149}, std::size_t{150}})
      for (auto metric : {nb::Metric::euclidean, nb::Metric::manhattan}) {
        SCOPED_TRACE(testing::Message() << "d=" << d << " k=" << k);
        expect_matches_brute_force(train, queries, k, metric);
      }
  }
}

TEST(KnnSearch, MatchesBruteForceOnContinuousDataAcrossTiles) {
  // More training rows than one tile and more queries than one task: the running bound and
  // the candidate buffer are exercised.
  for (const Eigen::Index d : {2, 8}) {
    const Eigen::MatrixXd train = continuous_points(5000, d, 30);
    const Eigen::MatrixXd queries = continuous_points(70, d, 31);
    for (const std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{300}})
      for (auto metric : {nb::Metric::euclidean, nb::Metric::manhattan}) expect_matches_brute_force(train, queries, k, metric);
  }
}

TEST(KnnSearch, AllKFromOneToN) {
  const Eigen::MatrixXd train = tied_points(40, 2, 5, 4), queries = tied_points(9, 2, 6, 4);
  for (std::size_t k = 1; k <= 40; ++k) expect_matches_brute_force(train, queries, k, nb::Metric::euclidean);
}

TEST(KnnSearch, HugeAndTinyMagnitudesStayExact) {
  // Squares overflow (direct path) or underflow (the filter's absolute term).
  for (const double scale : {1e200, 1e-160}) {
    Eigen::MatrixXd train = continuous_points(300, 3, 40) * scale, queries = continuous_points(20, 3, 41) * scale;
    expect_matches_brute_force(train, queries, 5, nb::Metric::euclidean);
  }
}

TEST(KnnEngine, UnorderedGivesTheSameSetAndLeaveOneOutExcludesSelf) {
  const Eigen::MatrixXd X = tied_points(300, 8, 50, 2);
  const nb::RowMatrix train = X;
  auto engine = nb::detail::make_cpu_engine(train, nb::Metric::euclidean);
  EXPECT_EQ(engine->name(), "cpu");
  for (const std::size_t k : {std::size_t{1}, std::size_t{17}, std::size_t{299}}) {
    const auto ordered = engine->nearest(train, k, true, std::size_t{0});
    const auto unordered = engine->nearest(train, k, false, std::size_t{0});
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const auto expected = brute_force_knn(X, X, i, k, false, i);
      std::set<std::int64_t> a, b;
      for (std::size_t j = 0; j < k; ++j) {
        ASSERT_EQ(ordered.rows[static_cast<std::size_t>(i) * k + j], expected[j].second);
        ASSERT_EQ(ordered.distances[static_cast<std::size_t>(i) * k + j], expected[j].first);
        a.insert(unordered.rows[static_cast<std::size_t>(i) * k + j]);
        b.insert(expected[j].second);
      }
      ASSERT_EQ(a, b) << "query " << i;
    }
  }
  EXPECT_THROW(engine->nearest(train, 300, false, std::size_t{0}), std::invalid_argument);
}

TEST(KnnSearch, ValidationNamesTheProblem) {
  nb::KnnOptions options;
  const Eigen::MatrixXd train = Eigen::MatrixXd::Random(10, 2), queries = Eigen::MatrixXd::Random(3, 2);
  auto message = [&](const Eigen::MatrixXd& t, const Eigen::MatrixXd& q, std::size_t k) {
    options.k = k;
    return error_of([&] { nb::knn_search(t, q, options); });
  };
  EXPECT_NE(message(train, queries, 0).find("k: must be at least 1"), std::string::npos);
  EXPECT_NE(message(train, queries, 11).find("n = 10"), std::string::npos);
  EXPECT_NE(message(train, Eigen::MatrixXd::Random(3, 3), 1).find("3 columns"), std::string::npos);
  EXPECT_NE(message(train, Eigen::MatrixXd(0, 2), 1).find("queries: no rows"), std::string::npos);
  Eigen::MatrixXd bad = train;
  bad(4, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message(bad, queries, 1).find("train: row 5, column 2 is NaN"), std::string::npos);
  Eigen::MatrixXd inf = queries;
  inf(0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(train, inf, 1).find("queries: row 1, column 1 is infinite"), std::string::npos);
  options.k = 1;
  options.precision = nb::Precision::single_precision;
  options.backend = robustfit::selection::Backend::cpu;
  EXPECT_THROW(nb::knn_search(train, queries, options), std::invalid_argument);
}
