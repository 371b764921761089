// The neighbour lists' storage (neighbors/src/list_allocator.hpp) and the host threads that fill
// it (host_parallel.hpp): resize() writes nothing (checked by page residency: a zero fill would
// fault every page in), large lists are 2 MiB aligned mappings, touch_pages() faults every page
// in, and the parallel parts and copies cover every entry exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "engine.hpp"
#include "host_parallel.hpp"
#include "list_allocator.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace robustfit::neighbors::detail {
namespace {

#if defined(__linux__)
// Pages of [data, data + bytes) the kernel has mapped in (mincore), and how many there are.
std::pair<std::size_t, std::size_t> resident_pages(const void* data, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(data) + bytes;
  const std::size_t pages = (end - begin + page - 1) / page;
  std::vector<unsigned char> in(pages);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return {0, 0};
  return {static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })), pages};
}

TEST(KnnListAllocator, ResizeWritesNothingAndTouchPagesFaultsEveryPageIn) {
  const std::size_t count = (std::size_t{64} << 20) / sizeof(double);  // 64 MiB
  ListVector<double> lists;
  lists.resize(count);
  const auto [before, pages] = resident_pages(lists.data(), count * sizeof(double));
  ASSERT_GT(pages, 0u);
  // A zero fill would have mapped every page; nothing was written, so (almost) none are.
  EXPECT_LT(before, pages / 8) << before << " of " << pages << " pages resident after resize";
  touch_pages(lists.data(), count * sizeof(double), 4);
  const auto [after, same] = resident_pages(lists.data(), count * sizeof(double));
  EXPECT_EQ(after, same);
}

TEST(KnnListAllocator, LargeListsAreHugePageAligned) {
  ListVector<std::int64_t> large((kHugeListBytes + 24) / sizeof(std::int64_t));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % kHugePageBytes, 0u);
}
#endif

TEST(KnnListAllocator, ConstructDefaultInitialises) {
  ListAllocator<std::int64_t> allocator;
  using Traits = std::allocator_traits<ListAllocator<std::int64_t>>;
  std::int64_t* storage = Traits::allocate(allocator, 4);
  std::fill(storage, storage + 4, std::int64_t{77});
  Traits::construct(allocator, storage + 1);       // default-initialisation: no value written
  Traits::construct(allocator, storage + 2, 5);    // with a value: that value
  EXPECT_EQ(storage[1], 77);
  EXPECT_EQ(storage[2], 5);
  Traits::deallocate(allocator, storage, 4);
}

TEST(KnnListAllocator, HoldsWhatIsWrittenAtEverySize) {
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{1000},
                            kHugeListBytes / sizeof(std::int64_t) - 1, kHugeListBytes / sizeof(std::int64_t),
                            3 * kHugeListBytes / sizeof(std::int64_t) + 5}) {
    ListVector<std::int64_t> lists(count);
    std::iota(lists.begin(), lists.end(), std::int64_t{-3});
    lists.push_back(9);  // regrowth copies into a new allocation (possibly the other kind)
    std::vector<std::int64_t> want(count);
    std::iota(want.begin(), want.end(), std::int64_t{-3});
    want.push_back(9);
    ASSERT_TRUE(std::equal(lists.begin(), lists.end(), want.begin(), want.end())) << count;
  }
}

TEST(KnnListAllocator, NeighborListsMoveWithoutCopying) {
  NeighborLists a;
  a.rows.resize(kHugeListBytes / sizeof(std::int64_t));
  a.rows.back() = 42;
  const std::int64_t* storage = a.rows.data();
  NeighborLists b = std::move(a);
  EXPECT_EQ(b.rows.data(), storage);
  EXPECT_EQ(b.rows.back(), 42);
}

TEST(KnnHostParallel, InPartsCoversEveryIndexOnce) {
  for (unsigned workers : {0u, 1u, 2u, 3u, 8u, 9u})
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> hits(count);
      in_parts(count, workers, [&hits](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (std::size_t i = 0; i < count; ++i)
        ASSERT_EQ(hits[i].load(), 1) << "workers " << workers << " count " << count << " index " << i;
    }
}

TEST(KnnHostParallel, CopyInPartsCopiesEverything) {
  for (std::size_t count : {std::size_t{0}, std::size_t{5}, (std::size_t{40} << 20) / sizeof(double) + 3}) {
    std::vector<double> from(count);
    std::iota(from.begin(), from.end(), 0.5);
    std::vector<double> to(count + 1, -1.0);
    copy_in_parts(from.data(), to.data(), count, 4);
    EXPECT_TRUE(std::equal(from.begin(), from.end(), to.begin())) << count;
    EXPECT_EQ(to.back(), -1.0) << count;  // nothing past the end
  }
}

}  // namespace
}  // namespace robustfit::neighbors::detail
