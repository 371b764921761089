// Batched bracket selection (Algorithm::bracket, kth_smallest_batched) against std::nth_element,
// column by column: every distribution of data/distributions.hpp (ties, all equal, sorted, +-0,
// +-inf, 1e30 outliers, subnormals), rows from 1 to 2^20 across the radix/bracket threshold,
// 1 to 600 columns, padded (and so unaligned) columns, NaN columns mixed with normal ones, and
// the rare paths forced through the parameters: no margin (rank k misses the bracket), no or a
// one-value candidate region (overflow), the bracket kernels on tiny columns. One workspace is
// reused across all shapes (warm, grown and shrunk).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "selection/src/cuda/batched_bracket.cuh"

namespace {

namespace gpu = robustfit::selection::cuda;
namespace detail = robustfit::selection::cuda::detail;
using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
using robustfit::testing::DeviceVector;

struct Shape {
  std::size_t rows, cols, pad;  // ld = rows + pad
};

// Column j gets distribution (j + seed) mod the list; with `nans`, every fifth column holds a NaN
// (alternately +NaN and -NaN, at a pseudo-random row).
template <class T>
std::vector<T> make_matrix(const Shape& shape, std::uint64_t seed, bool nans, std::vector<bool>& nan_column) {
  const auto all = robustfit::data::all_distributions();
  const std::size_t ld = shape.rows + shape.pad;
  std::vector<T> matrix(ld * shape.cols, T(-12345));
  nan_column.assign(shape.cols, false);
  std::mt19937_64 rng(seed);
  for (std::size_t j = 0; j < shape.cols; ++j) {
    Distribution d = all[(j + seed) % all.size()];
    if (d == Distribution::bucket_killer && shape.rows < 65) d = Distribution::normal;  // needs 65 powers
    const auto column = robustfit::data::make_distribution<T>(d, shape.rows, seed * 1000 + j, 16);
    std::copy(column.begin(), column.end(), matrix.begin() + j * ld);
    if (nans && j % 5 == 2) {
      const T nan = std::numeric_limits<T>::quiet_NaN();
      matrix[j * ld + rng() % shape.rows] = (j / 5) % 2 ? -nan : nan;
      nan_column[j] = true;
    }
  }
  return matrix;
}

// The k-th smallest of every column by std::nth_element (NaN columns: not used).
template <class T>
std::vector<T> reference(const std::vector<T>& matrix, const Shape& shape, std::size_t k,
                         const std::vector<bool>& nan_column) {
  const std::size_t ld = shape.rows + shape.pad;
  std::vector<T> expected(shape.cols, T(0)), column(shape.rows);
  for (std::size_t j = 0; j < shape.cols; ++j) {
    if (nan_column[j]) continue;
    std::copy(matrix.begin() + j * ld, matrix.begin() + j * ld + shape.rows, column.begin());
    std::nth_element(column.begin(), column.begin() + k, column.end());
    expected[j] = column[k];
  }
  return expected;
}

struct Variant {
  const char* name;
  bool forced;  // through detail:: with `params`; else the public entry point, Algorithm::bracket
  detail::BatchedBracketParams params;
};

detail::BatchedBracketParams forced(float sigmas, std::size_t max_capacity) {
  detail::BatchedBracketParams p;
  p.sigmas = sigmas;
  p.max_capacity = max_capacity;
  p.min_rows = 1;  // the bracket kernels even on one-row columns
  return p;
}

const Variant kVariants[] = {
    {"public bracket", false, {}},
    {"bracket kernels at every size", true, forced(3.0f, ~std::size_t{0})},
    {"no margin (misses)", true, forced(0.0f, ~std::size_t{0})},
    {"no candidate region (overflow)", true, forced(3.0f, 0)},
    {"one-value region (overflow)", true, forced(0.5f, 1)},
};

template <class T>
void expect_exact(const Shape& shape, bool nans, gpu::Workspace& workspace, std::uint64_t seed) {
  std::vector<bool> nan_column;
  const std::vector<T> matrix = make_matrix<T>(shape, seed, nans, nan_column);
  DeviceVector<T> device(matrix);
  DeviceVector<T> out(shape.cols);
  const std::vector<T> sentinel(shape.cols, T(-777));
  const std::size_t ld = shape.rows + shape.pad;
  std::mt19937_64 rng(seed + 7);
  for (const std::size_t k : {std::size_t{0}, shape.rows / 2, shape.rows - 1, std::size_t(rng() % shape.rows)}) {
    const std::vector<T> expected = reference(matrix, shape, k, nan_column);
    for (const Variant& variant : kVariants) {
      out.upload(sentinel);
      if (variant.forced)
        detail::batched_bracket_select<T>(device.get(), shape.rows, shape.cols, ld, k, out.get(), variant.params,
                                          workspace, nullptr);
      else
        gpu::kth_smallest_batched(device.get(), shape.rows, shape.cols, ld, k, out.get(), Algorithm::bracket,
                                  workspace);
      const std::vector<T> got = out.download();
      for (std::size_t j = 0; j < shape.cols; ++j) {
        const std::string where = std::string(variant.name) + " rows=" + std::to_string(shape.rows) +
                                  " cols=" + std::to_string(shape.cols) + " ld=" + std::to_string(ld) +
                                  " k=" + std::to_string(k) + " column=" + std::to_string(j);
        if (nan_column[j]) {
          ASSERT_TRUE(std::isnan(got[j])) << where << ": the column holds a NaN, got " << got[j];
        } else {
          ASSERT_EQ(got[j], expected[j]) << where;
        }
      }
    }
  }
}

// Small to large and back, so the workspace is reused warm, grown and reused after growth.
const Shape kShapes[] = {
    {1, 1, 0},       {2, 3, 1},      {7, 5, 3},         {100, 17, 0},        {4095, 9, 1},
    {4096, 9, 0},    {4097, 600, 3}, {10000, 64, 7},    {(1u << 17) + 3, 8, 1}, {1u << 20, 3, 5},
    {5000, 31, 2},   {3, 600, 0},
};

template <class T>
void sweep(bool nans) {
  gpu::Workspace workspace;
  std::uint64_t seed = nans ? 500 : 100;
  for (const Shape& shape : kShapes) {
    expect_exact<T>(shape, nans, workspace, ++seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(GpuBatchedBracket, MatchesNthElementFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>(false);
}

TEST(GpuBatchedBracket, MatchesNthElementDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>(false);
}

TEST(GpuBatchedBracket, NanColumnsGiveNanOthersExactFloat) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<float>(true);
}

TEST(GpuBatchedBracket, NanColumnsGiveNanOthersExactDouble) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  sweep<double>(true);
}

// LTS's shape (10^6 rows, 20 columns, k = h - 1 ~ n/2) and a kNN-like one (many short columns).
TEST(GpuBatchedBracket, LtsAndKnnShapes) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  gpu::Workspace workspace;
  expect_exact<float>({1000003, 20, 1}, false, workspace, 900);
  expect_exact<double>({1000003, 20, 0}, true, workspace, 901);
  expect_exact<float>({2048, 500, 0}, false, workspace, 902);
}

// Every column with the same values: ranks land on the bracket's ties, never inside.
TEST(GpuBatchedBracket, AllEqualColumns) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  const std::size_t rows = 50000, cols = 7;
  std::vector<float> matrix(rows * cols, 2.5f);
  DeviceVector<float> device(matrix);
  DeviceVector<float> out(cols);
  gpu::Workspace workspace;
  for (const std::size_t k : {std::size_t{0}, rows / 2, rows - 1}) {
    gpu::kth_smallest_batched(device.get(), rows, cols, rows, k, out.get(), Algorithm::bracket, workspace);
    for (const float v : out.download()) EXPECT_EQ(v, 2.5f) << "k=" << k;
  }
}

}  // namespace
