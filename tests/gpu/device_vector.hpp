#pragma once
// A minimal owning device array for the GPU tests (cudaMalloc / cudaMemcpy, checked).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace robustfit::testing {

template <class T>
class DeviceVector {
 public:
  explicit DeviceVector(std::size_t count) : count_(count) {
    if (cudaMalloc(reinterpret_cast<void**>(&data_), (count == 0 ? 1 : count) * sizeof(T)) != cudaSuccess)
      throw std::runtime_error("cudaMalloc of " + std::to_string(count * sizeof(T)) +
                               " bytes failed");
  }
  explicit DeviceVector(const std::vector<T>& host) : DeviceVector(host.size()) { upload(host); }
  ~DeviceVector() { cudaFree(data_); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;

  void upload(const std::vector<T>& host) {
    if (cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) !=
        cudaSuccess)
      throw std::runtime_error("cudaMemcpy to the device failed");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      throw std::runtime_error("cudaMemcpy to the host failed");
    return host;
  }
  T* get() { return data_; }
  const T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace robustfit::testing
