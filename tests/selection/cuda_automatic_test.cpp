// The CUDA backend's automatic choice against the table it documents (docs/SELECTION.md, "auto"):
// each threshold from both sides, and the description the CLI prints. Host code: runs without a
// GPU.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "robustfit/selection/cuda_automatic.hpp"

namespace {

using robustfit::selection::Algorithm;
using robustfit::selection::cuda_automatic_batched;
using robustfit::selection::cuda_automatic_description;
using robustfit::selection::cuda_automatic_many;
using robustfit::selection::cuda_automatic_single;

constexpr std::size_t pow2(int e) { return std::size_t{1} << e; }

TEST(CudaAutomatic, OneRankBySize) {
  EXPECT_EQ(cuda_automatic_single(5, 2), Algorithm::radix);
  EXPECT_EQ(cuda_automatic_single(pow2(22), pow2(21)), Algorithm::radix);
  EXPECT_EQ(cuda_automatic_single(pow2(22) + 1, pow2(21)), Algorithm::bracket);
  EXPECT_EQ(cuda_automatic_single(pow2(26) - 1, pow2(25)), Algorithm::bracket);
  EXPECT_EQ(cuda_automatic_single(pow2(26), pow2(25)), Algorithm::floyd_rivest);
  EXPECT_EQ(cuda_automatic_single(pow2(30), 7), Algorithm::floyd_rivest);
}

TEST(CudaAutomatic, SmallestAndLargestRankTakeTheReduction) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, pow2(20), pow2(28)}) {
    EXPECT_EQ(cuda_automatic_single(n, 0), Algorithm::automatic) << n;
    EXPECT_EQ(cuda_automatic_single(n, n - 1), Algorithm::automatic) << n;
  }
  EXPECT_EQ(cuda_automatic_single(3, 1), Algorithm::radix);
}

// `count` interior ranks (none is 0 or n - 1).
std::vector<std::size_t> interior(std::size_t n, std::size_t count) {
  std::vector<std::size_t> ks(count);
  for (std::size_t i = 0; i < count; ++i) ks[i] = (i + 1) * (n / (count + 1));
  return ks;
}

Algorithm many(std::size_t n, std::size_t count, bool is_double) {
  return cuda_automatic_many(n, interior(n, count), is_double);
}

TEST(CudaAutomatic, FewRanksPerRankBelowSizesThatTheyNeed) {
  EXPECT_EQ(many(pow2(22) - 1, 3, false), Algorithm::automatic);  // per rank
  EXPECT_EQ(many(pow2(22), 3, false), Algorithm::sampled_multi);
  EXPECT_EQ(many(pow2(24) - 1, 2, true), Algorithm::automatic);
  EXPECT_EQ(many(pow2(24), 2, true), Algorithm::sampled_multi);
  EXPECT_EQ(many(pow2(30), 1, false), Algorithm::automatic);
  EXPECT_EQ(many(pow2(20), 4, false), Algorithm::sampled_multi);  // more than three: never per rank
  // 0 and n - 1 cost a reduction each: beside them, one interior rank stays per rank.
  const std::size_t n = pow2(28);
  EXPECT_EQ(cuda_automatic_many(n, std::vector<std::size_t>{0, n / 2, n - 1}, false), Algorithm::automatic);
  EXPECT_EQ(cuda_automatic_many(n, std::vector<std::size_t>{0, n / 3, n / 2}, false), Algorithm::sampled_multi);
  EXPECT_EQ(cuda_automatic_many(n, std::vector<std::size_t>{0, n - 1, n / 2, n / 4}, false),
            Algorithm::sampled_multi);
}

TEST(CudaAutomatic, ManyRanksByCountSizeAndType) {
  EXPECT_EQ(many(pow2(24), 1024, false), Algorithm::sampled_multi);
  EXPECT_EQ(many(pow2(24), 1025, false), Algorithm::sort);
  EXPECT_EQ(many(pow2(20), 1024, false), Algorithm::sampled_multi);
  EXPECT_EQ(many(pow2(20), 1025, false), Algorithm::sort);
  EXPECT_EQ(many(pow2(20), 1024, true), Algorithm::sampled_multi);
  EXPECT_EQ(many(pow2(20), 1025, true), Algorithm::sort);
  EXPECT_EQ(many(pow2(20) - 1, 128, false), Algorithm::multi);
  EXPECT_EQ(many(pow2(20) - 1, 129, false), Algorithm::sort);
  EXPECT_EQ(many(pow2(20) - 1, 5000, true), Algorithm::multi);
}

TEST(CudaAutomatic, BatchedByColumnLengthAndMatrixSize) {
  EXPECT_EQ(cuda_automatic_batched(pow2(16), 256), Algorithm::bracket);  // 2^24 values
  EXPECT_EQ(cuda_automatic_batched(pow2(16), 255), Algorithm::radix);
  EXPECT_EQ(cuda_automatic_batched(pow2(16) - 1, 4096), Algorithm::radix);
  EXPECT_EQ(cuda_automatic_batched(pow2(20), 512), Algorithm::bracket);
}

TEST(CudaAutomatic, DescriptionNamesEachChoiceOnce) {
  const std::size_t n = pow2(24);
  EXPECT_EQ(cuda_automatic_description(n, std::vector<std::size_t>{n / 2}, false), "bracket");
  EXPECT_EQ(cuda_automatic_description(n, std::vector<std::size_t>{0}, true), "min-max reduction");
  EXPECT_EQ(cuda_automatic_description(n, std::vector<std::size_t>{n / 4, 0, n / 2, n - 1}, false),
            "sampled-multi");
  EXPECT_EQ(cuda_automatic_description(n, std::vector<std::size_t>{n / 4, 0, n / 2}, false), "sampled-multi");
  EXPECT_EQ(cuda_automatic_description(n, std::vector<std::size_t>{n / 4, 0, n - 1}, false),
            "per rank: bracket, min-max reduction");
  EXPECT_EQ(cuda_automatic_description(1000, std::vector<std::size_t>{999, 500}, true),
            "per rank: min-max reduction, radix");
}

}  // namespace
