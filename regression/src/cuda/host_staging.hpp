#pragma once
// Host <-> device copies of large arrays through two pinned staging halves, pinned once per
// process and filled or emptied by all host threads while the other half transfers: the CUDA
// engine's uploads of X and y, its downloads of FAST-MCD's distances, and DeviceRowReductions'
// uploads of n-vectors. (A pageable cudaMemcpy of 10^7 x 11 doubles took 0.18-0.64 s on the H100
// machine; pinning a buffer per call would cost about as much as it saves.)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cuda/errors.hpp"

namespace robustfit::regression::cuda {

// Each staging half holds this many bytes (small halves, reused chunk after chunk).
inline constexpr std::size_t kStagingBytes = std::size_t{4} << 20;

// Host staging bytes: pinned when they can be had, else pageable (slower transfers).
class StagingBytes {
 public:
  explicit StagingBytes(std::size_t count) {
    if (cudaHostAlloc(reinterpret_cast<void**>(&pinned_), count, cudaHostAllocDefault) != cudaSuccess) {
      cudaGetLastError();  // not sticky; the pageable buffer does the job
      pinned_ = nullptr;
      pageable_.resize(count);
    }
  }
  ~StagingBytes() {
    if (pinned_) cudaFreeHost(pinned_);
  }
  StagingBytes(const StagingBytes&) = delete;
  StagingBytes& operator=(const StagingBytes&) = delete;
  unsigned char* data() { return pinned_ ? pinned_ : pageable_.data(); }

 private:
  unsigned char* pinned_ = nullptr;
  std::vector<unsigned char> pageable_;
};

// The uploads' two staging halves, pinned once per process: pinning took 0.3-0.8 ms per MB on
// the H100 machine (2 x 16 MB cost more than the 88 MB transfer it served), so an engine made
// after the first reuses them. One upload at a time; never freed (engines may outlive statics).
struct SharedStaging {
  std::mutex turn;
  StagingBytes bytes{2 * kStagingBytes};
};
inline SharedStaging& shared_staging() {
  static auto* staging = new SharedStaging;
  return *staging;
}

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Waits for the stream when leaving a scope, also by an exception: no transfer may still read
// a staging buffer when it is freed.
struct StreamDrain {
  cudaStream_t stream;
  ~StreamDrain() { cudaStreamSynchronize(stream); }
};

// Single precision squares residuals: values must keep their squares inside float's normal
// range, so the largest |value| of an uploaded array (X, whose columns the driver already
// scales near unit size, or y) must lie in [1e-18, 1e18] unless it is 0. Outside, float would
// overflow or flush to zero silently: refuse, never a wrong fit.
inline void require_single_precision_range(double largest) {
  constexpr double kSmallest = 1e-18, kLargest = 1e18;
  if (largest > kLargest || (largest > 0 && largest < kSmallest)) {
    std::ostringstream message;
    message << "the data's magnitude (largest |value| " << largest << ") is outside what single precision can square "
            << "(1e-18 to 1e18); use double precision or rescale the data";
    throw std::invalid_argument(message.str());
  }
}

// `length` values into the staging buffer as Scalar, by all the host's threads (one thread
// copies pageable memory at a fraction of the bus speed). Float: returns the largest |value|.
template <class Scalar>
double stage(const double* src, Scalar* host, std::size_t length) {
  std::vector<double> largest(common::row_chunk_count(length), 0.0);
  common::parallel_rows(length, [&](std::size_t c, std::size_t begin, std::size_t end) {
    if constexpr (std::is_same_v<Scalar, double>) {
      std::copy(src + begin, src + end, host + begin);
    } else {
      double chunk_largest = 0;
      for (std::size_t i = begin; i < end; ++i) {
        chunk_largest = std::max(chunk_largest, std::abs(src[i]));
        host[i] = static_cast<Scalar>(src[i]);
      }
      largest[c] = chunk_largest;
    }
  });
  return *std::max_element(largest.begin(), largest.end());
}

// Copies `count` host doubles to the device as Scalar and synchronises: through two pinned
// staging buffers, chunk k+1 staged (copied, or converted to float) while chunk k transfers;
// no full copy on the host. A pageable cudaMemcpy reached 1.4-5 GB/s on the H100 machine
// (0.18-0.64 s for 10^7 x 11 doubles). Float: throws std::invalid_argument when a value lies
// outside the float range.
template <class Scalar>
void upload_through_staging(Scalar* d_dst, const double* src, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  const std::size_t chunk = std::min(count, kStagingBytes / sizeof(Scalar));
  SharedStaging& staging = shared_staging();
  const std::lock_guard<std::mutex> one_upload(staging.turn);
  auto* halves = reinterpret_cast<Scalar*>(staging.bytes.data());
  Event done[2];
  const StreamDrain drain{stream};
  for (std::size_t begin = 0, k = 0; begin < count; begin += chunk, k ^= 1) {
    const std::size_t length = std::min(chunk, count - begin);
    Scalar* host = halves + k * chunk;
    if (begin >= 2 * chunk) CUDA_CHECK(cudaEventSynchronize(done[k].get()));  // this half's last transfer
    const double largest = stage(src + begin, host, length);
    if constexpr (!std::is_same_v<Scalar, double>) require_single_precision_range(largest);
    CUDA_CHECK(cudaMemcpyAsync(d_dst + begin, host, sizeof(Scalar) * length, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaEventRecord(done[k].get(), stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Copies `count` device Scalars into host doubles and synchronises: the mirror of upload
// (a pageable download of FAST-MCD's 10^7 distances took ~30 ms), chunk k+1 transferring into
// one pinned half while chunk k is copied out of the other by all host threads.
template <class Scalar>
void download_through_staging(double* dst, const Scalar* d_src, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  const std::size_t chunk = std::min(count, kStagingBytes / sizeof(Scalar));
  SharedStaging& staging = shared_staging();
  const std::lock_guard<std::mutex> one_transfer(staging.turn);
  auto* halves = reinterpret_cast<Scalar*>(staging.bytes.data());
  Event done[2];
  const StreamDrain drain{stream};
  const auto copy_out = [&](std::size_t begin, std::size_t k) {
    CUDA_CHECK(cudaEventSynchronize(done[k].get()));
    const std::size_t length = std::min(chunk, count - begin);
    const Scalar* host = halves + k * chunk;
    common::parallel_rows(length, [&](std::size_t, std::size_t b, std::size_t e) { std::copy(host + b, host + e, dst + begin + b); });
  };
  std::size_t k = 0;
  for (std::size_t begin = 0; begin < count; begin += chunk, k ^= 1) {
    CUDA_CHECK(cudaMemcpyAsync(halves + k * chunk, d_src + begin, sizeof(Scalar) * std::min(chunk, count - begin),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaEventRecord(done[k].get(), stream));
    if (begin >= chunk) copy_out(begin - chunk, k ^ 1);  // the previous chunk, while this one transfers
  }
  copy_out((count - 1) / chunk * chunk, k ^ 1);
}

}  // namespace robustfit::regression::cuda
