#pragma once
// Reusable device (and pinned host) scratch memory for the selection algorithms:
// buffers grow on demand and are kept, so a warmed-up workspace allocates nothing.
#include <cstddef>
#include <vector>

namespace robustfit::selection::cuda {

class Workspace {
 public:
  Workspace() = default;
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& other) noexcept;
  Workspace& operator=(Workspace&& other) noexcept;

  // A device buffer of at least `bytes` for `slot` (contents undefined). Buffers of different
  // slots never alias; asking a slot for more replaces (frees) its old buffer.
  // Throws std::bad_alloc-derived robustfit::selection::cuda::OutOfMemory when cudaMalloc fails.
  void* device(std::size_t slot, std::size_t bytes);
  // Pinned host buffer, same rules.
  void* host(std::size_t slot, std::size_t bytes);

  template <class T>
  T* device_as(std::size_t slot, std::size_t count) {
    return static_cast<T*>(device(slot, count * sizeof(T)));
  }
  template <class T>
  T* host_as(std::size_t slot, std::size_t count) {
    return static_cast<T*>(host(slot, count * sizeof(T)));
  }

  void release();  // frees everything

 private:
  struct Buffer {
    void* ptr = nullptr;
    std::size_t bytes = 0;
  };
  std::vector<Buffer> device_;
  std::vector<Buffer> host_;
};

}  // namespace robustfit::selection::cuda
