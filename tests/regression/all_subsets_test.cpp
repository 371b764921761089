// Every elemental subset (all_subsets, --subsets all): against robustbase's
// ltsReg(nsamp = "exact") and MASS's lqs(method = "lms", nsamp = "exact") (fixtures
// NAME_lts_exact.json / NAME_lms_exact.json of tests/fixtures/make_fixtures.R), and the
// streamed enumeration against the same computation done all at once, whatever the chunk size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>

#include "reference_data.hpp"
#include "regression/src/best_candidates.hpp"
#include "regression/src/cpu_engine.hpp"
#include "regression/src/elemental_stream.hpp"
#include "regression/src/lts_search.hpp"
#include "regression/src/subsets.hpp"
#include "robustfit/regression/estimators.hpp"

namespace robustfit::testing {
namespace {

namespace rr = regression::detail;
using regression::all_subsets;

struct ExactCase {
  const char* name;
  const char* response;
};
void PrintTo(const ExactCase& c, std::ostream* os) { *os << c.name << " (response " << c.response << ")"; }

class RobustbaseExact : public ::testing::TestWithParam<ExactCase> {};

double binomial_by_product(std::size_t n, std::size_t p) {
  double c = 1;
  for (std::size_t i = 1; i <= p; ++i) c = c * static_cast<double>(n - p + i) / static_cast<double>(i);
  return std::round(c);
}

TEST_P(RobustbaseExact, LtsObjectiveNoWorseThanLtsRegExact) {
  const auto [name, response] = GetParam();
  const auto design = load_design(name, response);
  const auto r = load_fixture(std::string(name) + "_lts_exact.json");
  regression::LtsOptions options;
  options.subsets = all_subsets;
  options.mcd = false;
  const auto fit = regression::fit_lts(design.X, design.y, options);
  EXPECT_TRUE(fit.exhaustive);
  EXPECT_EQ(static_cast<double>(fit.subsets_tried), binomial_by_product(fit.n, fit.p));
  EXPECT_EQ(fit.h, r["h"].get<std::size_t>());
  const double objective = r["objective"].get<double>();
  EXPECT_LE(fit.objective, objective * (1 + 1e-9));
  if (std::abs(fit.objective - objective) <= 1e-9 * objective) {
    EXPECT_EQ(outlier_rows(fit.outlier), r["outliers"].get<std::vector<std::size_t>>());
    const Eigen::VectorXd want = coefficients_of(r["raw_coefficients"]);
    EXPECT_LE((fit.raw_coefficients - want).norm(), 1e-8 * want.norm());
  }
  // No random draw: the seed changes nothing (checked where a second fit is cheap).
  if (fit.subsets_tried <= 10000) {
    options.seed = 12345;
    EXPECT_EQ(regression::fit_lts(design.X, design.y, options).raw_coefficients, fit.raw_coefficients);
  }
}

TEST_P(RobustbaseExact, LmsObjectiveNoWorseThanLqsExact) {
  const auto [name, response] = GetParam();
  const auto design = load_design(name, response);
  const auto r = load_fixture(std::string(name) + "_lms_exact.json");
  regression::LmsOptions options;
  options.subsets = all_subsets;
  const auto fit = regression::fit_lms(design.X, design.y, options);
  EXPECT_TRUE(fit.exhaustive);
  EXPECT_EQ(static_cast<double>(fit.subsets_tried), binomial_by_product(fit.n, fit.p));
  EXPECT_EQ(fit.h, r["h"].get<std::size_t>());
  EXPECT_LE(fit.objective, r["objective"].get<double>() * (1 + 1e-9));
  // The objective is the h-th smallest squared residual of the raw coefficients.
  Eigen::MatrixXd X(design.X.rows(), design.X.cols() + 1);
  X << Eigen::VectorXd::Ones(design.X.rows()), design.X;
  Eigen::VectorXd r2 = (design.y - X * fit.raw_coefficients).array().square();
  std::nth_element(r2.data(), r2.data() + fit.h - 1, r2.data() + r2.size());
  EXPECT_NEAR(fit.objective, r2(static_cast<Eigen::Index>(fit.h - 1)), 1e-12 * fit.objective);
}

INSTANTIATE_TEST_SUITE_P(Datasets, RobustbaseExact,
                         ::testing::Values(ExactCase{"stackloss", "stack.loss"}, ExactCase{"hbk", "Y"},
                                           ExactCase{"starsCYG", "log.light"}),
                         [](const auto& instance) { return std::string(instance.param.name); });

// y = 1 + x1 - x2 + noise with a 0/1 column (many singular subsets) and 20 % vertical outliers.
void small_problem(Eigen::Index n, Eigen::MatrixXd& X, Eigen::VectorXd& y) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0, 1);
  X.resize(n, 4);
  y.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    X(i, 0) = 1;
    X(i, 1) = normal(rng);
    X(i, 2) = normal(rng);
    X(i, 3) = i % 3 == 0 ? 1 : 0;
    y(i) = 1 + X(i, 1) - X(i, 2) + 0.3 * normal(rng) + (i % 5 == 1 ? 15 : 0);
  }
}

// The reference: every subset at once (enumerate_subsets, one solve, `steps` C-steps on the
// whole matrix), ranked by a stable sort on the objective, bitwise repeats dropped.
struct Ranked {
  Eigen::MatrixXd columns;
  std::vector<double> objectives;
  std::vector<std::uint64_t> indices;
};
Ranked all_at_once(rr::Engine& engine, std::size_t h, int steps, std::size_t keep) {
  const rr::SubsetMatrix all = rr::enumerate_subsets(engine.rows(), engine.cols());
  Eigen::MatrixXd fits;
  std::vector<std::uint8_t> ok;
  engine.solve_elemental(all, fits, ok);
  std::vector<std::uint64_t> index;
  for (std::size_t j = 0; j < ok.size(); ++j)
    if (ok[j]) index.push_back(j);
  Eigen::MatrixXd regular(fits.rows(), static_cast<Eigen::Index>(index.size()));
  for (std::size_t k = 0; k < index.size(); ++k) regular.col(static_cast<Eigen::Index>(k)) = fits.col(static_cast<Eigen::Index>(index[k]));
  std::vector<double> objectives(index.size());
  for (int s = 0; s < steps; ++s) engine.c_step(regular, h, objectives);
  engine.lts_objectives(regular, h, objectives);
  std::vector<std::size_t> order(index.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return objectives[a] < objectives[b]; });
  Ranked out;
  std::vector<Eigen::VectorXd> kept;
  for (std::size_t k : order) {
    if (kept.size() == keep) break;
    const Eigen::VectorXd c = regular.col(static_cast<Eigen::Index>(k));
    bool repeat = false;
    for (std::size_t j = 0; j < kept.size(); ++j) repeat = repeat || (out.objectives[j] == objectives[k] && kept[j] == c);
    if (repeat) continue;
    kept.push_back(c);
    out.objectives.push_back(objectives[k]);
    out.indices.push_back(index[k]);
  }
  out.columns.resize(regular.rows(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t j = 0; j < kept.size(); ++j) out.columns.col(static_cast<Eigen::Index>(j)) = kept[j];
  return out;
}

TEST(AllSubsetsStream, KeepsWhatTheAllAtOnceRankingKeepsWhateverTheChunk) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  small_problem(24, X, y);  // C(24, 4) = 10626 subsets, a third of them singular
  rr::CpuEngine engine(X, y);
  const std::size_t h = 14, keep = 20;
  const Ranked want = all_at_once(engine, h, 2, keep);
  ASSERT_EQ(want.indices.size(), keep);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{10626}, std::size_t{1} << 16}) {
    rr::BestCandidates best(keep);
    rr::Progress progress;
    const rr::ElementalStream stream = rr::stream_elemental_fits(
        engine, chunk, best,
        [&](Eigen::MatrixXd& fits, std::vector<double>& objectives) {
          for (int s = 0; s < 2; ++s) engine.c_step(fits, h, objectives);
          engine.lts_objectives(fits, h, objectives);
        },
        progress, 0, 1);
    EXPECT_EQ(stream.tried, 10626u) << chunk;
    EXPECT_GT(stream.singular, 0u) << chunk;
    EXPECT_EQ(best.indices(), want.indices) << chunk;
    EXPECT_EQ(best.objectives(), want.objectives) << chunk;
    EXPECT_EQ(best.columns(), want.columns) << chunk;
  }
}

TEST(AllSubsetsStream, LtsSearchIsTheSameWhateverTheChunk) {
  Eigen::MatrixXd X;
  Eigen::VectorXd y;
  small_problem(22, X, y);
  rr::CpuEngine engine(X, y);
  regression::PhaseTimings timings;
  const rr::SearchOutcome whole = rr::lts_search(engine, 13, all_subsets, 0, timings, {}, {}, 7315);  // C(22, 4)
  EXPECT_TRUE(whole.exhaustive);
  EXPECT_EQ(whole.tried, 7315u);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 16}) {
    const rr::SearchOutcome part = rr::lts_search(engine, 13, all_subsets, 9, timings, {}, {}, chunk);
    EXPECT_EQ(part.best, whole.best) << chunk;
    EXPECT_EQ(part.objective, whole.objective) << chunk;
    EXPECT_EQ(part.singular, whole.singular) << chunk;
  }
}

TEST(AllSubsetsStream, BestCandidatesMatchAStableSortWithRepeatsDropped) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> small(0, 5);
  const std::size_t m = 3000, keep = 25;
  Eigen::MatrixXd columns(2, static_cast<Eigen::Index>(m));
  std::vector<double> objectives(m);
  for (std::size_t j = 0; j < m; ++j) {  // many ties, many bitwise repeats
    columns(0, static_cast<Eigen::Index>(j)) = small(rng);
    columns(1, static_cast<Eigen::Index>(j)) = small(rng);
    objectives[j] = static_cast<double>(small(rng));
  }
  rr::BestCandidates best(keep);
  for (std::size_t j = 0; j < m; ++j) best.offer(columns.col(static_cast<Eigen::Index>(j)), objectives[j], j);
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return objectives[a] < objectives[b]; });
  std::vector<std::uint64_t> want;
  for (std::size_t k : order) {
    if (want.size() == keep) break;
    const bool repeat = std::any_of(want.begin(), want.end(), [&](std::uint64_t j) {
      return objectives[j] == objectives[k] && columns.col(static_cast<Eigen::Index>(j)) == columns.col(static_cast<Eigen::Index>(k));
    });
    if (!repeat) want.push_back(k);
  }
  EXPECT_EQ(best.indices(), want);
}

TEST(AllSubsetsStream, EnumeratorChunksConcatenateToTheEnumeration) {
  const rr::SubsetMatrix all = rr::enumerate_subsets(9, 4);
  rr::SubsetEnumerator chunks(9, 4);
  EXPECT_EQ(chunks.total(), 126u);
  rr::SubsetMatrix joined(4, 0);
  while (chunks.remaining() > 0) {
    const rr::SubsetMatrix next = chunks.next(10);
    joined.conservativeResize(Eigen::NoChange, joined.cols() + next.cols());
    joined.rightCols(next.cols()) = next;
  }
  EXPECT_EQ(chunks.visited(), 126u);
  EXPECT_EQ(joined, all);
  EXPECT_EQ(chunks.next(10).cols(), 0);
  EXPECT_EQ(rr::SubsetEnumerator(75, 4).total(), 1215450u);
}

TEST(AllSubsets, RefusedAboveTheLimitNamingCnp) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal(0, 1);
  Eigen::MatrixXd X(200, 5);
  Eigen::VectorXd y(200);
  for (Eigen::Index i = 0; i < X.size(); ++i) X.data()[i] = normal(rng);
  for (Eigen::Index i = 0; i < y.size(); ++i) y(i) = normal(rng);
  regression::LtsOptions lts;
  lts.subsets = all_subsets;
  regression::LmsOptions lms;
  lms.subsets = all_subsets;
  for (int method = 0; method < 2; ++method) {
    try {
      if (method == 0) regression::fit_lts(X, y, lts);
      else regression::fit_lms(X, y, lms);
      ADD_FAILURE() << "C(200, 6) = 8.2e10 subsets accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("C(200, 6)"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("1e+08"), std::string::npos) << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(regression::elemental_subset_count(200, 6), 82408626300.0);
}

}  // namespace
}  // namespace robustfit::testing
