#pragma once
// The project's CUDA runtime checks, for the selection module's CUDA code and (included by
// path) the regression module's; cuBLAS calls: CUBLAS_CHECK, regression/src/cuda/cublas_check.hpp,
// built on the same helper. Host code only (no device code): .cu and .cpp files may include it.
// CUDA_CHECK(call): throws std::runtime_error naming the call, file, line and CUDA error, or
//   robustfit::selection::cuda::OutOfMemory (a std::bad_alloc) for an allocation failure,
//   which it clears first so that the next launch check does not see it.
// CUDA_CHECK_LAUNCH(): the same for the kernel launch just made.
// Both count what they check in call_counts() (issue 11's report: launches and host
// synchronisations per call; bench_selection_bench reads the difference over one call).
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "robustfit/selection/cuda/errors.hpp"

namespace robustfit::selection::cuda::detail {

// "<call> failed at <file>:<line>: <detail>": OutOfMemory (prefixed "GPU out of memory: ") when
// `out_of_memory`, else std::runtime_error.
[[noreturn]] inline void throw_failure(const char* call, const char* file, int line, const std::string& detail,
                                       bool out_of_memory) {
  const std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + detail;
  if (out_of_memory) throw OutOfMemory("GPU out of memory: " + what);
  throw std::runtime_error(what);
}

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const bool out_of_memory = status == cudaErrorMemoryAllocation;
  if (out_of_memory) cudaGetLastError();  // not sticky: clear it so that the next launch check does not see it
  throw_failure(call, file, line, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")",
                out_of_memory);
}

// What this host thread has asked of the CUDA runtime through CUDA_CHECK, CUDA_CHECK_LAUNCH
// and launch_cooperative: kernels this code launched (one CUDA_CHECK_LAUNCH follows each
// launch), CUB device-wide calls (each launches its own one to a few kernels; the size queries,
// called with nullptr, launch none and are not counted), memsets, copies, and host waits
// (stream, event or device synchronisations). Never reset: read differences.
struct CallCounts {
  unsigned long long launches = 0, cub_calls = 0, memsets = 0, copies = 0, host_syncs = 0;
};

inline CallCounts& call_counts() {
  thread_local CallCounts counts;
  return counts;
}

inline CallCounts operator-(const CallCounts& a, const CallCounts& b) {
  return {a.launches - b.launches, a.cub_calls - b.cub_calls, a.memsets - b.memsets, a.copies - b.copies,
          a.host_syncs - b.host_syncs};
}

enum class CallKind { other, launch, cub, memset, copy, sync };

constexpr bool text_starts_with(const char* text, const char* prefix) {
  for (; *prefix != '\0'; ++text, ++prefix)
    if (*text != *prefix) return false;
  return true;
}

constexpr bool text_contains(const char* text, const char* part) {
  for (; *text != '\0'; ++text)
    if (text_starts_with(text, part)) return true;
  return false;
}

// The kind of a checked call, from its source text (CUDA_CHECK's #call).
constexpr CallKind call_kind(const char* call) {
  if (text_starts_with(call, "cudaLaunch")) return CallKind::launch;
  if (text_starts_with(call, "cub::")) return text_contains(call, "(nullptr") ? CallKind::other : CallKind::cub;
  if (text_starts_with(call, "cudaMemset")) return CallKind::memset;
  if (text_starts_with(call, "cudaMemcpy")) return CallKind::copy;
  if (text_contains(call, "Synchronize(")) return CallKind::sync;
  return CallKind::other;
}

inline void count_call(CallKind kind) {
  CallCounts& counts = call_counts();
  switch (kind) {
    case CallKind::launch: ++counts.launches; break;
    case CallKind::cub: ++counts.cub_calls; break;
    case CallKind::memset: ++counts.memsets; break;
    case CallKind::copy: ++counts.copies; break;
    case CallKind::sync: ++counts.host_syncs; break;
    case CallKind::other: break;
  }
}

}  // namespace robustfit::selection::cuda::detail

#define CUDA_CHECK(call)                                                                                   \
  do {                                                                                                     \
    constexpr auto robustfit_kind_ = ::robustfit::selection::cuda::detail::call_kind(#call);             \
    const cudaError_t robustfit_status_ = (call);                                                          \
    if constexpr (robustfit_kind_ != ::robustfit::selection::cuda::detail::CallKind::other)               \
      ::robustfit::selection::cuda::detail::count_call(robustfit_kind_);                                   \
    if (robustfit_status_ != cudaSuccess)                                                                  \
      ::robustfit::selection::cuda::detail::throw_cuda_error(robustfit_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define CUDA_CHECK_LAUNCH()                                                                        \
  do {                                                                                             \
    ::robustfit::selection::cuda::detail::count_call(::robustfit::selection::cuda::detail::CallKind::launch); \
    CUDA_CHECK(cudaGetLastError());                                                                \
  } while (0)
