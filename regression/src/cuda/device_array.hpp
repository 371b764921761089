#pragma once
// A growable device array (cudaMalloc'd, never shrinks unless released): scratch that is
// allocated once and reused across calls of the CUDA engine.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "../../../selection/src/cuda/cuda_check.cuh"

namespace robustfit::regression::cuda {

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  // Moves hand the memory over (FAST-MCD's standardized rows become the engine's data).
  DeviceArray(DeviceArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }

  // At least `count` elements (contents undefined after growth).
  T* reserve(std::size_t count) {
    if (count > capacity_) {
      cudaFree(data_);
      data_ = nullptr;
      capacity_ = 0;
      CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), sizeof(T) * count));
      capacity_ = count;
    }
    return data_;
  }
  T* data() const { return data_; }
  // Frees the memory (after a device out-of-memory, so that smaller buffers can be had).
  void release() {
    cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// The same for pinned host memory (cudaHostAlloc): staging for downloads, kept across calls.
template <class T>
class PinnedArray {
 public:
  PinnedArray() = default;
  ~PinnedArray() { cudaFreeHost(data_); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;

  T* reserve(std::size_t count) {
    if (count > capacity_) {
      cudaFreeHost(data_);
      data_ = nullptr;
      capacity_ = 0;
      CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), sizeof(T) * count, cudaHostAllocDefault));
      capacity_ = count;
    }
    return data_;
  }
  T* data() const { return data_; }
  void release() {
    cudaFreeHost(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace robustfit::regression::cuda
