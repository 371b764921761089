// Workspace: per-slot device and pinned-host buffers that only grow, so that a warmed-up
// workspace makes no allocation in the selection hot path.
#include "robustfit/selection/cuda/errors.hpp"
#include "robustfit/selection/cuda/workspace.hpp"
#include "cuda_check.cuh"

#include <cuda_runtime.h>

#include <string>
#include <utility>

namespace robustfit::selection::cuda {
namespace {

// Device slots at most this large are treated as control blocks (see Workspace::device).
constexpr std::size_t kZeroedControlBytes = 64 * 1024;

[[noreturn]] void throw_out_of_memory(const char* what, std::size_t bytes, cudaError_t status) {
  cudaGetLastError();  // an allocation error is not sticky: clear it so later checks pass
  throw OutOfMemory(std::string("robust-fit selection workspace: ") + what + " of " +
                    std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(status));
}

}  // namespace

Workspace::~Workspace() { release(); }

Workspace::Workspace(Workspace&& other) noexcept
    : device_(std::move(other.device_)), host_(std::move(other.host_)) {
  other.device_.clear();
  other.host_.clear();
}

Workspace& Workspace::operator=(Workspace&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    host_ = std::move(other.host_);
    other.device_.clear();
    other.host_.clear();
  }
  return *this;
}

void* Workspace::device(std::size_t slot, std::size_t bytes) {
  if (slot >= device_.size()) device_.resize(slot + 1);
  Buffer& buffer = device_[slot];
  if (buffer.bytes >= bytes && buffer.ptr != nullptr) return buffer.ptr;
  if (buffer.ptr != nullptr) cudaFree(buffer.ptr);  // stream-ordered: cudaFree syncs the device
  buffer = {};
  void* ptr = nullptr;
  const std::size_t request = bytes == 0 ? 1 : bytes;
  if (const cudaError_t status = cudaMalloc(&ptr, request); status != cudaSuccess)
    throw_out_of_memory("cudaMalloc", request, status);
  buffer = {ptr, request};
  // Small slots are control blocks (states, ranges) that are copied back to the host whole,
  // padding and fields a given path never writes included: zero them once so every byte that
  // crosses to the host is defined (compute-sanitizer initcheck). Done once per allocation.
  if (request <= kZeroedControlBytes) {
    CUDA_CHECK(cudaMemset(ptr, 0, request));
    CUDA_CHECK(cudaDeviceSynchronize());  // the legacy stream does not order non-blocking streams
  }
  return ptr;
}

void* Workspace::host(std::size_t slot, std::size_t bytes) {
  if (slot >= host_.size()) host_.resize(slot + 1);
  Buffer& buffer = host_[slot];
  if (buffer.bytes >= bytes && buffer.ptr != nullptr) return buffer.ptr;
  if (buffer.ptr != nullptr) cudaFreeHost(buffer.ptr);
  buffer = {};
  void* ptr = nullptr;
  const std::size_t request = bytes == 0 ? 1 : bytes;
  if (const cudaError_t status = cudaMallocHost(&ptr, request); status != cudaSuccess)
    throw_out_of_memory("cudaMallocHost", request, status);
  buffer = {ptr, request};
  return ptr;
}

void Workspace::release() {
  for (Buffer& buffer : device_)
    if (buffer.ptr != nullptr) cudaFree(buffer.ptr);
  for (Buffer& buffer : host_)
    if (buffer.ptr != nullptr) cudaFreeHost(buffer.ptr);
  device_.clear();
  host_.clear();
}

}  // namespace robustfit::selection::cuda
