#pragma once
// Host-side entry points to the CUDA selection module that need no CUDA headers:
// used by the CLI and by code that is compiled without nvcc. Defined by src/cuda/gpu_host.cu
// when the project is built with CUDA; otherwise (src/gpu_unavailable.cpp) `cuda_available()`
// is false and the others throw std::runtime_error.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "robustfit/selection/algorithm.hpp"

namespace robustfit::selection {

// True when the library was built with CUDA and a CUDA device can be used.
bool cuda_available();
// Human-readable name of device 0 ("NVIDIA H200 (sm_90)"), or why none is usable.
std::string cuda_device_description();

// Copies `values` to the device and returns the ks[i]-th smallest (0-based) for each i,
// using `algorithm` (automatic picks). Throws std::invalid_argument on NaN, empty input
// or k out of range, std::runtime_error on CUDA errors (out of memory included).
template <class T>
std::vector<T> cuda_kth_smallest_many(std::span<const T> values, std::span<const std::size_t> ks,
                                      Algorithm algorithm);

}  // namespace robustfit::selection
