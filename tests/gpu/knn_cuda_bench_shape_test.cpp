// Reproduces the bench's n = 2^14, m = 2^14, d = 8, k = 10 uniform shape (where the first H200
// run threw "fewer candidates than k"): the engine against brute force on a subset of queries,
// and the batched selection on an 88 x 8192 column-major block against std::nth_element.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <vector>

#include "gpu_skip.hpp"
#include "neighbors/src/cuda/cuda_engine.hpp"
#include "neighbors/src/direct_distance.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include <cuda_runtime_api.h>

namespace robustfit::neighbors {
namespace {

RowMatrix uniform_rows(std::size_t rows, std::size_t d, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  RowMatrix x(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(d));
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = double(gen() >> 11) * 0x1.0p-53;
  return x;
}

TEST(KnnCudaBenchShape, BatchedSelectionOnShortWideBlock) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t rows = 88, cols = 8192, k = 9;
  std::vector<float> host(rows * cols);
  std::mt19937 gen(1);
  for (auto& v : host) v = float(gen() % 100000) / 7.0f;
  float *d_in = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_in), host.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_out), cols * sizeof(float)), cudaSuccess);
  cudaMemcpy(d_in, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  selection::cuda::Workspace ws;
  selection::cuda::kth_smallest_batched(d_in, rows, cols, rows, k, d_out, selection::Algorithm::automatic, ws);
  std::vector<float> got(cols);
  cudaMemcpy(got.data(), d_out, cols * sizeof(float), cudaMemcpyDeviceToHost);
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < cols; ++j) {
    std::vector<float> col(host.begin() + std::ptrdiff_t(j * rows), host.begin() + std::ptrdiff_t(j * rows + rows));
    std::nth_element(col.begin(), col.begin() + std::ptrdiff_t(k), col.end());
    wrong += got[j] != col[k];
  }
  EXPECT_EQ(wrong, 0u);
  cudaFree(d_in);
  cudaFree(d_out);
}

TEST(KnnCudaBenchShape, UniformSmallTrainingManyQueries) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t n = 16384, m = 16384, d = 8, k = 10;
  const RowMatrix train = uniform_rows(n, d, 1 + n + d);
  const RowMatrix queries = uniform_rows(m, d, 7 + m);
  for (Precision precision : {Precision::double_precision, Precision::single_precision}) {
    auto gpu = detail::make_cuda_knn_engine(train, Metric::euclidean, precision);
    detail::NeighborLists got;
    ASSERT_NO_THROW(got = gpu->nearest(queries, k, true, std::nullopt));
    std::cout << "overflow queries: " << gpu->times().overflow_queries << "\n";
    for (std::size_t q = 0; q < m; q += 997) {
      std::vector<std::pair<double, std::int64_t>> all;
      for (std::size_t r = 0; r < n; ++r)
        all.emplace_back(detail::direct_distance(queries.data() + q * d, train.data() + r * d, d, Metric::euclidean), r);
      std::sort(all.begin(), all.end());
      if (precision == Precision::double_precision) {
        for (std::size_t j = 0; j < k; ++j) EXPECT_EQ(got.rows[q * k + j], all[j].second) << "query " << q;
      }
    }
  }
}

}  // namespace
}  // namespace robustfit::neighbors
