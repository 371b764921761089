// The neighbour lists' storage: huge-page mappings for large lists (list_allocator.hpp).
#include "list_allocator.hpp"

#include <cstdint>

#include "host_parallel.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace robustfit::neighbors::detail {
namespace {

std::size_t whole_huge_pages(std::size_t bytes) { return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes; }

}  // namespace

void* allocate_list_bytes(std::size_t bytes) {
#if defined(__linux__)
  if (bytes >= kHugeListBytes) {
    // Over-map by one huge page, then unmap the slack on both sides of the 2 MiB aligned part.
    const std::size_t length = whole_huge_pages(bytes);
    void* mapped = mmap(nullptr, length + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto begin = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    if (aligned > begin) munmap(mapped, aligned - begin);
    const std::uintptr_t tail = begin + length + kHugePageBytes - (aligned + length);
    if (tail > 0) munmap(reinterpret_cast<void*>(aligned + length), tail);
#if defined(MADV_HUGEPAGE)
    madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);  // advice only: 4 KiB pages otherwise
#endif
    return reinterpret_cast<void*>(aligned);
  }
#endif
  return ::operator new(bytes);
}

void release_list_bytes(void* storage, std::size_t bytes) noexcept {
  if (storage == nullptr) return;
#if defined(__linux__)
  if (bytes >= kHugeListBytes) {
    munmap(storage, whole_huge_pages(bytes));
    return;
  }
#endif
  ::operator delete(storage);
}

void advise_huge_pages(void* storage, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugeListBytes) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(storage);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const std::uintptr_t last = (begin + bytes) / kHugePageBytes * kHugePageBytes;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)storage;
  (void)bytes;
#endif
}

void touch_pages(void* storage, std::size_t bytes, unsigned workers) {
  // 4 KiB steps: correct for either page size (one fault per huge page, the other writes hit it).
  constexpr std::size_t kPage = 4096;
  auto* base = static_cast<volatile unsigned char*>(storage);
  const std::size_t pages = (bytes + kPage - 1) / kPage;
  in_parts(pages, workers, [base](std::size_t from, std::size_t to) {
    for (std::size_t p = from; p < to; ++p) base[p * kPage] = 0;
  });
}

}  // namespace robustfit::neighbors::detail
