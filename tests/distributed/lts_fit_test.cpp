// LTS and LS across ranks (fit_lts_distributed, fit_ls_distributed) against fit_lts and fit_ls
// on all rows in one process: the search
// and the finish (raw fit, scales with their consistency factors, reweighting, robust R^2,
// inference) to 1e-9, and this rank's rows of the per-row results (outlier flags, weights,
// the h-subset) exactly; even and uneven shards (a rank of no rows, a rank of one row).
#include <gtest/gtest.h>

#include <cmath>

#include "contaminated.hpp"
#include "fit_comparison.hpp"
#include "mpi/distributed_fit.hpp"
#include "robustfit/distributed/communicator.hpp"
#include "robustfit/regression/estimators.hpp"
#include "shards.hpp"

namespace rd = robustfit::distributed;
namespace rr = robustfit::regression;
namespace rt = robustfit::testing;

namespace {

using robustfit::testing::expect_close;

void expect_same_fit(std::size_t n, const std::string& split, rr::LtsOptions options) {
  rd::Communicator comm;
  Eigen::MatrixXd X1;
  Eigen::VectorXd y;
  rt::contaminated(n, X1, y);
  const Eigen::MatrixXd X = X1.rightCols(2);  // the predictors; the intercept comes from options
  options.mcd = false;
  const rr::FitResult want = rr::fit_lts(X, y, options);

  const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
  const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
  const rr::FitResult got = rr::fit_lts_distributed(comm, X.middleRows(b, m), y.segment(b, m), options);
  const std::string where = "n " + std::to_string(n) + " split " + split;

  EXPECT_EQ(got.n, want.n) << where;
  EXPECT_EQ(got.h, want.h) << where;
  EXPECT_EQ(got.subsets_tried, want.subsets_tried) << where;
  EXPECT_EQ(got.exact_fit, want.exact_fit) << where;
  expect_close(got.objective, want.objective, "objective " + where);
  rt::expect_same_coefficients(got, want, where);
  expect_close(got.scale, want.scale, "scale " + where);
  expect_close(got.raw_scale, want.raw_scale, "raw scale " + where);
  expect_close(got.r_squared, want.r_squared, "robust R^2 " + where);
  expect_close(got.inference.sigma, want.inference.sigma, "sigma " + where);
  expect_close(got.inference.multiple_r_squared, want.inference.multiple_r_squared, "R^2 " + where);
  EXPECT_EQ(got.inference.df, want.inference.df) << where;
  if (want.inference.f_statistic) expect_close(*got.inference.f_statistic, *want.inference.f_statistic, "F " + where);

  // This rank's rows of the per-row results.
  rt::expect_same_rows(got, want, begin, end, where);
}

rr::LtsOptions with_subsets(std::size_t subsets) {
  rr::LtsOptions options;
  options.subsets = subsets;
  options.seed = 7;
  return options;
}

TEST(DistributedLtsFit, EqualsOneProcessOnEvenAndUnevenShards) {
  for (const char* split : rt::kSplits) expect_same_fit(400, split, with_subsets(100));
}

TEST(DistributedLtsFit, WithoutInterceptAndWithFullCoverage) {
  rr::LtsOptions no_intercept = with_subsets(100);
  no_intercept.intercept = false;  // the robust R^2 from trimmed sums
  expect_same_fit(300, "one_then_empty", no_intercept);
  rr::LtsOptions everything = with_subsets(50);
  everything.alpha = 1;  // h = n: LS with the unbiased scale
  expect_same_fit(300, "empty_then_one", everything);
}

// The default search: its deterministic starts from the rows fetched to every rank.
TEST(DistributedLtsFit, DefaultSearchEqualsOneProcess) {
  rr::LtsOptions options;
  options.seed = 3;
  expect_same_fit(120, "even", options);
}

TEST(DistributedLtsFit, NestedSearchEqualsOneProcess) {
  expect_same_fit(3000, "empty_then_one", with_subsets(30));
}

TEST(DistributedLsFit, EqualsOneProcess) {
  rd::Communicator comm;
  const std::size_t n = 500;
  Eigen::MatrixXd X1;
  Eigen::VectorXd y;
  rt::contaminated(n, X1, y);
  const Eigen::MatrixXd X = X1.rightCols(2);
  for (const bool intercept : {true, false}) {
    const rr::FitResult want = rr::fit_ls(X, y, intercept);
    for (const char* split : rt::kSplits) {
      const auto [begin, end] = rt::shard_rows(split, n, comm.rank(), comm.size());
      const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
      const rr::FitResult got = rr::fit_ls_distributed(comm, X.middleRows(b, m), y.segment(b, m), intercept);
      const std::string where = std::string("LS split ") + split + (intercept ? "" : " no intercept");
      EXPECT_EQ(got.n, n) << where;
      for (Eigen::Index j = 0; j < want.coefficients.size(); ++j) {
        expect_close(got.coefficients(j), want.coefficients(j), "coefficient " + where);
        expect_close(got.inference.coefficients[static_cast<std::size_t>(j)].std_error,
                     want.inference.coefficients[static_cast<std::size_t>(j)].std_error, "std error " + where);
      }
      expect_close(got.objective, want.objective, "RSS " + where);
      expect_close(got.scale, want.scale, "scale " + where);
      expect_close(got.r_squared, want.r_squared, "R^2 " + where);
      expect_close(got.inference.adj_r_squared, want.inference.adj_r_squared, "adjusted R^2 " + where);
      ASSERT_EQ(got.residuals.size(), m) << where;
      for (Eigen::Index i = 0; i < m; ++i) expect_close(got.residuals(i), want.residuals(b + i), "residual " + where);
    }
  }
}

TEST(DistributedLtsFit, DesignChecksSeeAllRanks) {
  rd::Communicator comm;
  if (comm.size() < 2) GTEST_SKIP() << "needs ranks whose x differ";
  const Eigen::Index m = 5;
  const Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(m, 0, 1);
  const std::vector<std::string> names{"x"};
  // x constant on each rank but not over all ranks: a valid design.
  EXPECT_NO_THROW(rr::check_design_distributed(comm, Eigen::MatrixXd::Constant(m, 1, comm.rank()), y, true, names));
  // x = 2 on every rank: constant, said alike on every rank.
  try {
    rr::check_design_distributed(comm, Eigen::MatrixXd::Constant(m, 1, 2.0), y, true, names);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("predictor 'x' is constant (2.0"), std::string::npos) << e.what();
  }
}

}  // namespace
