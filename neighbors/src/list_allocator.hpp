#pragma once
// Storage of the engine boundary's neighbour lists (engine.hpp). The lists of large k run to a
// GB (2^16 queries x k = 1000 x 16 bytes), and on the H200 host zero-filling and faulting in
// that much fresh memory cost as much as the device search. So:
//   - construct() default-initialises: resize() leaves the entries unwritten (every engine
//     writes every entry of its lists), no zero fill;
//   - allocations of kHugeListBytes or more are whole 2 MiB pages of their own mapping, advised
//     for transparent huge pages: faulting in 1 GB takes ~500 faults instead of 262144, and
//     touch_pages() can fault them in from several threads ahead of the writes.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace robustfit::neighbors::detail {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
inline constexpr std::size_t kHugeListBytes = 4 * kHugePageBytes;

// Raw storage for `bytes`: below kHugeListBytes from operator new; from there on a private
// anonymous mapping of whole 2 MiB pages, 2 MiB aligned, advised MADV_HUGEPAGE (where the
// system has it). Throws std::bad_alloc. release_list_bytes must get the same byte count.
void* allocate_list_bytes(std::size_t bytes);
void release_list_bytes(void* storage, std::size_t bytes) noexcept;

// Advises the 2 MiB pages inside [storage, storage + bytes) for transparent huge pages, before
// their first touch (memory allocated elsewhere, e.g. the Eigen result of knn_search); only
// for bytes >= kHugeListBytes, a no-op elsewhere and where the system has no such advice.
void advise_huge_pages(void* storage, std::size_t bytes) noexcept;

// Faults in the pages of [storage, storage + bytes) from `workers` threads (one write a page):
// only for memory whose contents do not matter yet (the write may change them).
void touch_pages(void* storage, std::size_t bytes, unsigned workers);

template <class T>
class ListAllocator {
 public:
  using value_type = T;
  ListAllocator() = default;
  template <class U>
  ListAllocator(const ListAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t count) {
    if (count > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_list_bytes(count * sizeof(T)));
  }
  void deallocate(T* storage, std::size_t count) noexcept { release_list_bytes(storage, count * sizeof(T)); }

  // Default-initialisation: no value is written for trivial types (resize(n) allocates only).
  template <class U>
  void construct(U* at) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(at)) U;
  }
  template <class U, class... Args>
  void construct(U* at, Args&&... args) {
    ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const ListAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using ListVector = std::vector<T, ListAllocator<T>>;

}  // namespace robustfit::neighbors::detail
