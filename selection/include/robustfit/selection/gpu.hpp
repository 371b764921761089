#pragma once
// Host-side entry points to the CUDA selection module that need no CUDA headers:
// used by the CLI and by code that is compiled without nvcc. Defined by src/cuda/gpu_host.cu
// when the project is built with CUDA; otherwise (src/gpu_unavailable.cpp) `cuda_available()`
// is false and the others throw std::runtime_error.
#include <cstddef>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "robustfit/selection/algorithm.hpp"

namespace robustfit::selection {

// True when the library was built with CUDA and a CUDA device can be used.
bool cuda_available();
// Human-readable name of device 0 ("NVIDIA H200 (sm_90)"), or why none is usable.
std::string cuda_device_description();

// Creates device 0's CUDA context on a thread of its own and returns that thread (joined when
// it goes away), so that the ~0.1 s the context takes overlaps with the caller's work, such as
// reading the data; a later CUDA call waits for it. Without CUDA or a device: an empty thread.
std::jthread warm_up_cuda_context();

// Copies `values` to the device and returns the ks[i]-th smallest (0-based) for each i,
// using `algorithm` (automatic picks). Throws std::invalid_argument on NaN, empty input
// or k out of range, std::runtime_error on CUDA errors (out of memory included).
template <class T>
std::vector<T> cuda_kth_smallest_many(std::span<const T> values, std::span<const std::size_t> ks,
                                      Algorithm algorithm);

}  // namespace robustfit::selection
