// Bracket selection (issue 11): Floyd–Rivest's one read of the input, with the whole control on
// the device, so that a call costs one host synchronisation.
//
// With a one-block sample (2048 or 8192 keys) on a device that launches cooperatively, the
// whole call is one launch (bracket_one_launch.cu: the same steps, grid.sync() between them).
// Otherwise, separate kernels:
//  1. Sample. Up to 8192 keys: one block draws 2048 or 8192 and selects the bracket's ends from
//     them (block_sample_select.cuh: an 8-bit radix select in shared memory, no sort). Larger
//     samples (default from 2^26 values: the bracket, and so the buffer and its finish, shrink
//     as 1/sqrt(sample)): one kernel draws them, CUB sorts them, a one-warp kernel picks the
//     bracket. The bracket [lo, hi] is the sample's order statistics at rank k's sample
//     position +- `sigmas` binomial standard deviations (bracketing::sample_window; the
//     bookkeeping is plain C++ in bracket_bookkeeping.hpp, shared with floyd_rivest and
//     replayed on the host by the CPU tests).
//  2. One streaming read (bracketing::bracket_pass, shared with floyd_rivest: 16-byte loads,
//     per-warp chunks) counts < lo and NaN and appends the values of [lo, hi] (where lo or hi
//     repeats in the sample: counts < lo, == lo, == hi, inside, NaN and appends the inside ones).
//  3. Finish on the device: one launch per radix digit of key - key(lo) over the buffer (which
//     the pass just wrote: it sits in L2; bracket_digits.cuh). The first digit's blocks each
//     read the pass's counts and decide where rank k lies (bracketing::locate_rank); on lo or
//     hi, or a miss, they stop at once. Each digit's last block to finish (a ticket counter)
//     scans the digit histogram, extends the prefix and clears the histogram: no separate
//     "find" launch. Digits after the last needed one return at once.
//  4. One copy of the control block to the host, one synchronisation. A miss (rank k outside
//     the bracket, or more inside values than the buffer holds) is seen there and falls back to
//     radixSelect on the whole input: always exact, rare.
//
// Per call (common path): one launch, a memset and one synchronisation with a one-block sample
// where the device launches cooperatively. Separate kernels: sample (1 with one block; with a
// large sample draw + CUB's onesweep sort, about 2 + key bits / 8 launches, + pick) + 1 pass +
// finishing digits (3 for float, 6 for double; those not needed return at once); 1 copy to the
// host; 1 host synchronisation. So 5 launches (float) / 8 (double) with a one-block sample,
// about 11 / 18 with a CUB-sorted one. A miss adds radix select's launches and its one
// synchronisation.
#include <algorithm>
#include <cstdint>

#include "block_sample_select.cuh"
#include "bracket_digits.cuh"
#include "bracket_pass.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
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
using bracketing::kBlockSampleThreads;
static_assert(kBlockSampleThreads * 4 == kBracketSmallBlockSample);
static_assert(kBlockSampleThreads * 16 == kBracketBlockSample);

using bracketing::kDigitBins;
constexpr int kFinishThreads = 512;
constexpr int kFinishBlocksPerSm = 2;  // ~64 registers per thread: two blocks of 512 fit an SM

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

// Resets the control block and the digit histogram for the sample's bracket.
template <class T>
__device__ void start_call(const BracketState<T>& bracket, Control<T>* control, unsigned long long* hist) {
  for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) hist[b] = 0;
  if (threadIdx.x != 0) return;
  Control<T> fresh{};  // every field written: the host copies the whole block back
  fresh.counts = bracket;
  fresh.status = kPending;
  *control = fresh;
}

// Step 1, one block: draw 512 * kItems keys, select the bracket's ends, start the call.
template <class T, int kItems>
__global__ __launch_bounds__(kBlockSampleThreads) void sample_in_block(const T* __restrict__ x, std::size_t n,
                                                                      std::size_t k, float sigmas,
                                                                      Control<T>* control,
                                                                      unsigned long long* hist) {
  __shared__ bracketing::SampleSelectStorage<KeyOf<T>> storage;
  KeyOf<T> keys[kItems];
  bracketing::draw_block_sample<T, kItems>(x, n, keys);
  start_call(bracketing::bracket_from_block_sample<T, kItems>(keys, k, n, sigmas, storage), control, hist);
}

// Step 1, large samples: draw the keys (CUB sorts them next).
template <class T>
__global__ void draw_sample(const T* __restrict__ x, std::size_t n, int sample_size, KeyOf<T>* keys) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < sample_size) keys[i] = KeyTraits<T>::to_key(x[seed::sample_index(std::uint64_t(i) + 1, n)]);
}

template <class T>
__global__ void pick_from_sorted(const KeyOf<T>* sorted, int sample_size, std::size_t k, std::size_t n,
                                 float sigmas, Control<T>* control, unsigned long long* hist) {
  start_call(bracketing::bracket_from_sample<T>([sorted](long long i) { return KeyTraits<T>::from_key(sorted[i]); },
                                                sample_size, k, n, sigmas),
             control, hist);
}

// Step 3: one radix digit of key - base over the buffer. kFirst: decide from the pass's counts
// where rank k lies (each block alike; block 0 records an answer on lo or hi, or a miss).
template <class T, bool kFirst>
__global__ __launch_bounds__(kFinishThreads) void finish_digit(const T* __restrict__ buffer, std::size_t k,
                                                               std::size_t capacity, Control<T>* control,
                                                               unsigned long long* hist) {
  using Key = KeyOf<T>;
  __shared__ unsigned counts[kDigitBins];
  __shared__ typename bracketing::DigitScan<kFinishThreads>::TempStorage scan_storage;
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
  bracketing::count_digit(buffer, size, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x,
                          std::size_t(gridDim.x) * blockDim.x, base, prefix, remaining, digit, counts);
  seed::flush_counts(counts, kDigitBins, hist);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&control->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;

  // The last block: every block's counts are in hist. Find the bin of `rank`, clear hist.
  __threadfence();
  bracketing::find_digit_bin<kFinishThreads>(hist, rank, true, scan_storage, [&](int bin, unsigned long long within) {
    const Key found = Key(prefix << digit.width) | Key(bin);
    control->prefix = found;
    control->rank = within;
    control->remaining = digit.shift;
    control->base = base;
    if (digit.shift == 0) {
      control->value = KeyTraits<T>::from_key(found + base);
      control->status = kFound;
    }
  });
  if (threadIdx.x == 0) control->blocks_done = 0;
}

template <class T, int kItems>
void launch_sample_in_block(const T* d_values, std::size_t n, std::size_t k, float sigmas, Control<T>* control,
                            unsigned long long* hist, cudaStream_t stream) {
  sample_in_block<T, kItems><<<1, kBlockSampleThreads, 0, stream>>>(d_values, n, k, sigmas, control, hist);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
Checked<T> bracket_select_checked(const T* d_values, std::size_t n, std::size_t k, const BracketParams& params,
                                  Workspace& workspace, cudaStream_t stream) {
  using Key = KeyOf<T>;
  const int requested = params.sample_size >= 0 ? params.sample_size : default_bracket_sample(n);
  const int sample = requested <= kBracketSmallBlockSample ? kBracketSmallBlockSample
                     : requested <= kBracketBlockSample    ? kBracketBlockSample
                                                           : requested;
  if (params.one_launch)
    if (const auto answer = bracket_select_one_launch(d_values, n, k, params, sample, workspace, stream)) return *answer;

  const auto shape = bracketing::pass_shape(d_values, n, params.capacity_fraction, params.max_capacity);
  auto* d_control = workspace.device_as<Control<T>>(kBracketControl, 1);
  auto* h_control = workspace.host_as<Control<T>>(kBracketControl, 1);
  auto* d_hist = workspace.device_as<unsigned long long>(kBracketHistogram, kDigitBins);
  T* buffer = workspace.device_as<T>(kBracketBuffer, std::max<std::size_t>(shape.capacity, 1));

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
