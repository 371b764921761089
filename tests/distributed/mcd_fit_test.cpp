// FAST-MCD across ranks (fit_mcd_distributed, and the robust distances of fit_lts_distributed)
// against fit_mcd on all rows in one process with the same seed: n, h, the starts tried, the
// raw and reweighted centers and covariances and log det to 1e-9 relative, this rank's distances
// to 1e-9, this rank's flagged rows and best h-subset exactly; on the bundled datasets, a
// generated contaminated set (n = 10^5, p = 5, the nested search), even and uneven shards (a
// rank of no rows, a rank of one row), the three exact fits, h = n and p = 1. The engine's two
// MCD calls against the CPU engine's on all rows; a non-finite value on one rank stops every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "cpu_engine.hpp"
#include "fit_comparison.hpp"
#include "mpi/distributed_engine.hpp"
#include "mpi/distributed_fit.hpp"
#include "robustfit/common/random.hpp"
#include "robustfit/data/csv.hpp"
#include "robustfit/data/design.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/estimators.hpp"
#include "robustfit/regression/mcd.hpp"
#include "contaminated.hpp"
#include "shards.hpp"
#include "subsets.hpp"
#include "test_paths.hpp"

namespace rd = robustfit::distributed;
namespace rr = robustfit::regression;
namespace rt = robustfit::testing;

namespace {

using robustfit::testing::expect_close;

void expect_close_matrix(const Eigen::MatrixXd& got, const Eigen::MatrixXd& want, const std::string& what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  for (Eigen::Index i = 0; i < want.rows(); ++i)
    for (Eigen::Index j = 0; j < want.cols(); ++j) expect_close(got(i, j), want(i, j), what);
}

// want's 1-based rows in [begin, end), as 1-based numbers of that block.
std::vector<std::size_t> rows_of_block(const std::vector<std::size_t>& rows, std::size_t begin, std::size_t end) {
  std::vector<std::size_t> mine;
  for (const std::size_t row : rows)
    if (row > begin && row <= end) mine.push_back(row - begin);
  return mine;
}

// fit_mcd_distributed on rank blocks of X (split) against fit_mcd on X.
void expect_same_mcd(const Eigen::MatrixXd& X, const std::string& split, const rr::McdOptions& options,
                     const std::string& name) {
  rd::Communicator comm;
  const rr::McdResult want = rr::fit_mcd(X, options);
  const auto n = static_cast<std::size_t>(X.rows());
  const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  const rr::McdResult got = rr::fit_mcd_distributed(comm, X.middleRows(b, m), options);
  const std::string where = name + " split " + split;

  EXPECT_EQ(got.n, want.n) << where;
  EXPECT_EQ(got.p, want.p) << where;
  EXPECT_EQ(got.h, want.h) << where;
  EXPECT_EQ(got.subsets_tried, want.subsets_tried) << where;
  EXPECT_EQ(got.singular_subsets, want.singular_subsets) << where;
  EXPECT_EQ(got.backend, "mpi+cpu") << where;
  ASSERT_EQ(got.exact_fit, want.exact_fit) << where;
  EXPECT_EQ(got.exact_fit_message, want.exact_fit_message) << where;
  ASSERT_EQ(got.hyperplane.size(), want.hyperplane.size()) << where;
  for (std::size_t j = 0; j < want.hyperplane.size(); ++j) expect_close(got.hyperplane[j], want.hyperplane[j], "hyperplane " + where);
  if (std::isfinite(want.log_det)) {
    expect_close(got.log_det, want.log_det, "log det " + where);
  } else {
    EXPECT_EQ(got.log_det, want.log_det) << where;
  }
  expect_close(got.cutoff, want.cutoff, "cutoff " + where);
  expect_close_matrix(got.center, want.center, "center " + where);
  expect_close_matrix(got.covariance, want.covariance, "covariance " + where);
  expect_close_matrix(got.raw_center, want.raw_center, "raw center " + where);
  expect_close_matrix(got.raw_covariance, want.raw_covariance, "raw covariance " + where);
  if (want.distances.size() > 0) {
    expect_close_matrix(got.distances, want.distances.segment(b, m), "distances " + where);
    expect_close_matrix(got.raw_distances, want.raw_distances.segment(b, m), "raw distances " + where);
  } else {
    EXPECT_EQ(got.distances.size(), 0) << where;
  }
  EXPECT_EQ(got.flagged, rows_of_block(want.flagged, begin, end)) << where;
  EXPECT_EQ(got.best_subset, rows_of_block(want.best_subset, begin, end)) << where;
  // The ranks' flags together are all of one process's (none lost between the blocks).
  EXPECT_EQ(comm.all_reduce_sum(std::uint64_t{got.flagged.size()}), want.flagged.size()) << where;
  EXPECT_EQ(comm.all_reduce_sum(std::uint64_t{got.best_subset.size()}), want.best_subset.size()) << where;
}

Eigen::MatrixXd dataset(const std::string& name, std::size_t skip_last_columns = 0) {
  const auto table = robustfit::data::read_csv(rt::dataset_path(name + ".csv"));
  Eigen::MatrixXd X(0, 0);
  std::size_t numeric = 0;
  for (const auto& column : table.columns) {
    if (numeric + skip_last_columns >= table.columns.size()) break;
    const auto values = robustfit::data::numeric_column(table, column.name, false);
    if (X.size() == 0) X.resize(static_cast<Eigen::Index>(values.values.size()), static_cast<Eigen::Index>(table.columns.size() - skip_last_columns));
    X.col(static_cast<Eigen::Index>(numeric++)) = Eigen::Map<const Eigen::VectorXd>(values.values.data(), X.rows());
  }
  return X;
}

// p standard normal variables; a fifth of the rows moved to a cluster far away (10 + N(0, 1)
// in each variable) and every 50th row scattered (N(0, 100)).
Eigen::MatrixXd contaminated_mcd(std::size_t n, Eigen::Index p) {
  robustfit::common::Random random(n + 11);
  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), p);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < p; ++j) X(i, j) = random.normal() + 0.5 * (j > 0 ? X(i, j - 1) : 0.0);
    if (i % 5 == 0)
      for (Eigen::Index j = 0; j < p; ++j) X(i, j) = 10 + random.normal();
    if (i % 50 == 7)
      for (Eigen::Index j = 0; j < p; ++j) X(i, j) = 10 * random.normal();
  }
  return X;
}

rr::McdOptions seeded(std::uint64_t seed, std::size_t subsets = 500) {
  rr::McdOptions options;
  options.seed = seed;
  options.subsets = subsets;
  return options;
}

TEST(DistributedMcd, BundledDatasetsEqualOneProcess) {
  for (const char* split : rt::kSplits) {
    expect_same_mcd(dataset("hbk"), split, seeded(1), "hbk");
    expect_same_mcd(dataset("stackloss"), split, seeded(2), "stackloss");
    expect_same_mcd(dataset("starsCYG"), split, seeded(3), "starsCYG");
    expect_same_mcd(dataset("iris", 1), split, seeded(4), "iris");
  }
}

TEST(DistributedMcd, FullCoverageAndOneVariableEqualOneProcess) {
  rr::McdOptions everything = seeded(5);
  everything.alpha = 1;  // h = n: the classical estimate, reweighted
  for (const char* split : rt::kSplits) {
    expect_same_mcd(dataset("hbk"), split, everything, "hbk alpha 1");
    expect_same_mcd(dataset("starsCYG").leftCols(1), split, seeded(6), "starsCYG log.Te");  // p = 1
    expect_same_mcd(contaminated_mcd(700, 1), split, seeded(6), "n 700 p 1");
  }
}

TEST(DistributedMcd, NestedSearchEqualsOneProcess) {
  for (const char* split : rt::kSplits) expect_same_mcd(contaminated_mcd(2000, 3), split, seeded(7, 100), "n 2000 p 3");
}

TEST(DistributedMcd, LargeContaminatedSetEqualsOneProcess) {
  expect_same_mcd(contaminated_mcd(100000, 5), "empty_then_one", seeded(8), "n 1e5 p 5");
}

// The exact fits: a constant column (the data's covariance singular: code 1), more than h equal
// values in a column (a MAD of zero: code 3), more than h rows on a plane found during the
// search (code 2).
TEST(DistributedMcd, ExactFitsEqualOneProcess) {
  Eigen::MatrixXd constant = contaminated_mcd(300, 3);
  constant.col(1).setConstant(4.5);
  Eigen::MatrixXd mostly_equal = contaminated_mcd(300, 3);
  for (Eigen::Index i = 0; i < 200; ++i) mostly_equal(3 * i / 2, 2) = -1.25;
  Eigen::MatrixXd plane = contaminated_mcd(300, 3);
  for (Eigen::Index i = 0; i < plane.rows(); ++i)
    if (i % 10 < 7) plane(i, 2) = plane(i, 0) - 2 * plane(i, 1);
  for (const char* split : rt::kSplits) {
    expect_same_mcd(constant, split, seeded(9), "constant column");
    expect_same_mcd(mostly_equal, split, seeded(9), "200 equal values");
    expect_same_mcd(plane, split, seeded(9), "70 % on a plane");
  }
  rd::Communicator comm;
  EXPECT_EQ(rr::fit_mcd(constant, seeded(9)).exact_fit, true);
  EXPECT_NE(rr::fit_mcd(mostly_equal, seeded(9)).exact_fit_message.find("absolute deviation of variable 3 is zero"), std::string::npos);
  EXPECT_NE(rr::fit_mcd(plane, seeded(9)).exact_fit_message.find("during the iterations"), std::string::npos);
}

// A non-finite value on one rank: that rank names the row over all ranks, the others stop
// with PeerFailure, so no rank waits in a collective.
TEST(DistributedMcd, NonFiniteValueOnOneRankStopsEveryRank) {
  rd::Communicator comm;
  Eigen::MatrixXd X = contaminated_mcd(90, 2);
  X(89, 1) = std::numeric_limits<double>::quiet_NaN();
  const auto [begin, end] = rt::shard_rows("even", 90, comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  try {
    rr::fit_mcd_distributed(comm, X.middleRows(b, m), seeded(1));
    ADD_FAILURE() << "no error on rank " << comm.rank();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(comm.rank(), comm.size() - 1);
    EXPECT_EQ(std::string(e.what()), "value in row 90, variable 2 is not finite");
  } catch (const rd::PeerFailure& e) {
    EXPECT_NE(comm.rank(), comm.size() - 1);
    EXPECT_EQ(e.failed_rank(), comm.size() - 1);
  }
  // The ranks still agree afterwards: a fit on good data runs.
  const Eigen::MatrixXd good = contaminated_mcd(90, 2);
  EXPECT_EQ(rr::fit_mcd_distributed(comm, good.middleRows(b, m), seeded(1)).n, 90u);
}

// The engine's MCD calls against the CPU engine on all rows: the starts' Gram matrices bit for
// bit; a C-step's Gram matrices of the h smallest distances (ties by row order) to rounding.
TEST(DistributedMcdEngine, SubsetGramsAndCStepEqualCpuEngine) {
  namespace detail = robustfit::regression::detail;
  rd::Communicator comm;
  const std::size_t n = 500;
  Eigen::MatrixXd X = contaminated_mcd(n, 3);
  for (Eigen::Index i = 0; i < 40; ++i) X.row(2 * i + 1) = X.row(0);  // tied distances
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n));
  detail::CpuEngine cpu(X, ones);
  detail::Random random(4);
  const detail::SubsetMatrix subsets = detail::draw_subsets(random, n, 4, 30);
  Eigen::MatrixXd centers = Eigen::MatrixXd::Zero(3, 2), whiteners(3, 6);
  centers.col(1) = X.row(0).transpose();  // the tied rows at distance 0
  whiteners.leftCols(3) = Eigen::MatrixXd::Identity(3, 3);
  whiteners.rightCols(3) << 1, 0, 0, 0.5, 2, 0, -1, 0.25, 0.7;
  Eigen::MatrixXd want_starts;
  cpu.subset_grams(subsets, want_starts);
  for (const char* split : rt::kSplits) {
    const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    const Eigen::MatrixXd X_mine = X.middleRows(b, m);  // the engine refers to its rows
    const Eigen::VectorXd y_mine = ones.segment(b, m);
    detail::DistributedEngine engine(comm, X_mine, y_mine);
    Eigen::MatrixXd starts;
    engine.subset_grams(subsets, starts);
    EXPECT_EQ(starts, want_starts) << split;
    // h = 20 cuts through the 41 rows at distance 0 from candidate 1: ties by row order.
    for (const std::size_t h : {std::size_t{260}, std::size_t{20}}) {
      Eigen::MatrixXd step, want_step;
      cpu.mcd_c_step(centers, whiteners, h, want_step);
      engine.mcd_c_step(centers, whiteners, h, step);
      expect_close_matrix(step, want_step, std::string("C-step ") + split + " h " + std::to_string(h));
      for (Eigen::Index j = 0; j < 2; ++j) EXPECT_EQ(step(15, j), static_cast<double>(h)) << split;  // the count
    }
  }
}

// A C-step whose distances are NaN on one rank's rows only (an infinite value there, which the
// engine itself does not check): that rank fails, the others stop with PeerFailure - no rank
// waits in DIBMS for one that left - and the engine goes on working afterwards.
TEST(DistributedMcdEngine, NanDistancesOnOneRankStopEveryRank) {
  namespace detail = robustfit::regression::detail;
  rd::Communicator comm;
  const std::size_t n = 60;
  Eigen::MatrixXd X = contaminated_mcd(n, 2);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(n));
  const auto [begin, end] = rt::shard_rows("even", n, comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  Eigen::MatrixXd mine = X.middleRows(b, m);
  const bool last = comm.rank() == comm.size() - 1;
  if (last) mine(m - 1, 1) = std::numeric_limits<double>::infinity();  // inf * 0 in the whitening: NaN
  const Eigen::VectorXd ones_mine = ones.segment(b, m);  // the engines refer to their rows
  detail::DistributedEngine engine(comm, mine, ones_mine);
  const Eigen::MatrixXd center = Eigen::MatrixXd::Zero(2, 1), whitener = Eigen::MatrixXd::Identity(2, 2);
  Eigen::MatrixXd grams;
  try {
    engine.mcd_c_step(center, whitener, 31, grams);
    ADD_FAILURE() << "no error on rank " << comm.rank();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(last) << e.what();
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  } catch (const rd::PeerFailure& e) {
    EXPECT_FALSE(last);
    EXPECT_EQ(e.failed_rank(), comm.size() - 1);
  }
  const Eigen::MatrixXd X_mine = X.middleRows(b, m);
  detail::DistributedEngine good(comm, X_mine, ones_mine);
  good.mcd_c_step(center, whitener, 31, grams);
  EXPECT_EQ(grams(8, 0), 31.0);
}

// fit_lts_distributed with the robust distances (mcd = true) against fit_lts: this rank's
// distances and the cutoff.
TEST(DistributedLtsFit, RobustDistancesEqualOneProcess) {
  rd::Communicator comm;
  const std::size_t n = 400;
  Eigen::MatrixXd X1;
  Eigen::VectorXd y;
  rt::contaminated(n, X1, y);
  const Eigen::MatrixXd X = X1.rightCols(2);
  rr::LtsOptions options;
  options.subsets = 100;
  options.seed = 5;
  const rr::FitResult want = rr::fit_lts(X, y, options);
  ASSERT_EQ(want.robust_distances.size(), n);
  for (const char* split : rt::kSplits) {
    const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    const rr::FitResult got = rr::fit_lts_distributed(comm, X.middleRows(b, m), y.segment(b, m), options);
    expect_close(got.rd_cutoff, want.rd_cutoff, std::string("cutoff ") + split);
    ASSERT_EQ(got.robust_distances.size(), end - begin) << split;
    for (std::size_t i = 0; i < end - begin; ++i)
      expect_close(got.robust_distances[i], want.robust_distances[begin + i], std::string("robust distance ") + split);
    rt::expect_same_rows(got, want, begin, end, split);
  }
}

}  // namespace
