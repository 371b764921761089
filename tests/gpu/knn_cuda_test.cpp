// The CUDA kNN engine against the CPU engine (exact in double: same rows, same order, bit-identical
// distances) and against a brute-force reference (direct distances, full sort by (distance, row));
// float against double within the bound stated in docs/KNN.md. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "neighbors/src/cuda/cuda_engine.hpp"
#include "neighbors/src/direct_distance.hpp"
#include "neighbors/src/engine.hpp"
#include "gpu_skip.hpp"
#include "knn_reference.hpp"

namespace robustfit::neighbors {
namespace {

using detail::CudaKnnTuning;
using detail::NeighborLists;
using reference::brute_force;
using reference::expect_identical;
using reference::planted;
using reference::sorted_lists;

struct Case {
  std::size_t n, m, d;
  Metric metric;
};

class KnnCudaExact : public ::testing::TestWithParam<std::tuple<std::size_t, Metric>> {};

TEST_P(KnnCudaExact, DoubleEqualsCpuAndBruteForceForEveryK) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto [d, metric] = GetParam();
  const std::size_t n = 500, m = 70;
  const RowMatrix train = planted(n, d, 11 + d);
  RowMatrix queries = planted(m, d, 97 + d);
  queries.topRows(10) = train.middleRows(40, 10);  // queries sitting on training points
  auto cpu = detail::make_cpu_engine(train, metric);
  auto gpu = detail::make_cuda_knn_engine(train, metric, Precision::double_precision);
  EXPECT_EQ(gpu->name(), "cuda");
  for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{10}, std::size_t{77}, n / 2, n - 1, n}) {
    const std::string what = "d=" + std::to_string(d) + " k=" + std::to_string(k);
    const NeighborLists want = brute_force(train, queries, k, metric, std::nullopt);
    expect_identical(gpu->nearest(queries, k, true, std::nullopt), want, what + " ordered");
    expect_identical(cpu->nearest(queries, k, true, std::nullopt), want, what + " cpu");
    expect_identical(sorted_lists(gpu->nearest(queries, k, false, std::nullopt)), want,
                     what + " unordered");
  }
}

TEST_P(KnnCudaExact, LeaveOneOutExcludesOnlyTheQueryRow) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const auto [d, metric] = GetParam();
  const std::size_t n = 300;
  const RowMatrix train = planted(n, d, 5 + d);
  auto gpu = detail::make_cuda_knn_engine(train, metric, Precision::double_precision);
  for (std::size_t k : {std::size_t{1}, std::size_t{5}, n - 1}) {
    const std::string what = "LOO d=" + std::to_string(d) + " k=" + std::to_string(k);
    expect_identical(gpu->nearest(train, k, true, std::size_t{0}),
                     brute_force(train, train, k, metric, std::size_t{0}), what);
    const RowMatrix some = train.middleRows(100, 37);
    expect_identical(sorted_lists(gpu->nearest(some, k, false, std::size_t{100})),
                     brute_force(train, some, k, metric, std::size_t{100}), what + " from row 100");
  }
}

INSTANTIATE_TEST_SUITE_P(
    DimensionsAndMetrics, KnnCudaExact,
    ::testing::Combine(::testing::Values(std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{64}),
                       ::testing::Values(Metric::euclidean, Metric::manhattan)));

TEST(KnnCuda, TilesChunksSmallSamplesAndOverflowsGiveTheSameAnswer) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 1000, m = 150, d = 3;
  const RowMatrix train = planted(n, d, 3);
  const RowMatrix queries = planted(m, d, 4);
  for (Metric metric : {Metric::euclidean, Metric::manhattan}) {
    for (std::size_t k : {std::size_t{1}, std::size_t{9}, std::size_t{130}}) {
      const NeighborLists want = brute_force(train, queries, k, metric, std::nullopt);
      // Query tiles of 7 and 64 (the kernel's block) plus one, training chunks that split the
      // kernel's 128-row blocks, a tiny sample (loose thresholds) and a capacity that overflows.
      // Each also through the GEMM-form filter (euclidean): the same answer.
      const auto make = [](std::size_t tile, std::size_t chunk, std::size_t capacity,
                           std::size_t sample, std::size_t budget) {
        CudaKnnTuning t;
        t.query_tile = tile;
        t.train_chunk = chunk;
        t.candidates_per_query = capacity;
        t.sample_rows = sample;
        t.budget_bytes = budget;
        return t;
      };
      std::vector<CudaKnnTuning> tunings = {make(7, 100, 0, 0, 0), make(65, 129, 0, 0, 0),
                                            make(0, 0, k, k, 0), make(13, 333, k + 3, k + 1, 0),
                                            make(0, 0, 0, 0, std::size_t{1} << 20)};
      for (std::size_t i = 0, count = tunings.size(); i < count; ++i) {
        tunings[i].filter = detail::KnnFilter::direct;
        if (metric != Metric::euclidean) continue;
        tunings.push_back(tunings[i]);
        tunings.back().filter = detail::KnnFilter::gemm;
      }
      for (const CudaKnnTuning& tuning : tunings) {
        auto gpu = detail::make_cuda_knn_engine(train, metric, Precision::double_precision, tuning);
        const std::string what = std::string(tuning.filter == detail::KnnFilter::gemm ? "gemm " : "direct ") +
                                 "k=" + std::to_string(k) + " tile=" + std::to_string(tuning.query_tile) +
                                 " chunk=" + std::to_string(tuning.train_chunk) +
                                 " capacity=" + std::to_string(tuning.candidates_per_query) +
                                 " sample=" + std::to_string(tuning.sample_rows);
        expect_identical(gpu->nearest(queries, k, true, std::nullopt), want, what);
        expect_identical(sorted_lists(gpu->nearest(queries, k, false, std::nullopt)), want,
                         what + " unordered");
      }
    }
  }
}

TEST(KnnCuda, AllPointsEqualIsAllTiesBrokenByRow) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const RowMatrix train = RowMatrix::Constant(3000, 4, 1.5);
  const RowMatrix queries = RowMatrix::Constant(5, 4, -0.5);
  auto gpu = detail::make_cuda_knn_engine(train, Metric::euclidean, Precision::double_precision);
  const NeighborLists got = gpu->nearest(queries, 100, false, std::nullopt);
  expect_identical(sorted_lists(got),
                   brute_force(train, queries, 100, Metric::euclidean, std::nullopt), "all equal");
}

TEST(KnnCuda, LargeKRuns) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 20000, m = 40, d = 8, k = 16384;
  const RowMatrix train = planted(n, d, 21);
  const RowMatrix queries = planted(m, d, 22);
  auto gpu = detail::make_cuda_knn_engine(train, Metric::euclidean, Precision::double_precision);
  auto cpu = detail::make_cpu_engine(train, Metric::euclidean);
  expect_identical(gpu->nearest(queries, k, true, std::nullopt),
                   cpu->nearest(queries, k, true, std::nullopt), "k = 16384");
}

// docs/KNN.md: with u = 2^-24, a float distance D_f and the double distance D of the same pair
// satisfy |D_f - D| <= delta = 2u (N + (d + 4) D), N = || |q| + |x| ||_2 (euclidean) or _1
// (manhattan). So every returned float distance is within delta of the double one, the float
// and double k-th distances are within the largest delta of either set's rows of each other,
// and a row in one set but not the other has a double distance within that of the float k-th.
double float_bound(const double* q, const double* x, std::size_t d, Metric metric, double distance) {
  const double u = std::ldexp(1.0, -24);
  double norm = 0;
  for (std::size_t j = 0; j < d; ++j) {
    const double a = std::abs(q[j]) + std::abs(x[j]);
    norm += metric == Metric::euclidean ? a * a : a;
  }
  if (metric == Metric::euclidean) norm = std::sqrt(norm);
  return 2 * u * (norm + double(d + 4) * distance);
}

TEST(KnnCuda, FloatAgreesWithDoubleWithinTheStatedBound) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 4000, m = 100;
  for (std::size_t d : {std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{64}}) {
    for (Metric metric : {Metric::euclidean, Metric::manhattan}) {
      const RowMatrix train = planted(n, d, 31 + d);
      const RowMatrix queries = planted(m, d, 41 + d);
      auto gpu = detail::make_cuda_knn_engine(train, metric, Precision::single_precision);
      for (std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{1000}}) {
        const NeighborLists got = gpu->nearest(queries, k, true, std::nullopt);
        const NeighborLists want = brute_force(train, queries, k, metric, std::nullopt);
        std::size_t differing = 0;
        for (std::size_t q = 0; q < m; ++q) {
          const double* qp = queries.data() + q * d;
          const double tau_f = got.distances[q * k + k - 1];
          std::vector<std::int64_t> a(got.rows.begin() + std::ptrdiff_t(q * k), got.rows.begin() + std::ptrdiff_t(q * k + k));
          std::vector<std::int64_t> b(want.rows.begin() + std::ptrdiff_t(q * k), want.rows.begin() + std::ptrdiff_t(q * k + k));
          for (std::size_t j = 0; j < k; ++j) {
            const std::int64_t r = a[j];
            const double* xp = train.data() + std::size_t(r) * d;
            const double exact = detail::direct_distance(qp, xp, d, metric);
            ASSERT_LE(std::abs(got.distances[q * k + j] - exact), float_bound(qp, xp, d, metric, exact))
                << "d=" << d << " k=" << k << " query " << q << " row " << r;
            if (j > 0) {
              ASSERT_LE(got.distances[q * k + j - 1], got.distances[q * k + j]);
            }
          }
          std::sort(a.begin(), a.end());
          std::sort(b.begin(), b.end());
          ASSERT_TRUE(std::adjacent_find(a.begin(), a.end()) == a.end()) << "repeated row";
          std::vector<std::int64_t> only;
          std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
          differing += only.size();
          // tau and tau_f are within the largest bound of the rows of both sets of each other.
          double delta = 0;
          for (const auto* list : {&a, &b})
            for (std::int64_t r : *list) {
              const double* xp = train.data() + std::size_t(r) * d;
              delta = std::max(delta, float_bound(qp, xp, d, metric, detail::direct_distance(qp, xp, d, metric)));
            }
          for (std::int64_t r : only) {
            const double* xp = train.data() + std::size_t(r) * d;
            const double exact = detail::direct_distance(qp, xp, d, metric);
            EXPECT_LE(std::abs(exact - tau_f), delta)
                << "d=" << d << " k=" << k << " query " << q << ": row " << r
                << " differs from double at distance " << exact << ", float k-th " << tau_f;
          }
        }
        RecordProperty("differing_rows_d" + std::to_string(d) + "_k" + std::to_string(k), int(differing));
      }
    }
  }
}

}  // namespace
}  // namespace robustfit::neighbors
