// The thread loop of robustfit/common/parallel.hpp (used by the parallel CPU selection): every
// index once, errors passed on, row chunks that tile [0, n) on aligned boundaries fixed by n,
// and rows_where equal to a serial filter.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>
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

// A process sharing its CPUs with k others of its host (MPI ranks) keeps to its share; the
// affinity mask bounds everything.
TEST(ParallelFor, WorkersKeepToTheProcessesShareOfItsCpus) {
  const unsigned cpus = common::affinity_cpus();
  EXPECT_GE(cpus, 1u);
  EXPECT_LE(cpus, std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(common::usable_cpus(), cpus);
  for (const unsigned sharers : {2u, 3u, 1000u}) {
    common::share_cpus_with(sharers);
    EXPECT_EQ(common::usable_cpus(), std::max(1u, cpus / sharers)) << sharers;
    EXPECT_EQ(common::worker_count(100000), common::usable_cpus()) << sharers;
    std::vector<std::atomic<int>> visits(1000);
    common::parallel_for(visits.size(), [&](unsigned, std::size_t i) { ++visits[i]; });
    for (std::size_t i = 0; i < visits.size(); ++i) ASSERT_EQ(visits[i], 1) << i;
  }
  common::share_cpus_with(0);  // as 1: every CPU again
  EXPECT_EQ(common::usable_cpus(), cpus);
}

TEST(ParallelFor, RethrowsAWorkersException) {
  EXPECT_THROW(common::parallel_for(100, [](unsigned, std::size_t i) {
                 if (i == 37) throw std::runtime_error("index 37");
               }),
               std::runtime_error);
}

// The loops run on a pool kept for the process: loops inside loops, and loops started from
// several threads at once, find it busy and start threads of their own. Every index still runs
// once, each worker number at most once at a time, and nothing waits forever.
TEST(ParallelFor, NestedAndConcurrentLoopsVisitEveryIndexOnce) {
  constexpr std::size_t kOuter = 16, kInner = 300;
  const auto nested = [&] {
    std::vector<std::atomic<int>> visits(kOuter * kInner);
    common::parallel_for(kOuter, [&](unsigned, std::size_t i) {
      common::parallel_for(kInner, [&](unsigned, std::size_t j) { ++visits[i * kInner + j]; });
    });
    for (std::size_t i = 0; i < visits.size(); ++i) EXPECT_EQ(visits[i], 1) << i;
  };
  nested();
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) callers.emplace_back([&] {
    for (int round = 0; round < 20; ++round) nested();
  });
  for (auto& t : callers) t.join();
  // A worker number is never held by two threads at once (callers keep scratch per worker).
  const unsigned workers = common::worker_count(1000);
  std::vector<std::atomic<int>> busy(workers);
  std::atomic<bool> shared{false};
  for (int round = 0; round < 200; ++round)
    common::parallel_for(1000, [&](unsigned w, std::size_t) {
      if (++busy[w] != 1) shared = true;
      --busy[w];
    });
  EXPECT_FALSE(shared);
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

// gather_rows_into a RowList that held other rows, more or fewer (its memory reused, its new
// elements never zeroed): exactly the kept rows.
TEST(RowsWhere, GatherIntoAnUsedRowList) {
  const std::size_t n = 200001;
  auto keep = [](std::size_t i) { return (i * 2654435761u) % 7 < 3; };
  const std::vector<std::size_t> expected = common::rows_where(n, keep);
  std::vector<std::size_t> counts(common::row_chunk_count(n));
  common::parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) {
    counts[c] = 0;
    for (std::size_t i = begin; i < end; ++i) counts[c] += keep(i) ? 1 : 0;
  });
  for (const std::size_t before : {std::size_t{0}, std::size_t{1000}, n}) {
    common::RowList rows(before, 7);
    common::gather_rows_into(rows, n, counts, [&](std::size_t, std::size_t begin, std::size_t end, std::size_t* out) {
      for (std::size_t i = begin; i < end; ++i)
        if (keep(i)) *out++ = i;
    });
    EXPECT_TRUE(std::ranges::equal(rows, expected)) << before;
  }
}

}  // namespace
}  // namespace robustfit::testing
