// Host wrappers of gpu.hpp for code compiled without nvcc (the CLI): device discovery and
// a copy-in / select / copy-out helper. cuda_available() never prints and never throws, so
// it is safe on machines with no GPU or no driver (CI).
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "cuda_check.cuh"
#include "robustfit/selection/cuda/select.hpp"
#include "robustfit/selection/gpu.hpp"

namespace robustfit::selection {

bool cuda_available() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // leave no error behind for later, unrelated checks
    return false;
  }
  return count > 0;
}

std::string cuda_device_description() {
  int count = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&count); status != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(status);
  }
  if (count == 0) return "no CUDA device found";
  cudaDeviceProp properties{};
  if (const cudaError_t status = cudaGetDeviceProperties(&properties, 0); status != cudaSuccess) {
    cudaGetLastError();
    return std::string("CUDA device 0 cannot be queried: ") + cudaGetErrorString(status);
  }
  return std::string(properties.name) + " (sm_" + std::to_string(properties.major) +
         std::to_string(properties.minor) + ")";
}

std::jthread warm_up_cuda_context() {
  if (!cuda_available()) return {};
  return std::jthread([] {
    if (cudaFree(nullptr) != cudaSuccess) cudaGetLastError();  // the engine reports its own errors
  });
}

template <class T>
std::vector<T> cuda_kth_smallest_many(std::span<const T> values, std::span<const std::size_t> ks,
                                      Algorithm algorithm) {
  if (values.empty()) throw std::invalid_argument("cuda_kth_smallest_many: empty input (n = 0)");
  T* raw = nullptr;
  if (const cudaError_t status = cudaMalloc(&raw, values.size_bytes()); status != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error("cuda_kth_smallest_many: cannot hold " +
                             std::to_string(values.size_bytes()) +
                             " bytes on the GPU: " + cudaGetErrorString(status));
  }
  const std::unique_ptr<T, decltype(&cudaFree)> d_values(raw, &cudaFree);
  CUDA_CHECK(cudaMemcpy(d_values.get(), values.data(), values.size_bytes(), cudaMemcpyHostToDevice));
  cuda::Workspace workspace;
  std::vector<T> out(ks.size());
  cuda::kth_smallest_many(d_values.get(), values.size(), ks.data(), ks.size(), out.data(),
                          algorithm, workspace, nullptr);
  return out;
}

template std::vector<float> cuda_kth_smallest_many<float>(std::span<const float>,
                                                          std::span<const std::size_t>, Algorithm);
template std::vector<double> cuda_kth_smallest_many<double>(std::span<const double>,
                                                            std::span<const std::size_t>, Algorithm);

}  // namespace robustfit::selection
