// MSD radixSelect (Alabi et al.) on order-preserving keys, with 11-bit digits (3 passes for
// float, 6 for double) as in modern radix top-k. Each pass builds a shared-memory histogram
// of the current digit of the candidates; a one-block kernel finds the digit holding rank k
// and updates (prefix, k) on the device, so the host waits only once, for the answer.
// Copying variant (n >= copy_threshold): the pass after the first writes the candidates that
// match the prefix into a buffer (fused with its histogram) and later passes read only those.
// Rescan variant (small n, no O(n) memory): every pass re-reads the input and skips
// non-matching keys. The first pass also counts NaNs, so NaN detection costs no extra read.
// One-launch variant (n up to kOneLaunchMaxSize, where the input stays in L2 between passes):
// the rescan passes in one cooperative kernel, the grid waiting at grid.sync() after each
// histogram and every block choosing the digit itself from it (the find kernel's scan): no
// host round trip but the answer's, written straight to pinned host memory. At 2^20 floats the
// launches and copies of the separate kernels were most of the 38-50 us.
// radix_select_checked tries the shared-memory variant first (radix_resident.cu: the input held
// in the SMs' shared memory, no memset), then the one launch, then the separate passes.
#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <optional>
#include <type_traits>

#include "algorithms.cuh"
#include "bracket_digits.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kDigitBits = 11;
constexpr int kBins = 1 << kDigitBits;
static_assert(kBins == bracketing::kDigitBins, "radix's digits are the bracket's: one scan (find_digit_bin) for both");
constexpr int kPassThreads = 512;
constexpr int kItemsPerThread = 4;  // loads in flight per thread per step
constexpr int kFindThreads = 1024;
static_assert(kBins % kFindThreads == 0);
static_assert(kBins % kPassThreads == 0);
// Up to this many values the one-launch variant runs (its passes then read from L2).
constexpr std::size_t kOneLaunchMaxSize = std::size_t{1} << 22;


template <class Key>
struct RadixState {
  Key prefix;                    // the digits found so far: key >> shift of the last pass
  unsigned long long k;          // rank of the answer among the keys that share the prefix
  unsigned long long src_count;  // candidates written by the previous pass
  unsigned long long cursor;     // write position of the pass in flight
  unsigned long long nan_count;  // NaNs seen by the first pass
};

constexpr int digit_shift(int key_bits, int pass) {
  return key_bits - kDigitBits * (pass + 1) > 0 ? key_bits - kDigitBits * (pass + 1) : 0;
}
constexpr int digit_width(int key_bits, int pass) {
  return key_bits - kDigitBits * pass - digit_shift(key_bits, pass);
}
constexpr int pass_count(int key_bits) { return (key_bits + kDigitBits - 1) / kDigitBits; }

// One histogram pass. Src is T (the input) or Key (a candidate buffer). kFilter: only keys
// with (key >> prev_shift) == prefix count; kWrite: those are also appended to `out`.
template <class T, class Src, bool kFilter, bool kWrite, bool kCountNan>
__global__ __launch_bounds__(kPassThreads) void radix_pass(
    const Src* src, std::size_t n_input, RadixState<typename KeyTraits<T>::Key>* state,
    int prev_shift, int shift, unsigned long long* hist, typename KeyTraits<T>::Key* out,
    typename KeyTraits<T>::Key key_base) {
  using Key = typename KeyTraits<T>::Key;
  using BlockScan = cub::BlockScan<unsigned, kPassThreads>;
  __shared__ unsigned int counts[kBins];
  __shared__ unsigned long long block_nans;
  __shared__ unsigned long long block_cursor;
  __shared__ typename BlockScan::TempStorage scan_storage;
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) counts[b] = 0;
  if (threadIdx.x == 0) block_nans = 0;
  __syncthreads();

  const std::size_t n = std::is_same_v<Src, T> ? n_input : state->src_count;
  const Key prefix = state->prefix;
  const Key mask = Key(kBins - 1);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long nans = 0;
  // Block-uniform loop, so that appends can be aggregated per block: one global atomic per
  // block step (kPassThreads * kItemsPerThread keys), not one per warp, which serialised on
  // the single cursor when many keys match (uniform data, ties).
  for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x; base < n;
       base += stride * kItemsPerThread) {
    Key keys[kItemsPerThread];
    bool match[kItemsPerThread];
    unsigned matches = 0;
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      const std::size_t i = base + j * stride + threadIdx.x;
      match[j] = i < n;
      if constexpr (std::is_same_v<Src, T>) {
        const T x = match[j] ? src[i] : T(0);
        if constexpr (kCountNan) nans += (x != x);
        keys[j] = KeyTraits<T>::to_key(x) - key_base;  // key_base: 0, or the low end of a known range
      } else {
        keys[j] = match[j] ? src[i] : Key(0);
      }
    }
#pragma unroll
    for (int j = 0; j < kItemsPerThread; ++j) {
      if constexpr (kFilter) match[j] = match[j] && (keys[j] >> prev_shift) == prefix;
      if (match[j]) {
        atomicAdd(&counts[(keys[j] >> shift) & mask], 1u);
        ++matches;
      }
    }
    if constexpr (kWrite) {
      unsigned offset = 0, total = 0;
      BlockScan(scan_storage).ExclusiveSum(matches, offset, total);
      if (threadIdx.x == 0 && total != 0) block_cursor = atomicAdd(&state->cursor, total);
      __syncthreads();
      unsigned long long position = block_cursor + offset;
#pragma unroll
      for (int j = 0; j < kItemsPerThread; ++j)
        if (match[j]) out[position++] = keys[j];
      __syncthreads();  // block_cursor and the scan storage are reused by the next step
    }
  }
  if constexpr (kCountNan) {
    if (nans != 0) atomicAdd(&block_nans, nans);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (counts[b] != 0) atomicAdd(&hist[b], counts[b]);
  if (kCountNan && threadIdx.x == 0 && block_nans != 0) atomicAdd(&state->nan_count, block_nans);
}

// Finds the bin holding rank k, appends it to the prefix, makes k relative to it, clears the
// histogram for the next pass and hands the pass's written count on as the next source size.
template <class Key>
__global__ __launch_bounds__(kFindThreads) void radix_find(unsigned long long* hist,
                                                           RadixState<Key>* state, int width) {
  __shared__ typename bracketing::DigitScan<kFindThreads>::TempStorage scan_storage;
  const unsigned long long k = state->k;
  const Key prefix = state->prefix;
  __syncthreads();  // every thread has read the state before the finding thread writes it
  bracketing::find_digit_bin<kFindThreads, false>(hist, k, /*clear=*/true, scan_storage,
                                           [&](int bin, unsigned long long within) {
                                             state->prefix = (prefix << width) | Key(bin);
                                             state->k = within;
                                           });
  if (threadIdx.x == 0) {
    state->src_count = state->cursor;
    state->cursor = 0;
  }
}

// The one-launch variant's answer: the key and the NaN count, written by block 0.
template <class Key>
struct OneLaunchAnswer {
  Key key;
  unsigned long long nan_count;
};

// Every pass of radix_select_keys's rescan variant (full keys, base 0) in one cooperative
// launch. hist: pass_count x kBins zeroed counters; *nans: zero. Each block keeps (prefix, k):
// all blocks read the same histogram after grid.sync() and so choose the same digit.
template <class T>
__global__ __launch_bounds__(kPassThreads) void radix_one_launch(const T* x, std::size_t n, unsigned long long k,
                                                                 unsigned long long* hist, unsigned long long* nans,
                                                                 OneLaunchAnswer<typename KeyTraits<T>::Key>* answer) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kBits = KeyTraits<T>::kBits;
  __shared__ unsigned int counts[kBins];
  __shared__ typename bracketing::DigitScan<kPassThreads>::TempStorage scan_storage;
  __shared__ Key chosen_prefix;
  __shared__ unsigned long long chosen_k;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  Key prefix = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < pass_count(kBits); ++pass) {
    const int shift = digit_shift(kBits, pass), prev_shift = pass == 0 ? 0 : digit_shift(kBits, pass - 1);
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) counts[b] = 0;
    __syncthreads();
    unsigned long long block_nans = 0;
    for (std::size_t base = std::size_t(blockIdx.x) * blockDim.x; base < n; base += stride * kItemsPerThread) {
      Key keys[kItemsPerThread];
      bool match[kItemsPerThread];
#pragma unroll
      for (int j = 0; j < kItemsPerThread; ++j) {
        const std::size_t i = base + j * stride + threadIdx.x;
        match[j] = i < n;
        const T value = match[j] ? x[i] : T(0);
        if (pass == 0) block_nans += (value != value);
        keys[j] = KeyTraits<T>::to_key(value);
      }
#pragma unroll
      for (int j = 0; j < kItemsPerThread; ++j)
        if (match[j] && (pass == 0 || (keys[j] >> prev_shift) == prefix))
          atomicAdd(&counts[(keys[j] >> shift) & Key(kBins - 1)], 1u);
    }
    __syncthreads();
    unsigned long long* pass_hist = hist + std::size_t(pass) * kBins;
    for (int b = threadIdx.x; b < kBins; b += blockDim.x)
      if (counts[b] != 0) atomicAdd(&pass_hist[b], counts[b]);
    if (pass == 0 && block_nans != 0) atomicAdd(nans, block_nans);
    grid.sync();  // every block's counts are in pass_hist
    // The bin holding rank k (radix_find's scan, with this block's threads).
    bracketing::find_digit_bin<kPassThreads, false>(pass_hist, k, /*clear=*/false, scan_storage,
                                             [&](int bin, unsigned long long within) {
                                               chosen_prefix = (prefix << digit_width(kBits, pass)) | Key(bin);
                                               chosen_k = within;
                                             });
    __syncthreads();
    prefix = chosen_prefix;
    k = chosen_k;
    __syncthreads();  // chosen_* and the scan storage are written again by the next pass
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    answer->key = prefix;
    answer->nan_count = *nans;  // complete: added before the first grid.sync()
    __threadfence_system();
  }
}

}  // namespace

// Radix select on the keys minus `base`, which must fit in `key_bits` bits (the full key width
// for arbitrary input; fewer for values known to lie in a narrow range: fewer passes, and the
// first digit spreads the values instead of piling them into a few bins).
// first_counted: the kRadixHistogram slot already holds the first digit's counts (a bracket
// pass counted them as it placed the values: bracket_pass.cuh's FirstDigit), so the first pass
// is skipped; the input then holds no NaN (the caller checked).
template <class T>
Checked<T> radix_select_keys(const T* d_values, std::size_t n, std::size_t k, const RadixParams& params,
                             typename KeyTraits<T>::Key base, int key_bits, Workspace& workspace,
                             cudaStream_t stream, bool first_counted = false) {
  using Key = typename KeyTraits<T>::Key;
  const int kKeyBits = key_bits;
  const int kPasses = pass_count(kKeyBits);
  const bool copying = n >= params.copy_threshold;

  auto* d_state = workspace.device_as<RadixState<Key>>(kRadixState, 1);
  auto* h_state = workspace.host_as<RadixState<Key>>(kRadixState, 1);
  auto* d_hist = workspace.device_as<unsigned long long>(kRadixHistogram, kBins);
  Key* buffers[2] = {nullptr, nullptr};
  if (copying) {
    buffers[0] = workspace.device_as<Key>(kRadixKeysA, n);
    buffers[1] = workspace.device_as<Key>(kRadixKeysB, n);
  }
  *h_state = RadixState<Key>{Key(0), k, 0, 0, 0};
  CUDA_CHECK(cudaMemcpyAsync(d_state, h_state, sizeof *h_state, cudaMemcpyHostToDevice, stream));
  if (!first_counted) CUDA_CHECK(cudaMemsetAsync(d_hist, 0, kBins * sizeof *d_hist, stream));

  // One grid for every pass: as many blocks per SM as the heaviest pass kernel keeps resident.
  static const int blocks_per_sm = std::min(
      {resident_blocks_per_sm(radix_pass<T, T, false, false, true>, kPassThreads, 0, 2048 / kPassThreads),
       resident_blocks_per_sm(radix_pass<T, T, true, true, false>, kPassThreads, 0, 2048 / kPassThreads),
       resident_blocks_per_sm(radix_pass<T, T, true, false, false>, kPassThreads, 0, 2048 / kPassThreads),
       resident_blocks_per_sm(radix_pass<T, Key, true, true, false>, kPassThreads, 0, 2048 / kPassThreads),
       resident_blocks_per_sm(radix_pass<T, Key, true, false, false>, kPassThreads, 0, 2048 / kPassThreads)});
  const unsigned grid = streaming_grid(n, kPassThreads, kItemsPerThread, blocks_per_sm);
  if (!first_counted) {
    radix_pass<T, T, false, false, true><<<grid, kPassThreads, 0, stream>>>(
        d_values, n, d_state, 0, digit_shift(kKeyBits, 0), d_hist, nullptr, base);
    CUDA_CHECK_LAUNCH();
  }
  radix_find<Key><<<1, kFindThreads, 0, stream>>>(d_hist, d_state, digit_width(kKeyBits, 0));
  CUDA_CHECK_LAUNCH();
  for (int pass = 1; pass < kPasses; ++pass) {
    const int prev_shift = digit_shift(kKeyBits, pass - 1);
    const int shift = digit_shift(kKeyBits, pass);
    const bool write = copying && pass + 1 < kPasses;
    Key* out = buffers[pass % 2];
    if (!copying || pass == 1) {
      if (write)
        radix_pass<T, T, true, true, false><<<grid, kPassThreads, 0, stream>>>(
            d_values, n, d_state, prev_shift, shift, d_hist, out, base);
      else
        radix_pass<T, T, true, false, false><<<grid, kPassThreads, 0, stream>>>(
            d_values, n, d_state, prev_shift, shift, d_hist, nullptr, base);
    } else {
      const Key* in = buffers[(pass - 1) % 2];
      if (write)
        radix_pass<T, Key, true, true, false><<<grid, kPassThreads, 0, stream>>>(
            in, n, d_state, prev_shift, shift, d_hist, out, Key(0));
      else
        radix_pass<T, Key, true, false, false><<<grid, kPassThreads, 0, stream>>>(
            in, n, d_state, prev_shift, shift, d_hist, nullptr, Key(0));
    }
    CUDA_CHECK_LAUNCH();
    radix_find<Key><<<1, kFindThreads, 0, stream>>>(d_hist, d_state,
                                                    digit_width(kKeyBits, pass));
    CUDA_CHECK_LAUNCH();
  }
  CUDA_CHECK(cudaMemcpyAsync(h_state, d_state, sizeof *h_state, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return {KeyTraits<T>::from_key(h_state->prefix + base), h_state->nan_count != 0};
}

// The one-launch variant where the device runs cooperative launches and the grid fits on it
// at once; nullopt otherwise (the caller then runs the separate passes).
template <class T>
std::optional<Checked<T>> radix_select_one_launch(const T* d_values, std::size_t n, std::size_t k, int max_blocks,
                                                  Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  static const int resident = cooperative_blocks_per_sm(radix_one_launch<T>, kPassThreads, 0) * multiprocessor_count();
  if (resident == 0) return std::nullopt;
  constexpr int kPasses = pass_count(KeyTraits<T>::kBits);
  const auto per_block = std::size_t(kPassThreads) * kItemsPerThread;
  const auto most = static_cast<std::size_t>(max_blocks > 0 ? std::min(max_blocks, resident) : resident);
  const auto grid = static_cast<unsigned>(std::clamp<std::size_t>((n + per_block - 1) / per_block, 1, most));
  // Counters: the passes' histograms, then the NaN count.
  auto* d_counts = workspace.device_as<unsigned long long>(kRadixHistogram, std::size_t(kPasses) * kBins + 1);
  auto* h_answer = workspace.host_as<OneLaunchAnswer<Key>>(kRadixState, 1);
  CUDA_CHECK(cudaMemsetAsync(d_counts, 0, (std::size_t(kPasses) * kBins + 1) * sizeof *d_counts, stream));
  unsigned long long* d_nans = d_counts + std::size_t(kPasses) * kBins;
  unsigned long long rank = k;
  void* args[] = {const_cast<T**>(&d_values), &n, &rank, &d_counts, &d_nans, &h_answer};
  if (!launch_cooperative(reinterpret_cast<const void*>(radix_one_launch<T>), grid, kPassThreads, args, 0, stream))
    return std::nullopt;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return Checked<T>{KeyTraits<T>::from_key(h_answer->key), h_answer->nan_count != 0};
}

template <class T>
Checked<T> radix_select_checked(const T* d_values, std::size_t n, std::size_t k, const RadixParams& params,
                                Workspace& workspace, cudaStream_t stream) {
  if (params.resident && params.one_launch)
    if (const auto answer = radix_select_resident(d_values, n, k, params.one_launch_blocks, workspace, stream))
      return *answer;
  if (params.one_launch && n <= kOneLaunchMaxSize)
    if (const auto answer = radix_select_one_launch(d_values, n, k, params.one_launch_blocks, workspace, stream))
      return *answer;
  return radix_select_keys(d_values, n, k, params, typename KeyTraits<T>::Key(0), KeyTraits<T>::kBits, workspace,
                           stream);
}

template <class T>
T radix_select_in_range(const T* d_values, std::size_t n, std::size_t k, T lo, T hi, Workspace& workspace,
                        cudaStream_t stream, bool first_counted) {
  using Key = typename KeyTraits<T>::Key;
  const Key base = KeyTraits<T>::to_key(lo);
  const Key span = KeyTraits<T>::to_key(hi) - base;
  // The bits bracketing::first_digit_shift counts the first digit from.
  const int bits = std::max(1, bracketing::bit_width(span));
  return radix_select_keys(d_values, n, k, RadixParams{}, base, bits, workspace, stream, first_counted).value;
}

#define ROBUSTFIT_INSTANTIATE(T)                                                              \
  template Checked<T> radix_select_checked<T>(const T*, std::size_t, std::size_t,             \
                                              const RadixParams&, Workspace&, cudaStream_t);  \
  template T radix_select_in_range<T>(const T*, std::size_t, std::size_t, T, T, Workspace&, cudaStream_t, bool);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
