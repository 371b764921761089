// Batched selection (one rank per column, results on the device) matches the CPU reference
// column by column, for both variants, LTS- and kNN-like shapes, padded leading dimensions,
// and NaN columns (which must come back as NaN while the other columns stay exact).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "device_vector.hpp"
#include "gpu_skip.hpp"
#include "robustfit/data/distributions.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cuda/select.hpp"

namespace {

using robustfit::data::Distribution;
using robustfit::selection::Algorithm;
using robustfit::testing::DeviceVector;
namespace gpu = robustfit::selection::cuda;

// Column j of a rows x cols matrix (leading dimension ld) gets distribution j % 5.
template <class T>
std::vector<T> make_matrix(std::size_t rows, std::size_t cols, std::size_t ld, std::uint64_t seed) {
  constexpr Distribution kMix[] = {Distribution::normal, Distribution::two_values_95,
                                   Distribution::signed_zeros_and_infs, Distribution::few_huge,
                                   Distribution::distinct_d};
  std::vector<T> matrix(ld * cols, T(-12345));
  for (std::size_t j = 0; j < cols; ++j) {
    const auto column = robustfit::data::make_distribution<T>(kMix[j % 5], rows, seed + j);
    std::copy(column.begin(), column.end(), matrix.begin() + j * ld);
  }
  return matrix;
}

template <class T>
void expect_batched_matches(std::size_t rows, std::size_t cols, std::size_t ld, std::size_t k,
                            bool with_nan) {
  std::vector<T> matrix = make_matrix<T>(rows, cols, ld, rows + cols + k);
  if (with_nan) matrix[1 * ld + rows / 3] = std::numeric_limits<T>::quiet_NaN();
  DeviceVector<T> device(matrix);
  DeviceVector<T> out(cols);
  gpu::Workspace workspace;
  for (const Algorithm algorithm : {Algorithm::sort, Algorithm::radix, Algorithm::automatic}) {
    gpu::kth_smallest_batched(device.get(), rows, cols, ld, k, out.get(), algorithm, workspace);
    const std::vector<T> got = out.download();
    for (std::size_t j = 0; j < cols; ++j) {
      const std::span<const T> column(matrix.data() + j * ld, rows);
      if (with_nan && j == 1) {
        EXPECT_TRUE(std::isnan(got[j])) << "column " << j << " holds a NaN";
        continue;
      }
      ASSERT_EQ(got[j], robustfit::selection::kth_smallest<T>(column, k))
          << "rows=" << rows << " cols=" << cols << " ld=" << ld << " k=" << k << " column=" << j
          << " algorithm=" << robustfit::selection::to_string(algorithm);
    }
  }
}

TEST(GpuSelectionBatched, SmallShapes) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  for (const std::size_t rows : {1, 2, 3, 7, 100}) {
    for (const std::size_t k : {std::size_t{0}, rows / 2, rows - 1}) {
      expect_batched_matches<float>(rows, 5, rows, k, false);
      expect_batched_matches<double>(rows, 6, rows + 3, k, false);
    }
  }
}

TEST(GpuSelectionBatched, LtsAndKnnShapes) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_batched_matches<float>(10000, 64, 10000, 5003, false);
  expect_batched_matches<double>(10000, 64, 10007, 9999, false);
  expect_batched_matches<float>(4096, 300, 4096, 10, false);
  expect_batched_matches<float>(1u << 17, 12, 1u << 17, (1u << 16) + 7, false);  // 11-bit digits
  expect_batched_matches<double>((1u << 17) + 9, 10, (1u << 17) + 9, 77, false);
}

// At least as many columns as resident blocks: one block per column makes every digit pass in
// one launch (batched_column_select), 8-bit digits and 11-bit ones, NaN columns included.
TEST(GpuSelectionBatched, ManyColumnsOneBlockEach) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_batched_matches<float>(2048, 1200, 2048, 9, false);
  expect_batched_matches<float>(777, 1500, 780, 776, true);
  expect_batched_matches<double>(3001, 1100, 3005, 1500, true);
  expect_batched_matches<float>(1u << 17, 1060, 1u << 17, 1u << 16, false);
  expect_batched_matches<double>((1u << 17) + 1, 1060, (1u << 17) + 1, 3, false);
}

TEST(GpuSelectionBatched, NaNColumnGivesNaN) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  expect_batched_matches<float>(5000, 8, 5000, 2500, true);
  expect_batched_matches<double>(1u << 17, 4, 1u << 17, 1000, true);
}

TEST(GpuSelectionBatched, RejectsBadArguments) {
  ROBUSTFIT_REQUIRE_CUDA_DEVICE();
  DeviceVector<float> device(100);
  DeviceVector<float> out(10);
  gpu::Workspace workspace;
  EXPECT_THROW(gpu::kth_smallest_batched(device.get(), 10, 10, 10, 10, out.get(),
                                         Algorithm::radix, workspace),
               std::invalid_argument);
  EXPECT_THROW(gpu::kth_smallest_batched(device.get(), 10, 10, 9, 0, out.get(), Algorithm::radix,
                                         workspace),
               std::invalid_argument);
  EXPECT_THROW(gpu::kth_smallest_batched(device.get(), 0, 10, 10, 0, out.get(), Algorithm::radix,
                                         workspace),
               std::invalid_argument);
}

}  // namespace
