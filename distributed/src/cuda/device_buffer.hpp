#pragma once
// A device array that grows on demand (its contents are not kept when it grows), for the CUDA
// LocalShard. Its memory comes from the device's stream-ordered pool (cudaMallocAsync on the
// calling thread's default stream, which the shard's calls use): the distributed LTS search makes a
// shard per candidate and batch, each with ~25 buffers, and cudaMalloc / cudaFree (which waits
// for the whole device) per buffer cost more than the shard's passes. Freed memory stays in the
// pool up to a quarter of the device's memory. Where the pool is not supported, cudaMalloc.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::distributed {

namespace detail {

// Whether the current device has a stream-ordered pool; on first use per device, its release
// threshold is raised so that memory freed between two shards' calls is not handed back.
inline bool use_memory_pool() {
  static std::mutex mutex;
  static std::set<int> pooled, unpooled;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  if (pooled.count(device)) return true;
  if (unpooled.count(device)) return false;
  int supported = 0;
  cudaMemPool_t pool = nullptr;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess || !supported ||
      cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    unpooled.insert(device);
    return false;
  }
  std::uint64_t keep = total_bytes / 4;
  if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) cudaGetLastError();
  pooled.insert(device);
  return true;
}

}  // namespace detail

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* reserve(std::size_t count) {
    if (data_ == nullptr || count > capacity_) {
      release();
      const std::size_t size = std::max<std::size_t>(count, 1);
      void* memory = nullptr;
      pooled_ = detail::use_memory_pool();
      if (pooled_) {
        CUDA_CHECK(cudaMallocAsync(&memory, size * sizeof(T), cudaStreamPerThread));
      } else {
        CUDA_CHECK(cudaMalloc(&memory, size * sizeof(T)));
      }
      data_ = static_cast<T*>(memory), capacity_ = size;
    }
    return data_;
  }
  T* upload(std::span<const T> host) {
    reserve(host.size());
    if (!host.empty()) CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    return data_;
  }
  std::vector<T> download(std::size_t count, std::size_t offset = 0) const {
    std::vector<T> host(count);
    if (count > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
    std::swap(pooled_, other.pooled_);
  }
  T* get() const { return data_; }

 private:
  void release() {
    if (data_ != nullptr) pooled_ ? cudaFreeAsync(data_, cudaStreamPerThread) : cudaFree(data_);
    data_ = nullptr, capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
  bool pooled_ = false;
};

}  // namespace robustfit::distributed
