// Beliakov's hybrid cutting-plane selection, generalised to any rank k.
//
// The k-th smallest minimises f(t) = sum_i |g_i - t| + (n - 2k - 1) t, convex and piecewise
// linear. Kelley's step intersects the tangents at the bracket ends (lo, hi); the values
// outside the bracket and the linear term add the same line to both tangents, so the
// intersection is simply the mean of the values strictly inside the bracket. One fused
// reduction at the pivot p gives the counts below / equal / above p inside the bracket and
// the sums of (g - p) on each side: the new bracket, its size and its mean (the next pivot).
//
// Exactness with extreme values (1e30, 1e300, +-inf): the reduction works on g = the
// order-preserving integer key of each value (a monotone transform, the paper's remedy), so
// sums stay bounded by 2^64 per term and pivots are exact integers. Counts decide everything;
// the sums only steer. After a few steps the values inside the bracket are copied
// (cub::DeviceSelect::If), sorted, and read at rank k - #(keys <= lo).
// Termination: every step removes at least one value from the bracket (a mean lies strictly
// between the values unless all are equal, which the "equal" count resolves), and the number
// of steps is capped; a pivot that rounding pushes out of the bracket falls back to bisection.
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_select.cuh>

#include "algorithms.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kReduceThreads = 512;
constexpr int kItemsPerThread = 4;
constexpr int kUpdateThreads = 256;


enum Status : int { kRunning = 0, kFoundPivot = 1, kBracketSmall = 2 };

template <class Key>
struct CpState {
  Key lo, hi;                    // open bracket of keys that holds the answer
  Key pivot;                     // where the next reduction evaluates f
  unsigned long long le_lo;      // #(keys <= lo)
  unsigned long long inside;     // #(lo < key < hi)
  unsigned long long nan_count;  // from the first reduction
  unsigned long long selected;   // written by the final copy (its count is known already)
  int status;
};

struct CpPartial {
  unsigned long long below, equal, above, nans;
  double sum_below, sum_above;  // sums of (key - pivot) on each side, inside the bracket
};

struct CpSum {
  __device__ CpPartial operator()(const CpPartial& a, const CpPartial& b) const {
    return {a.below + b.below, a.equal + b.equal, a.above + b.above, a.nans + b.nans,
            a.sum_below + b.sum_below, a.sum_above + b.sum_above};
  }
};

template <class T>
__global__ __launch_bounds__(kReduceThreads) void cp_reduce(
    const T* values, std::size_t n, const CpState<typename KeyTraits<T>::Key>* state,
    CpPartial* partials) {
  using Key = typename KeyTraits<T>::Key;
  if (state->status != kRunning) return;
  const Key lo = state->lo, hi = state->hi, pivot = state->pivot;
  const double p = double(pivot);
  CpPartial acc{0, 0, 0, 0, 0.0, 0.0};
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; base < n;
       base += stride * kItemsPerThread) {
    T x[kItemsPerThread];
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      const std::size_t i = base + j * stride;
      x[j] = i < n ? values[i] : T(0);
    }
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      if (base + j * stride >= n) continue;
      acc.nans += (x[j] != x[j]);
      const Key key = KeyTraits<T>::to_key(x[j]);
      if (key <= lo || key >= hi) continue;
      if (key < pivot) {
        ++acc.below;
        acc.sum_below += double(key) - p;
      } else if (key > pivot) {
        ++acc.above;
        acc.sum_above += double(key) - p;
      } else {
        ++acc.equal;
      }
    }
  }
  using Reduce = cub::BlockReduce<CpPartial, kReduceThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const CpPartial total = Reduce(storage).Reduce(acc, CpSum{});
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// Combines the partials and moves the bracket: one Kelley step, decided on the device.
template <class Key>
__global__ __launch_bounds__(kUpdateThreads) void cp_update(const CpPartial* partials,
                                                            int blocks, CpState<Key>* state,
                                                            unsigned long long k,
                                                            unsigned long long small_bracket,
                                                            bool first) {
  if (state->status != kRunning) return;
  CpPartial acc{0, 0, 0, 0, 0.0, 0.0};
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) acc = CpSum{}(acc, partials[b]);
  using Reduce = cub::BlockReduce<CpPartial, kUpdateThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const CpPartial total = Reduce(storage).Reduce(acc, CpSum{});
  if (threadIdx.x != 0) return;

  CpState<Key> s = *state;
  if (first) s.nan_count = total.nans;
  const unsigned long long below_pivot = s.le_lo + total.below;
  const unsigned long long up_to_pivot = below_pivot + total.equal;
  double offset;  // mean of the new bracket's values, relative to the pivot
  if (k < below_pivot) {
    s.hi = s.pivot;
    s.inside = total.below;
    offset = total.sum_below / double(total.below);
  } else if (k >= up_to_pivot) {
    s.lo = s.pivot;
    s.le_lo = up_to_pivot;
    s.inside = total.above;
    offset = total.sum_above / double(total.above);
  } else {
    s.status = kFoundPivot;  // the answer's key is the pivot itself
    *state = s;
    return;
  }
  if (s.inside <= small_bracket) {
    s.status = kBracketSmall;
  } else {
    const double target = double(s.pivot) + offset;
    Key next = s.lo + (s.hi - s.lo) / 2;  // bisection, if rounding leaves the bracket
    if (target > double(s.lo) && target < double(s.hi)) {
      const Key rounded = Key(target);
      if (rounded > s.lo && rounded < s.hi) next = rounded;
    }
    s.pivot = next;
  }
  *state = s;
}

template <class T>
struct InOpenBracket {
  using Key = typename KeyTraits<T>::Key;
  Key lo, hi;
  __device__ bool operator()(const T& x) const {
    const Key key = KeyTraits<T>::to_key(x);
    return key > lo && key < hi;
  }
};

}  // namespace

template <class T>
Checked<T> cutting_plane_select_checked(const T* d_values, std::size_t n, std::size_t k,
                                        const CuttingPlaneParams& params, Workspace& workspace,
                                        cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  const std::size_t small_bracket = std::max(params.min_bracket, n >> params.bracket_shift);
  if (n <= small_bracket) return sort_select_checked(d_values, n, k, workspace, stream);

  const unsigned grid = streaming_grid(n, kReduceThreads, kItemsPerThread, 2048 / kReduceThreads);
  auto* d_state = workspace.device_as<CpState<Key>>(kCuttingPlaneState, 1);
  auto* h_state = workspace.host_as<CpState<Key>>(kCuttingPlaneState, 1);
  auto* d_partials = workspace.device_as<CpPartial>(kCuttingPlanePartials, grid);
  // Start: the bracket holds every non-NaN key (NaN keys are the extremes 0 and ~0); the first
  // pivot is the key of +0, so the first reduction also yields the mean of all keys.
  *h_state = CpState<Key>{Key(0), Key(~Key(0)), KeyTraits<T>::to_key(T(0)), 0, n, 0, 0, kRunning};
  CUDA_CHECK(cudaMemcpyAsync(d_state, h_state, sizeof *h_state, cudaMemcpyHostToDevice, stream));
  for (int iteration = 0; iteration < params.max_iterations; ++iteration) {
    cp_reduce<T><<<grid, kReduceThreads, 0, stream>>>(d_values, n, d_state, d_partials);
    CUDA_CHECK_LAUNCH();
    cp_update<Key><<<1, kUpdateThreads, 0, stream>>>(d_partials, int(grid), d_state, k,
                                                     small_bracket, iteration == 0);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaMemcpyAsync(h_state, d_state, sizeof *h_state, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const CpState<Key> state = *h_state;
  if (state.nan_count != 0) return {T(0), true};
  if (state.status == kFoundPivot) return {KeyTraits<T>::from_key(state.pivot), false};

  // Copy the bracket's values out and sort them: the answer is at rank k - #(keys <= lo).
  T* d_selected = workspace.device_as<T>(kCuttingPlaneSelected, state.inside);
  unsigned long long* d_num_selected = &d_state->selected;
  const InOpenBracket<T> in_bracket{state.lo, state.hi};
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, d_values, d_selected, d_num_selected, n,
                                   in_bracket, stream));
  void* d_temp = workspace.device(kCuttingPlaneTemp, temp_bytes);
  CUDA_CHECK(cub::DeviceSelect::If(d_temp, temp_bytes, d_values, d_selected, d_num_selected, n,
                                   in_bracket, stream));
  return {sort_select(d_selected, state.inside, k - state.le_lo, workspace, stream), false};
}

#define ROBUSTFIT_INSTANTIATE(T)                                                              \
  template Checked<T> cutting_plane_select_checked<T>(                                        \
      const T*, std::size_t, std::size_t, const CuttingPlaneParams&, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
