#include "device_row_reductions.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <span>
#include <vector>

#include "device_array.hpp"
#include "device_row_factors.hpp"
#include "robustfit/common/parallel.hpp"
#include "host_staging.hpp"
#include "reduction_ops.hpp"
#include "robustfit/selection/cuda/select.hpp"
#include "robustfit/selection/cuda/workspace.hpp"
#include "univariate.hpp"

namespace robustfit::regression::cuda {

struct DeviceRowReductions::State {
  int device = 0;  // the caller's device when made: calls from other threads run there too
  cudaStream_t stream = nullptr;
  selection::cuda::Workspace workspace;
  DeviceArray<double> values, sorted;
  DeviceArray<std::int32_t> rows;
  DeviceArray<char> temp;
  DeviceArray<std::int64_t> count;
  DeviceArray<SumBelow> below;
  PinnedArray<double> host_sorted;
  PinnedArray<std::int32_t> host_rows;
  PinnedArray<std::int64_t> host_count;
  PinnedArray<SumBelow> host_below;
  DeviceRowFactors factors;
  std::size_t device_calls = 0, fallbacks = 0;
  std::mutex turn;  // one call at a time on the stream and buffers (callers may be several threads)

  ~State() {
    if (stream) cudaStreamDestroy(stream);
  }

  // Frees the device buffers once nothing runs on them: after a failure, so that the next call
  // (or the host) finds the memory, and when the state goes back to the pool.
  void release_device() {
    cudaStreamSynchronize(stream);
    cudaGetLastError();
    for (auto* array : {&values, &sorted}) array->release();
    rows.release();
    temp.release();
    count.release();
    below.release();
    factors.release();
    workspace.release();
  }

  // `v` on the device, through the process's pinned staging halves (host_staging.hpp: a pageable
  // copy of 10^7 doubles took ~30 ms).
  const double* upload(const Eigen::VectorXd& v) {
    const auto n = static_cast<std::size_t>(v.size());
    double* d = values.reserve(n);
    upload_through_staging(d, v.data(), n, stream);
    return d;
  }

  // `v` sorted ascending, on the host (pinned, valid until the next call).
  std::span<const double> sorted_on_host(const Eigen::VectorXd& v) {
    const auto n = static_cast<std::size_t>(v.size());
    const double* d = upload(v);
    double* d_sorted = sorted.reserve(n);
    sort_values(d, d_sorted, n, temp, stream);
    double* host = host_sorted.reserve(n);
    CUDA_CHECK(cudaMemcpyAsync(host, d_sorted, sizeof(double) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return {host, n};
  }

  // The h-th smallest value (1 <= h <= n) of the uploaded `d`.
  double threshold(const double* d, std::size_t n, std::size_t h) {
    return selection::cuda::kth_smallest(d, n, h - 1, selection::Algorithm::automatic, workspace, stream);
  }
};

namespace {

// States (stream and pinned staging) are kept for the next fit of the process: a fit makes a
// handful of calls, and pinning its staging afresh would cost about as much as the pinned
// transfers save. Their device buffers are freed first (a fit leaves no device memory behind;
// cudaMalloc is cheap beside pinning). At most kKept are kept; the pool is never destroyed (CUDA
// may be torn down before static destructors run; the memory goes with the process).
constexpr std::size_t kKept = 2;

struct StatePool {
  std::mutex mutex;
  std::vector<std::unique_ptr<DeviceRowReductions::State>> states;
};

StatePool& pool() {
  static auto* const instance = new StatePool;
  return *instance;
}

}  // namespace

DeviceRowReductions::DeviceRowReductions(std::optional<detail::DeviceDesign> design, std::size_t factors_min_work)
    : design_(design), factors_min_work_(factors_min_work) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return;  // no usable device: the host answers
  }
  {
    StatePool& kept = pool();
    const std::lock_guard lock(kept.mutex);
    const auto same_device = std::find_if(kept.states.begin(), kept.states.end(),
                                          [&](const auto& state) { return state->device == device; });
    if (same_device != kept.states.end()) {
      state_ = std::move(*same_device);
      kept.states.erase(same_device);
      state_->device_calls = state_->fallbacks = 0;
      return;
    }
  }
  auto state = std::make_unique<State>();
  state->device = device;
  cudaGetLastError();  // an earlier failure elsewhere must not be taken for ours
  if (cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking) != cudaSuccess) {
    cudaGetLastError();
    return;  // no usable device: the host answers
  }
  state_ = std::move(state);
}

DeviceRowReductions::~DeviceRowReductions() {
  if (!state_) return;
  state_->release_device();
  StatePool& kept = pool();
  const std::lock_guard lock(kept.mutex);
  if (kept.states.size() < kKept) kept.states.push_back(std::move(state_));
}

std::size_t DeviceRowReductions::device_calls() const { return state_ ? state_->device_calls : 0; }
std::size_t DeviceRowReductions::fallbacks() const { return state_ ? state_->fallbacks : 0; }

template <class Device, class Host>
auto DeviceRowReductions::on_device(std::size_t n, Device&& device, Host&& host) const {
  // Row numbers are int32 on the device.
  if (!state_ || n < kDeviceReductionsMinRows || n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    return host();
  if (cudaSetDevice(state_->device) != cudaSuccess) {  // this thread's current device
    cudaGetLastError();
    return host();
  }
  const std::lock_guard lock(state_->turn);
  try {
    auto answer = device(*state_);
    ++state_->device_calls;
    return answer;
  } catch (const std::exception&) {
    // Out of memory, a CUDA error, or the selection's refusal of a NaN: the host's answer (or
    // the host's own error) instead.
    state_->release_device();
    ++state_->fallbacks;
  }
  return host();
}

std::vector<std::size_t> DeviceRowReductions::smallest_h(const Eigen::VectorXd& values, std::size_t h) const {
  const auto n = static_cast<std::size_t>(values.size());
  const auto host = [&] { return RowReductions::smallest_h(values, h); };
  if (h == 0 || h > n) return host();  // the host's error
  return on_device(n, [&](State& s) {
    const double* d = s.upload(values);
    const double t = s.threshold(d, n, h);
    // Every row at or below t, in row order, then on the host: those below t and the first
    // (lowest) rows equal to t up to h, as smallest_h_parallel breaks ties.
    const std::size_t count = rows_at_most(d, n, t, s.rows.reserve(n), s.temp, s.count, s.host_count, s.stream);
    std::int32_t* listed = s.host_rows.reserve(count);
    CUDA_CHECK(cudaMemcpyAsync(listed, s.rows.data(), sizeof(std::int32_t) * count, cudaMemcpyDeviceToHost, s.stream));
    CUDA_CHECK(cudaStreamSynchronize(s.stream));
    // In parallel over chunks of the list (serially, 10^7 rows took ~25 ms): each chunk's rows
    // below t and ties, then each chunk's share of the h - below ties in row order, then its rows.
    const std::size_t chunks = common::row_chunk_count(count);
    std::vector<std::size_t> below_in(chunks, 0), ties_in(chunks, 0);
    common::parallel_rows(count, [&](std::size_t c, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) ++(values(listed[i]) < t ? below_in[c] : ties_in[c]);
    });
    std::size_t ties_left = h;
    for (const std::size_t b : below_in) ties_left -= b;
    std::vector<std::size_t> first(chunks), ties_taken(chunks);
    std::size_t taken = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
      first[c] = taken;
      ties_taken[c] = std::min(ties_in[c], ties_left);
      ties_left -= ties_taken[c];
      taken += below_in[c] + ties_taken[c];
    }
    std::vector<std::size_t> rows(taken);
    common::parallel_rows(count, [&](std::size_t c, std::size_t begin, std::size_t end) {
      std::size_t at = first[c], ties = ties_taken[c];
      for (std::size_t i = begin; i < end; ++i) {
        if (values(listed[i]) < t) {
          rows[at++] = static_cast<std::size_t>(listed[i]);
        } else if (ties > 0) {
          rows[at++] = static_cast<std::size_t>(listed[i]);
          --ties;
        }
      }
    });
    return rows;
  }, host);
}

double DeviceRowReductions::trimmed_sum(const Eigen::VectorXd& values, std::size_t h) const {
  const auto n = static_cast<std::size_t>(values.size());
  const auto host = [&] { return RowReductions::trimmed_sum(values, h); };
  if (h == 0 || h > n) return host();
  return on_device(n, [&](State& s) {
    const double* d = s.upload(values);
    const double t = s.threshold(d, n, h);
    const SumBelow below = sum_below(d, n, t, s.temp, s.below, s.host_below, s.stream);
    return below.sum + static_cast<double>(h - static_cast<std::size_t>(below.count)) * t;
  }, host);
}

double DeviceRowReductions::min_window_variance(const Eigen::VectorXd& values, std::size_t h) const {
  const auto n = static_cast<std::size_t>(values.size());
  const auto host = [&] { return RowReductions::min_window_variance(values, h); };
  if (h == 0 || h > n) return host();
  return on_device(n, [&](State& s) { return detail::min_window_variance_sorted(s.sorted_on_host(values), h); }, host);
}

std::vector<double> DeviceRowReductions::kth_smallest_many(const Eigen::VectorXd& values,
                                                           std::span<const std::size_t> ks) const {
  const auto n = static_cast<std::size_t>(values.size());
  const auto host = [&] { return RowReductions::kth_smallest_many(values, ks); };
  if (ks.empty()) return host();
  for (const std::size_t k : ks)
    if (k >= n) return host();  // the host's error
  return on_device(n, [&](State& s) {
    std::vector<double> out(ks.size());
    selection::cuda::kth_smallest_many(s.upload(values), n, ks.data(), ks.size(), out.data(),
                                       selection::Algorithm::automatic, s.workspace, s.stream);
    return out;
  }, host);
}

std::optional<detail::ShortestWindow> DeviceRowReductions::shortest_window_below(const Eigen::VectorXd& values,
                                                                                 std::size_t h, double bound) const {
  const auto n = static_cast<std::size_t>(values.size());
  const auto host = [&] { return RowReductions::shortest_window_below(values, h, bound); };
  if (!(bound > 0) || h == 0 || h > n) return host();
  // The host's shortcut for 2h > n finds the same window as the scan of all sorted values
  // (univariate.hpp); the device sorts everything, which costs less than the host's pass.
  return on_device(n, [&](State& s) -> std::optional<detail::ShortestWindow> {
    const detail::ShortestWindow w = detail::shortest_window_sorted(s.sorted_on_host(values), h);
    if (w.half_width < bound) return w;
    return std::nullopt;
  }, host);
}

detail::VarianceWindowScan DeviceRowReductions::min_variance_window(const Eigen::VectorXd& values, std::size_t h,
                                                                    double shift) const {
  const auto n = static_cast<std::size_t>(values.size());
  const auto host = [&] { return RowReductions::min_variance_window(values, h, shift); };
  if (h == 0 || h > n) return host();
  return on_device(n, [&](State& s) { return detail::scan_variance_windows(s.sorted_on_host(values), h, shift); }, host);
}

Eigen::MatrixXd DeviceRowReductions::local_factors(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                                                   std::span<const std::size_t> rows) const {
  const auto host = [&] { return RowReductions::local_factors(X, y, rows); };
  const auto q = static_cast<std::size_t>(X.cols()) + 1;
  if (!design_ || design_->host_X != &X || design_->host_y != &y || rows.size() < factors_min_work_ / (q * q))
    return host();
  return on_device(static_cast<std::size_t>(X.rows()), [&](State& s) {
    return s.factors.factor(design_->X, design_->y, design_->n, design_->p, rows, s.stream);
  }, host);
}

}  // namespace robustfit::regression::cuda
