// The GEMM-form filter (neighbors/src/cuda/gemm_filter.hpp), forced through the tuning struct at
// every d: exact against brute force in double (ties, duplicates, queries on training points,
// leave-one-out), and against the fused direct filter in float (both must return THE float
// distances, bit for bit); magnitudes where the bound's terms matter (huge, tiny, large offsets
// with small differences); the lists-on-device mode. Skips without a device. (The filter choice
// rule is a pure function: tests/neighbors/filter_choice_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "knn_reference.hpp"
#include "neighbors/src/cuda/cuda_engine.hpp"
#include "neighbors/src/direct_distance.hpp"

namespace robustfit::neighbors {
namespace {

using detail::CudaKnnTuning;
using detail::KnnFilter;
using detail::NeighborLists;
using reference::expect_identical;
using reference::planted;
using reference::sorted_lists;

CudaKnnTuning with_filter(KnnFilter filter) {
  CudaKnnTuning t;
  t.filter = filter;
  return t;
}

TEST(KnnCudaGemm, DoubleEqualsBruteForceAtEveryDimension) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 600, m = 50;
  for (std::size_t d : {std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{64}, std::size_t{130}}) {
    const RowMatrix train = planted(n, d, 3 + d);
    RowMatrix queries = planted(m, d, 9 + d);
    queries.topRows(8) = train.middleRows(30, 8);  // queries on training points
    auto gpu = detail::make_cuda_knn_engine(train, Metric::euclidean, Precision::double_precision,
                                            with_filter(KnnFilter::gemm));
    ASSERT_EQ(gpu->filter_for(10, m), KnnFilter::gemm);
    for (std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{77}, n / 2, n}) {
      const std::string what = "d=" + std::to_string(d) + " k=" + std::to_string(k);
      const NeighborLists want = reference::brute_force(train, queries, k, Metric::euclidean, std::nullopt);
      expect_identical(gpu->nearest(queries, k, true, std::nullopt), want, what);
      expect_identical(sorted_lists(gpu->nearest(queries, k, false, std::nullopt)), want,
                       what + " unordered");
    }
    for (std::size_t k : {std::size_t{1}, std::size_t{7}, n - 1})
      expect_identical(gpu->nearest(train, k, true, std::size_t{0}),
                       reference::brute_force(train, train, k, Metric::euclidean, std::size_t{0}),
                       "LOO d=" + std::to_string(d) + " k=" + std::to_string(k));
  }
}

// Magnitudes where the bound's terms matter: huge (squares near the top of the range), tiny
// (squares near and below the smallest normal number), a large common offset with small
// differences (|q|^2 + |x|^2 - 2 q.x cancels almost completely: the bound lets many rows through).
struct Magnitude {
  const char* name;
  double scale, offset;
};

TEST(KnnCudaGemm, BoundHoldsAtExtremeMagnitudesDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 500, m = 40, d = 16;
  for (const Magnitude mag : {Magnitude{"huge", 1e150, 0}, Magnitude{"tiny", 1e-160, 0},
                              Magnitude{"offset", 1e-3, 1e4}, Magnitude{"subnormal", 1e-310, 0}}) {
    const RowMatrix train = planted(n, d, 5, mag.scale, mag.offset);
    const RowMatrix queries = planted(m, d, 6, mag.scale, mag.offset);
    auto gpu = detail::make_cuda_knn_engine(train, Metric::euclidean, Precision::double_precision,
                                            with_filter(KnnFilter::gemm));
    for (std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{100}})
      expect_identical(gpu->nearest(queries, k, true, std::nullopt),
                       reference::brute_force(train, queries, k, Metric::euclidean, std::nullopt),
                       std::string(mag.name) + " k=" + std::to_string(k));
  }
}

// Float: the GEMM filter on TF32 tensor cores (the default; inputs cut to 10 mantissa bits, the
// bound widened for it) and on full-float cuBLAS must both give the fused filter's answer bit for
// bit: the bound only decides candidates. Huge (1e17: squares near the top of the float range),
// tiny (1e-19: products below the smallest normal float, flushed or not), a large offset with
// small differences (near-total cancellation in |q|^2 + |x|^2 - 2 q.x), ties and duplicates.
TEST(KnnCudaGemm, FloatEqualsTheFusedDirectFilterBitForBit) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 3000, m = 70;
  for (std::size_t d : {std::size_t{2}, std::size_t{8}, std::size_t{33}, std::size_t{128}}) {
    for (const Magnitude mag : {Magnitude{"unit", 1, 0}, Magnitude{"huge", 1e17, 0},
                                Magnitude{"tiny", 1e-19, 0}, Magnitude{"offset", 1e-2, 1e3}}) {
      const RowMatrix train = planted(n, d, 7 + d, mag.scale, mag.offset);
      const RowMatrix queries = planted(m, d, 8 + d, mag.scale, mag.offset);
      auto direct = detail::make_cuda_knn_engine(train, Metric::euclidean,
                                                 Precision::single_precision,
                                                 with_filter(KnnFilter::direct));
      for (bool tf32 : {true, false}) {
        CudaKnnTuning tuning = with_filter(KnnFilter::gemm);
        tuning.gemm_tf32 = tf32;
        auto gemm = detail::make_cuda_knn_engine(train, Metric::euclidean,
                                                 Precision::single_precision, tuning);
        for (std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{300}}) {
          const std::string what = std::string(tf32 ? "tf32 " : "fp32 ") + mag.name +
                                   " d=" + std::to_string(d) + " k=" + std::to_string(k);
          expect_identical(gemm->nearest(queries, k, true, std::nullopt),
                           direct->nearest(queries, k, true, std::nullopt), what);
          expect_identical(sorted_lists(gemm->nearest(queries, k, false, std::nullopt)),
                           direct->nearest(queries, k, true, std::nullopt), what + " unordered");
          expect_identical(gemm->nearest(train.topRows(m), k, true, std::size_t{0}),
                           direct->nearest(train.topRows(m), k, true, std::size_t{0}), what + " LOO");
        }
        // The path under test was the one taken.
        if (tf32) EXPECT_GT(gemm->times().tf32_tiles, 0u) << mag.name << " d=" << d;
        else EXPECT_EQ(gemm->times().tf32_tiles, 0u) << mag.name << " d=" << d;
      }
    }
  }
}

// Subnormal float inputs may be flushed to zero by TF32 tensor cores (no relative bound covers
// that): such training data or such a tile of queries takes the full-float GEMM, same answer.
TEST(KnnCudaGemm, SubnormalInputsSkipTf32AndStayExact) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 2000, m = 40, d = 16;
  const RowMatrix normal_train = planted(n, d, 21, 1e-17);
  RowMatrix subnormal_train = normal_train;
  subnormal_train(5, 3) = 3e-40;  // below the smallest normal float, still nonzero in float
  RowMatrix queries = planted(m, d, 22, 1e-17);
  RowMatrix subnormal_queries = queries;
  subnormal_queries(2, 7) = -5e-41;
  struct Case {
    const char* name;
    const RowMatrix& train;
    const RowMatrix& queries;
    bool tf32;
  };
  for (const Case& c : {Case{"normal", normal_train, queries, true},
                        Case{"subnormal train", subnormal_train, queries, false},
                        Case{"subnormal queries", normal_train, subnormal_queries, false}}) {
    auto gemm = detail::make_cuda_knn_engine(c.train, Metric::euclidean,
                                             Precision::single_precision,
                                             with_filter(KnnFilter::gemm));
    auto direct = detail::make_cuda_knn_engine(c.train, Metric::euclidean,
                                               Precision::single_precision,
                                               with_filter(KnnFilter::direct));
    for (std::size_t k : {std::size_t{1}, std::size_t{10}, std::size_t{200}})
      expect_identical(gemm->nearest(c.queries, k, true, std::nullopt),
                       direct->nearest(c.queries, k, true, std::nullopt),
                       std::string(c.name) + " k=" + std::to_string(k));
    EXPECT_EQ(gemm->times().tf32_tiles > 0, c.tf32) << c.name;
  }
}

TEST(KnnCudaGemm, ListsOnDeviceEqualHostLists) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 2000, m = 300, d = 8;
  const RowMatrix train = planted(n, d, 11);
  const RowMatrix queries = planted(m, d, 12);
  for (Precision precision : {Precision::single_precision, Precision::double_precision}) {
    CudaKnnTuning device_tuning;
    device_tuning.lists_on_device = true;
    device_tuning.query_tile = 64;
    device_tuning.candidates_per_query = 40;  // overflows: redone queries land in their places
    auto host = detail::make_cuda_knn_engine(train, Metric::euclidean, precision);
    auto device = detail::make_cuda_knn_engine(train, Metric::euclidean, precision, device_tuning);
    for (std::size_t k : {std::size_t{1}, std::size_t{25}, std::size_t{500}}) {
      const NeighborLists sizes = device->nearest(queries, k, true, std::nullopt);
      EXPECT_EQ(sizes.queries, m);
      EXPECT_TRUE(sizes.rows.empty());
      expect_identical(device->download_device_lists(), host->nearest(queries, k, true, std::nullopt),
                       "device lists k=" + std::to_string(k));
    }
  }
}

}  // namespace
}  // namespace robustfit::neighbors
