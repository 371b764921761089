// The thread loop of robustfit/common/parallel.hpp (used by the parallel CPU selection): every
// index once, errors passed on, row chunks that tile [0, n) on aligned boundaries fixed by n,
// and rows_where equal to a serial filter.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "robustfit/common/parallel.hpp"

namespace robustfit::testing {
namespace {

TEST(ParallelFor, VisitsEveryIndexOnceWithAWorkerInRange) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
    std::vector<std::atomic<int>> visits(count);
    std::atomic<bool> worker_ok{true};
    const unsigned workers = common::worker_count(count);
    common::parallel_for(count, [&](unsigned w, std::size_t i) {
      if (w >= workers) worker_ok = false;
      ++visits[i];
    });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(visits[i], 1) << i;
    EXPECT_TRUE(worker_ok);
  }
}

TEST(ParallelFor, RethrowsAWorkersException) {
  EXPECT_THROW(common::parallel_for(100, [](unsigned, std::size_t i) {
                 if (i == 37) throw std::runtime_error("index 37");
               }),
               std::runtime_error);
}

TEST(RowChunks, TileTheRowsOnAlignedBoundaries) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{65535}, std::size_t{65536}, std::size_t{1000003},
                              std::size_t{256} * 32768 + 1}) {
    const std::size_t chunks = common::row_chunk_count(n);
    EXPECT_GE(chunks, 1u);
    EXPECT_LE(chunks, common::kMaxChunks);
    EXPECT_EQ(chunks, n < 2 * common::kMinChunkRows ? 1u : std::min(n / common::kMinChunkRows, common::kMaxChunks)) << n;
    EXPECT_EQ(common::row_chunk_begin(n, 0), 0u);
    EXPECT_EQ(common::row_chunk_begin(n, chunks), n);
    for (std::size_t c = 1; c < chunks; ++c) {
      EXPECT_EQ(common::row_chunk_begin(n, c) % common::kChunkAlign, 0u) << n << " chunk " << c;
      EXPECT_LT(common::row_chunk_begin(n, c - 1), common::row_chunk_begin(n, c)) << n << " chunk " << c;
    }
    std::vector<std::atomic<int>> seen(n);
    common::parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    std::size_t once = 0;
    for (std::size_t i = 0; i < n; ++i) once += seen[i] == 1;
    EXPECT_EQ(once, n) << n;
  }
}

TEST(RowsWhere, EqualsASerialFilter) {
  for (const std::size_t n : {std::size_t{10}, std::size_t{200001}}) {
    auto keep = [](std::size_t i) { return (i * 2654435761u) % 7 < 3; };
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < n; ++i)
      if (keep(i)) expected.push_back(i);
    EXPECT_EQ(common::rows_where(n, keep), expected) << n;
  }
}

}  // namespace
}  // namespace robustfit::testing
