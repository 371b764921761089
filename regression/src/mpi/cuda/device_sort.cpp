// sort_on_gpu (local_sort.hpp): the values through the process's pinned staging to the current
// device, cub::DeviceRadixSort (the CUDA engine's sort_values), and back.
#include <cuda_runtime_api.h>

#include <exception>

#include "../../cuda/device_array.hpp"
#include "../../cuda/host_staging.hpp"
#include "../../cuda/reduction_ops.hpp"
#include "../local_sort.hpp"

namespace robustfit::regression::detail {

bool sort_on_gpu(std::span<const double> values, std::span<double> sorted, std::string* why) {
  cudaStream_t stream = nullptr;
  if (const cudaError_t status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); status != cudaSuccess) {
    if (why) *why = cudaGetErrorString(status);
    cudaGetLastError();  // no device: the host sorts
    return false;
  }
  bool done = false;
  try {
    cuda::DeviceArray<double> in, out;
    cuda::DeviceArray<char> temp;
    const std::size_t n = values.size();
    cuda::upload_through_staging(in.reserve(n), values.data(), n, stream);
    cuda::sort_values(in.data(), out.reserve(n), n, temp, stream);
    cuda::download_through_staging(sorted.data(), out.data(), n, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    done = true;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    cudaGetLastError();  // no room on the device: the host sorts
  }
  cudaStreamDestroy(stream);
  return done;
}

}  // namespace robustfit::regression::detail
