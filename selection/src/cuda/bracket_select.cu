// Bracket selection (issue 11): Floyd–Rivest's one read of the input, with the whole control on
// the device, so that a call costs one host synchronisation.
//
//  1. Sample. Up to 8192 keys: one block draws and sorts 2048 or 8192 (cub::BlockRadixSort)
//     and picks the bracket. Larger samples (default from 2^26 values: the bracket, and so the
//     buffer and its finish, shrink as 1/sqrt(sample)): one kernel draws them, CUB sorts them,
//     a one-warp kernel picks the bracket. The bracket [lo, hi] is the sample's order
//     statistics at rank k's sample position +- `sigmas` binomial standard deviations
//     (bracketing::sample_window; the bookkeeping is plain C++ in bracket_bookkeeping.hpp,
//     shared with floyd_rivest and replayed on the host by the CPU tests).
//  2. One streaming read (bracketing::bracket_pass, shared with floyd_rivest: 16-byte loads,
//     per-warp chunks) counts < lo and NaN and appends the values of [lo, hi] (where lo or hi
//     repeats in the sample: counts < lo, == lo, == hi, inside, NaN and appends the inside ones).
//  3. Finish on the device: one launch per radix digit of key - key(lo) over the buffer (which
//     the pass just wrote: it sits in L2). The first digit's blocks each read the pass's counts
//     and decide where rank k lies (bracketing::locate_rank); on lo or hi, or a miss, they stop
//     at once. Each digit's last block to finish (a ticket counter) scans the digit histogram,
//     extends the prefix and clears the histogram: no separate "find" launch. Digits after the
//     last needed one return at once.
//  4. One copy of the control block to the host, one synchronisation. A miss (rank k outside
//     the bracket, or more inside values than the buffer holds) is seen there and falls back to
//     radixSelect on the whole input: always exact, rare.
//
// Per call (common path): kernels = sample (1 with one block; with a large sample draw + CUB's
// onesweep sort, about 2 + key bits / 8 launches, + pick) + 1 pass + finishing digits (3 for
// float, 6 for double; those not needed return at once); 1 copy to the host; 1 host
// synchronisation. So 5 launches (float) / 8 (double) with a one-block sample, about 11 / 18
// with a CUB-sorted one. A miss adds radix select's launches and its one synchronisation.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "bracket_pass.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "dynamic_shared_memory.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "seed_common.cuh"
#include "sort_values.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using bracketing::BracketState;

template <class T> using KeyOf = typename KeyTraits<T>::Key;

// One-block samples: 512 threads x 4 or 16 keys.
constexpr int kBlockSampleThreads = 512;
static_assert(kBlockSampleThreads * 4 == kBracketSmallBlockSample);
static_assert(kBlockSampleThreads * 16 == kBracketBlockSample);

using bracketing::kDigitBins;
constexpr int kFinishThreads = 512;
constexpr int kFinishBlocksPerSm = 2;  // ~64 registers per thread: two blocks of 512 fit an SM
static_assert(kDigitBins % kFinishThreads == 0);

constexpr int kPending = 0, kFound = 1, kMiss = 2;

// Everything the device decides, in one block of memory: the host copies it back once.
template <class T>
struct Control {
  BracketState<T> counts;      // lo, hi and the pass's tallies (bracket_pass writes here)
  KeyOf<T> base;               // key(lo): the finish works on key - base
  KeyOf<T> prefix;             // digits of key - base found so far
  unsigned long long rank;     // rank of the answer among the buffer's keys sharing the prefix
  int remaining;               // bits of key - base below the prefix
  int status;                  // kPending, kFound (value holds the answer) or kMiss
  unsigned blocks_done;        // the ticket counter of a finishing digit
  T value;
};

// Resets the control block and the digit histogram; lo and hi from the sorted sample.
template <class T>
__device__ void start_call(const KeyOf<T>* sorted_keys, long long sample_size, std::size_t k, std::size_t n,
                           float sigmas, Control<T>* control, unsigned long long* hist) {
  for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) hist[b] = 0;
  if (threadIdx.x != 0) return;
  const auto window = bracketing::sample_window(k, n, sample_size, sigmas);
  Control<T> fresh{};  // every field written: the host copies the whole block back
  fresh.counts.lo = window.lo_rank < 0 ? -std::numeric_limits<T>::infinity()
                                       : KeyTraits<T>::from_key(sorted_keys[window.lo_rank]);
  fresh.counts.hi = window.hi_rank >= sample_size ? std::numeric_limits<T>::infinity()
                                                  : KeyTraits<T>::from_key(sorted_keys[window.hi_rank]);
  fresh.counts.closed = bracketing::closed_pass_for<T>(
      [sorted_keys](long long i) { return KeyTraits<T>::from_key(sorted_keys[i]); }, sample_size, window);
  fresh.status = kPending;
  *control = fresh;
}

template <class T, int kItems>
using BlockSampleSort = cub::BlockRadixSort<KeyOf<T>, kBlockSampleThreads, kItems>;

// Step 1, one block: draw 512 * kItems keys, sort them in shared memory, start the call.
template <class T, int kItems>
__global__ __launch_bounds__(kBlockSampleThreads) void sample_in_block(const T* __restrict__ x, std::size_t n,
                                                                      std::size_t k, float sigmas,
                                                                      Control<T>* control,
                                                                      unsigned long long* hist) {
  extern __shared__ unsigned char shared[];
  auto& temp = *reinterpret_cast<typename BlockSampleSort<T, kItems>::TempStorage*>(shared);
  KeyOf<T> keys[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    keys[j] = KeyTraits<T>::to_key(x[seed::mix(threadIdx.x * std::uint64_t{kItems} + j + 1) % n]);
  BlockSampleSort<T, kItems>(temp).Sort(keys);  // blocked: thread t holds sample ranks t*kItems ...
  __syncthreads();                              // the sort's storage becomes the sorted sample
  auto* sorted = reinterpret_cast<KeyOf<T>*>(shared);
#pragma unroll
  for (int j = 0; j < kItems; ++j) sorted[threadIdx.x * kItems + j] = keys[j];
  __syncthreads();
  start_call(sorted, kBlockSampleThreads * kItems, k, n, sigmas, control, hist);
}

// Step 1, large samples: draw the keys (CUB sorts them next).
template <class T>
__global__ void draw_sample(const T* __restrict__ x, std::size_t n, int sample_size, KeyOf<T>* keys) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < sample_size) keys[i] = KeyTraits<T>::to_key(x[seed::mix(std::uint64_t(i) + 1) % n]);
}

template <class T>
__global__ void pick_from_sorted(const KeyOf<T>* sorted, int sample_size, std::size_t k, std::size_t n,
                                 float sigmas, Control<T>* control, unsigned long long* hist) {
  start_call(sorted, sample_size, k, n, sigmas, control, hist);
}

// Step 3: one radix digit of key - base over the buffer. kFirst: decide from the pass's counts
// where rank k lies (each block alike; block 0 records an answer on lo or hi, or a miss).
template <class T, bool kFirst>
__global__ __launch_bounds__(kFinishThreads) void finish_digit(const T* __restrict__ buffer, std::size_t k,
                                                               std::size_t capacity, Control<T>* control,
                                                               unsigned long long* hist) {
  using Key = KeyOf<T>;
  using Scan = cub::BlockScan<unsigned long long, kFinishThreads>;
  __shared__ unsigned counts[kDigitBins];
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ bool last;

  Key base, prefix;
  unsigned long long rank;
  int remaining;
  const std::size_t size = control->counts.cursor;
  if constexpr (kFirst) {
    const BracketState<T> s = control->counts;
    const auto at = bracketing::locate_rank(s, k, capacity);
    if (s.nans != 0 || at.place != bracketing::Place::inside) {
      if (blockIdx.x == 0 && threadIdx.x == 0) {
        control->status = s.nans == 0 && at.place != bracketing::Place::miss ? kFound : kMiss;
        control->value = at.place == bracketing::Place::hi ? s.hi : s.lo;
      }
      return;
    }
    base = KeyTraits<T>::to_key(s.lo);
    prefix = 0;
    rank = at.rank;
    remaining = bracketing::bit_width(Key(KeyTraits<T>::to_key(s.hi) - base));
  } else {
    if (control->status != kPending) return;
    base = control->base;
    prefix = control->prefix;
    rank = control->rank;
    remaining = control->remaining;
  }
  const bracketing::Digit digit = bracketing::next_digit(remaining);

  for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) counts[b] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size; i += stride) {
    // Warp-aggregated when the warp agrees (ties inside the bracket pile into one bin).
    seed::count_in_shared(counts, bracketing::digit_bin(Key(KeyTraits<T>::to_key(buffer[i]) - base), prefix,
                                                        remaining, digit));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x)
    if (counts[b] != 0) atomicAdd(&hist[b], static_cast<unsigned long long>(counts[b]));
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&control->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;

  // The last block: every block's counts are in hist. Find the bin of `rank`, clear hist.
  __threadfence();
  constexpr int kPerThread = kDigitBins / kFinishThreads;
  unsigned long long mine[kPerThread];
  unsigned long long total = 0;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int b = threadIdx.x * kPerThread + j;
    mine[j] = __ldcg(&hist[b]);
    hist[b] = 0;
    total += mine[j];
  }
  unsigned long long below = 0;
  Scan(scan_storage).ExclusiveSum(total, below);
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    if (rank >= below && rank < below + mine[j]) {
      const Key found = Key(prefix << digit.width) | Key(threadIdx.x * kPerThread + j);
      control->prefix = found;
      control->rank = rank - below;
      control->remaining = digit.shift;
      control->base = base;
      if (digit.shift == 0) {
        control->value = KeyTraits<T>::from_key(found + base);
        control->status = kFound;
      }
    }
    below += mine[j];
  }
  if (threadIdx.x == 0) control->blocks_done = 0;
}

template <class T, int kItems>
void launch_sample_in_block(const T* d_values, std::size_t n, std::size_t k, float sigmas, Control<T>* control,
                            unsigned long long* hist, cudaStream_t stream) {
  const std::size_t bytes = std::max(sizeof(typename BlockSampleSort<T, kItems>::TempStorage),
                                     sizeof(KeyOf<T>) * kBlockSampleThreads * kItems);
  detail::allow_dynamic_shared_memory(sample_in_block<T, kItems>, bytes);
  sample_in_block<T, kItems><<<1, kBlockSampleThreads, bytes, stream>>>(d_values, n, k, sigmas, control, hist);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
Checked<T> bracket_select_checked(const T* d_values, std::size_t n, std::size_t k, const BracketParams& params,
                                  Workspace& workspace, cudaStream_t stream) {
  using Key = KeyOf<T>;
  const auto shape = bracketing::pass_shape(d_values, n, params.capacity_fraction, params.max_capacity);
  auto* d_control = workspace.device_as<Control<T>>(kBracketControl, 1);
  auto* h_control = workspace.host_as<Control<T>>(kBracketControl, 1);
  auto* d_hist = workspace.device_as<unsigned long long>(kBracketHistogram, kDigitBins);
  T* buffer = workspace.device_as<T>(kBracketBuffer, std::max<std::size_t>(shape.capacity, 1));

  const int requested = params.sample_size >= 0 ? params.sample_size : default_bracket_sample(n);
  const int sample = requested <= kBracketSmallBlockSample ? kBracketSmallBlockSample
                     : requested <= kBracketBlockSample    ? kBracketBlockSample
                                                           : requested;
  if (sample == kBracketSmallBlockSample) {
    launch_sample_in_block<T, 4>(d_values, n, k, params.sigmas, d_control, d_hist, stream);
  } else if (sample == kBracketBlockSample) {
    launch_sample_in_block<T, 16>(d_values, n, k, params.sigmas, d_control, d_hist, stream);
  } else {
    Key* keys = workspace.device_as<Key>(kBracketSample, sample);
    Key* sorted = workspace.device_as<Key>(kBracketSampleSorted, sample);
    draw_sample<T><<<(sample + 255) / 256, 256, 0, stream>>>(d_values, n, sample, keys);
    CUDA_CHECK_LAUNCH();
    sort_values(keys, sorted, static_cast<std::size_t>(sample), workspace, kBracketSortTemp, stream);
    pick_from_sorted<T><<<1, 32, 0, stream>>>(sorted, sample, k, n, params.sigmas, d_control, d_hist);
    CUDA_CHECK_LAUNCH();
  }

  bracketing::bracket_pass<T><<<shape.grid, bracketing::kPassThreads, 0, stream>>>(
      d_values, shape.head, shape.vectors, n, &d_control->counts, buffer, shape.capacity);
  CUDA_CHECK_LAUNCH();

  // The buffer's expected size: the sample window's share of n, twice over (ties and bad luck
  // only cost a grid-stride step more), plus the chunks' padding.
  const auto window = bracketing::sample_window(k, n, sample, params.sigmas);
  const double share = static_cast<double>(window.hi_rank - window.lo_rank + 1) / sample;
  const std::size_t expected = std::min(shape.capacity, static_cast<std::size_t>(2 * share * n) +
                                                            std::size_t{shape.grid} * (bracketing::kPassThreads / 32) *
                                                                bracketing::kChunk);
  const unsigned grid = streaming_grid(expected, kFinishThreads, 4, kFinishBlocksPerSm);
  finish_digit<T, true><<<grid, kFinishThreads, 0, stream>>>(buffer, k, shape.capacity, d_control, d_hist);
  CUDA_CHECK_LAUNCH();
  for (int digit = 1; digit < bracketing::digit_launches(KeyTraits<T>::kBits); ++digit) {
    finish_digit<T, false><<<grid, kFinishThreads, 0, stream>>>(buffer, k, shape.capacity, d_control, d_hist);
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaMemcpyAsync(h_control, d_control, sizeof *h_control, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (h_control->counts.nans != 0) return {T(0), true};
  if (h_control->status == kFound) return {h_control->value, false};
  return radix_select_checked(d_values, n, k, RadixParams{}, workspace, stream);  // a miss
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                               \
  template Checked<T> bracket_select_checked<T>(const T*, std::size_t, std::size_t, const BracketParams&, \
                                                Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
