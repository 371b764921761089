// Floyd–Rivest selection with one read of the input (our addition beyond the seeds; it is the
// cutting-plane hybrid's "bracket, copy_if, select in the bracket" with the bracket taken from a
// sample instead of Kelley iterations, so the input is read once instead of once per iteration).
//
//  1. One block draws a pseudo-random sample (16384 floats, 8192 doubles), sorts it, takes the
//     sample's order statistics lo, hi at the sample position of rank k, widened by `sigmas`
//     binomial standard deviations on each side (the chance that rank k falls outside is
//     ~0.3 % at the default 3 sigmas, whatever the distribution).
//  2. One streaming pass counts the values < lo, == lo, == hi and inside (lo, hi), counts NaNs,
//     and appends the inside values to a buffer in per-warp chunks (one atomic per chunk, no
//     barriers: a cursor shared by every warp's appends would serialise, and block-wide
//     aggregation costs barriers). Vector loads, 32-bit tallies in registers and one warp
//     scan per step keep the pass near memory bandwidth.
//  3. Rank k lands on lo or hi (duplicate-heavy data ends here), or inside: radixSelect on the
//     few percent of the input in the buffer, on the digits of key − key(lo) only. A miss (rank
//     outside [lo, hi], or more inside values than the buffer holds) falls back to radixSelect
//     on the whole input: always exact.
#include <cub/block/block_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "algorithms.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "launch_shape.cuh"
#include "seed_common.cuh"
#include "warp_scan.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

// The sample: 16384 floats or 8192 doubles (the bracket shrinks as 1/sqrt(sample size); one
// block sorts 16 values per thread in about the same time either way, and 1024 threads x 16
// doubles would not fit in registers and shared memory).
template <class T> constexpr int kSampleThreads = sizeof(T) == 4 ? 1024 : 512;
constexpr int kSampleItems = 16;
template <class T> constexpr int kSampleSize = kSampleThreads<T> * kSampleItems;
constexpr int kPassThreads = 512;
constexpr int kVectorsPerThread = 4;  // 16-byte loads in flight per thread per step


template <class T>
struct BracketState {
  T lo, hi;
  unsigned long long below, equal_lo, equal_hi, inside, nans;
  unsigned long long cursor;  // write position in the buffer (may pass its capacity)
};

// 16-byte vector of T, for the streaming pass.
template <class T> struct Vector16;
template <> struct Vector16<float> { using type = float4; static constexpr int size = 4; };
template <> struct Vector16<double> { using type = double2; static constexpr int size = 2; };

__device__ __forceinline__ float element(const float4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }
__device__ __forceinline__ double element(const double2& v, int i) { return i == 0 ? v.x : v.y; }

template <class T>
using SampleSort = cub::BlockRadixSort<T, kSampleThreads<T>, kSampleItems>;

// Step 1 (one block, dynamic shared memory for the sort): the bracket [lo, hi] around rank k.
// Positions off the sample's ends become -inf / +inf, which bound every non-NaN value.
template <class T>
__global__ __launch_bounds__(kSampleThreads<T>) void pick_bracket(const T* __restrict__ x, std::size_t n,
                                                               std::size_t k, float sigmas,
                                                               BracketState<T>* state) {
  extern __shared__ unsigned char shared[];
  auto& temp = *reinterpret_cast<typename SampleSort<T>::TempStorage*>(shared);
  T items[kSampleItems];
#pragma unroll
  for (int j = 0; j < kSampleItems; ++j)
    items[j] = x[seed::mix(threadIdx.x * std::uint64_t{kSampleItems} + j + 1) % n];
  SampleSort<T>(temp).Sort(items);  // blocked: thread t holds sample ranks t*items .. +items-1

  const double p = (static_cast<double>(k) + 0.5) / static_cast<double>(n);
  const double centre = p * kSampleSize<T> - 0.5;
  const double spread = sigmas * sqrt(kSampleSize<T> * p * (1 - p)) + 1;
  const long long lo_rank = static_cast<long long>(floor(centre - spread));
  const long long hi_rank = static_cast<long long>(ceil(centre + spread));
  const long long first = threadIdx.x * static_cast<long long>(kSampleItems);
#pragma unroll
  for (int j = 0; j < kSampleItems; ++j) {
    if (first + j == lo_rank) state->lo = items[j];
    if (first + j == hi_rank) state->hi = items[j];
  }
  if (threadIdx.x == 0) {
    if (lo_rank < 0) state->lo = -std::numeric_limits<T>::infinity();
    if (hi_rank >= kSampleSize<T>) state->hi = std::numeric_limits<T>::infinity();
    state->below = state->equal_lo = state->equal_hi = state->inside = state->nans = state->cursor = 0;
  }
}

// Per-thread tallies of the streaming pass: 32-bit (a thread sees at most n / threads values),
// widened once at the end. equal_hi also counts lo's ties when lo == hi; the host ignores it then.
struct Tally {
  unsigned below = 0, equal_lo = 0, equal_hi = 0, inside = 0, nans = 0;
};

template <class T>
__device__ __forceinline__ bool classify(T v, T lo, T hi, Tally& tally) {
  const bool inside = lo < v && v < hi;
  tally.below += v < lo;
  tally.equal_lo += v == lo;
  tally.equal_hi += v == hi;
  tally.inside += inside;
  tally.nans += v != v;
  return inside;
}

__device__ __forceinline__ void add_warp_total(unsigned value, unsigned long long* total) {
  unsigned long long wide = value;
  for (int offset = 16; offset > 0; offset /= 2) wide += __shfl_down_sync(0xffffffffu, wide, offset);
  if (threadIdx.x % 32 == 0 && wide != 0) atomicAdd(total, wide);
}

// A warp's place in the buffer: it owns a chunk of slots, reserved with one atomic when the
// step's inside values do not fit (at least kChunk slots), and fills it in lane order — no
// barriers, and one atomic per chunk rather than per step. Unused slots of a chunk hold hi,
// which lies above every inside value, so the padded buffer has the same order statistics
// below its count of inside values, and all its values lie in [lo, hi]: the radix select that
// finishes only needs the digits of key - key(lo). Positions at or past `capacity` are not
// written (the host then sees cursor > capacity: overflow).
constexpr unsigned kChunk = 256;

template <class T>
struct WarpChunk {
  unsigned long long base = 0;
  unsigned size = 0, used = 0;

  __device__ void pad(T* buffer, std::size_t capacity, T hi) const {
    for (unsigned i = used + threadIdx.x % 32; i < size; i += 32)
      if (base + i < capacity) buffer[base + i] = hi;
  }

  // Room for `total` more values (warp-uniform); returns the first of them.
  __device__ unsigned long long claim(unsigned total, unsigned long long* cursor, T* buffer, std::size_t capacity,
                                     T hi) {
    if (used + total > size) {
      pad(buffer, capacity, hi);
      const unsigned fresh_size = max(kChunk, total);
      unsigned long long fresh = 0;
      if (threadIdx.x % 32 == 0) fresh = atomicAdd(cursor, static_cast<unsigned long long>(fresh_size));
      base = __shfl_sync(0xffffffffu, fresh, 0);
      size = fresh_size;
      used = 0;
    }
    const unsigned long long first = base + used;
    used += total;
    return first;
  }
};

// Step 2. The aligned middle of the input is read as 16-byte vectors in block-uniform steps of
// kVectorsPerThread vectors per thread; each thread classifies its values into registers and
// the warp places the step's inside values with one scan. The unaligned head and the tail
// (fewer than one vector each) are done by the first warp of block 0.
template <class T>
__global__ __launch_bounds__(kPassThreads) void bracket_pass(const T* __restrict__ x, std::size_t head,
                                                             std::size_t vectors, std::size_t n,
                                                             BracketState<T>* state, T* __restrict__ buffer,
                                                             std::size_t capacity) {
  using V = Vector16<T>;
  const T lo = state->lo, hi = state->hi;
  Tally tally;
  WarpChunk<T> chunk;
  const auto* body = reinterpret_cast<const typename V::type*>(x + head);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x; base < vectors; base += stride * kVectorsPerThread) {
    typename V::type loaded[kVectorsPerThread] = {};
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      const std::size_t i = base + u * stride + threadIdx.x;
      if (i < vectors) loaded[u] = body[i];
    }
    unsigned inside = 0;  // bit u * V::size + e: element e of vector u lies inside (lo, hi)
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      if (base + u * stride + threadIdx.x >= vectors) continue;
#pragma unroll
      for (int e = 0; e < V::size; ++e)
        if (classify(element(loaded[u], e), lo, hi, tally)) inside |= 1u << (u * V::size + e);
    }
    unsigned total = 0;
    const unsigned offset = warp_exclusive_sum(__popc(inside), total);
    if (total == 0) continue;
    unsigned long long position = chunk.claim(total, &state->cursor, buffer, capacity, hi) + offset;
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u)
#pragma unroll
      for (int e = 0; e < V::size; ++e)
        if (inside & (1u << (u * V::size + e))) {
          if (position < capacity) buffer[position] = element(loaded[u], e);
          ++position;
        }
  }
  if (blockIdx.x == 0 && threadIdx.x < 32) {
    const std::size_t tail = head + vectors * V::size;
    const std::size_t extra = head + (n - tail);  // < 2 * V::size <= 8
    const std::size_t i = threadIdx.x < head ? threadIdx.x : tail + (threadIdx.x - head);
    const T v = threadIdx.x < extra ? x[i] : T(0);
    const bool keep = threadIdx.x < extra && classify(v, lo, hi, tally);
    unsigned total = 0;
    const unsigned offset = warp_exclusive_sum(keep ? 1u : 0u, total);
    if (total != 0) {
      const unsigned long long position = chunk.claim(total, &state->cursor, buffer, capacity, hi) + offset;
      if (keep && position < capacity) buffer[position] = v;
    }
  }
  chunk.pad(buffer, capacity, hi);
  add_warp_total(tally.below, &state->below);
  add_warp_total(tally.equal_lo, &state->equal_lo);
  add_warp_total(tally.equal_hi, &state->equal_hi);
  add_warp_total(tally.inside, &state->inside);
  add_warp_total(tally.nans, &state->nans);
}

template <class T>
std::size_t sample_shared_bytes() {
  return sizeof(typename SampleSort<T>::TempStorage);
}

}  // namespace

template <class T>
Checked<T> floyd_rivest_select_checked(const T* d_values, std::size_t n, std::size_t k,
                                       const FloydRivestParams& params, Workspace& workspace,
                                       cudaStream_t stream) {
  using V = Vector16<T>;
  const auto address = reinterpret_cast<std::uintptr_t>(d_values);
  const std::size_t head = std::min(n, (16 - address % 16) % 16 / sizeof(T));
  const std::size_t vectors = (n - head) / V::size;
  const unsigned grid = streaming_grid(vectors, kPassThreads, kVectorsPerThread, 2048 / kPassThreads);
  // The expected bracket with room to spare, plus one partly filled chunk per warp.
  const std::size_t warps = std::size_t{grid} * (kPassThreads / 32);
  const std::size_t capacity = std::min(
      params.max_capacity, static_cast<std::size_t>(static_cast<double>(n) * params.capacity_fraction) + warps * kChunk);
  auto* d_state = workspace.device_as<BracketState<T>>(kFloydRivestState, 1);
  auto* h_state = workspace.host_as<BracketState<T>>(kFloydRivestState, 1);
  T* buffer = workspace.device_as<T>(kFloydRivestBuffer, std::max<std::size_t>(capacity, 1));

  const std::size_t shared_bytes = sample_shared_bytes<T>();
  CUDA_CHECK(cudaFuncSetAttribute(pick_bracket<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared_bytes)));
  pick_bracket<T><<<1, kSampleThreads<T>, shared_bytes, stream>>>(d_values, n, k, params.sigmas, d_state);
  CUDA_CHECK_LAUNCH();

  bracket_pass<T><<<grid, kPassThreads, 0, stream>>>(d_values, head, vectors, n, d_state, buffer, capacity);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_state, d_state, sizeof *h_state, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  BracketState<T> s = *h_state;
  if (s.nans != 0) return {T(0), true};
  if (s.lo == s.hi) s.equal_hi = 0;  // the pass counted lo's ties twice

  if (k >= s.below) {
    std::size_t rank = k - s.below;
    if (rank < s.equal_lo) return {s.lo, false};
    rank -= s.equal_lo;
    if (rank < s.inside && s.cursor <= capacity)  // the padded buffer: s.cursor values in [lo, hi]
      return {radix_select_in_range(buffer, s.cursor, rank, s.lo, s.hi, workspace, stream), false};
    if (rank >= s.inside && rank - s.inside < s.equal_hi) return {s.hi, false};
  }
  return radix_select_checked(d_values, n, k, RadixParams{}, workspace, stream);  // a miss
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                           \
  template Checked<T> floyd_rivest_select_checked<T>(const T*, std::size_t, std::size_t,                   \
                                                     const FloydRivestParams&, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
