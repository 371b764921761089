// Radix select with the input held in shared memory, in one cooperative launch (ours, issue 11).
// Below ~7M floats (~3.5M doubles) the whole input fits in the SMs' shared memory (227 KB a
// block on the H200): each block loads its slice once, counting the first digit on the way, and
// the later digits count the block's shared copy instead of re-reading the input through L2.
// One block of 1024 threads an SM, at least 4096 values a block: a grid.sync() across 132
// blocks costs ~1.1 us, across radix_one_launch's 528 ~2 us (bench/call_latency_probe.cu).
// The counters are zeroed by the kernel itself, not by a memset before it (which added 3.8 us
// to a call): each block clears its share before loading its slice, and a grid.sync() separates
// that from the first flush.
// Digits as radix_select.cu's (11 bits from the top: 3 for floats, 6 for doubles); each pass
// ends with the grid waiting and every block scanning the pass's summed counters for the bin
// of rank k (bracket_digits.cuh), so all blocks extend the prefix alike. Block 0 writes the key
// and the NaN count into pinned host memory.
// Per call: 1 cooperative launch, 1 host synchronisation.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <optional>

#include "algorithms.cuh"
#include "bracket_digits.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "dynamic_shared_memory.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "phase_stamps.cuh"
#include "seed_common.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using bracketing::kDigitBins;
constexpr int kThreads = 1024;
constexpr int kLoads = 4;                      // a thread's loads in flight while its slice comes in
constexpr std::size_t kMinPerBlock = 4096;     // fewer values a block: fewer blocks to wait for

template <class Key>
struct ResidentAnswer {
  Key key;
  unsigned long long nan_count;
};

template <class T>
constexpr int passes() {
  return bracketing::digit_launches(KeyTraits<T>::kBits);
}

// Where the counters sit: passes() histograms of kDigitBins, then the NaN count, then the
// finish's cursor.
template <class T>
constexpr std::size_t kNanCounter = std::size_t(passes<T>()) * kDigitBins;
template <class T>
constexpr std::size_t kCounters = kNanCounter<T> + 2;

// Block 0 alone finishes from the `count` keys sharing `prefix` (the top kBits - remaining bits),
// copied into its shared memory from `candidates`: the remaining digits counted in shared memory,
// no grid.sync and no global counters a digit. Returns the key. Not inlined: the grid-wide digits
// keep their registers (inlined, ptxas spilled twice the bytes).
template <class Key>
__device__ __noinline__ Key finish_in_one_block(const Key* __restrict__ candidates, int count, Key prefix, int remaining,
                                   unsigned long long k, Key* keys, unsigned* counts,
                                   typename bracketing::DigitScan<kThreads>::TempStorage& scan, Key& chosen_prefix,
                                   unsigned long long& chosen_k) {
  for (int i = threadIdx.x; i < count; i += kThreads) keys[i] = __ldcg(&candidates[i]);
  for (int b = threadIdx.x; b < kDigitBins; b += kThreads) counts[b] = 0;
  __syncthreads();
  while (remaining > 0) {
    const bracketing::Digit digit = bracketing::next_digit(remaining);
    for (int i = threadIdx.x; i < count; i += kThreads)
      seed::count_in_shared(counts, bracketing::digit_bin(keys[i], prefix, remaining, digit));
    __syncthreads();
    bracketing::find_digit_bin<kThreads, false>(counts, k, /*clear=*/true, scan, [&](int bin, unsigned long long within) {
      chosen_prefix = Key(prefix << digit.width) | Key(bin);
      chosen_k = within;
    });
    __syncthreads();
    prefix = chosen_prefix;
    k = chosen_k;
    remaining = digit.shift;
    __syncthreads();  // chosen_* and the scan storage are written again by the next digit
  }
  return prefix;
}

// counters: kCounters<T> of them, any contents (zeroed here). candidates: room for one block's
// slice of keys. After each digit but the last, where the keys sharing the prefix found so far
// fit block 0's slice (uniform data: ~n / 2048 after the first digit), every block copies its
// keys of that prefix to `candidates` and block 0 alone finishes (finish_in_one_block): the
// later digits' grid.sync, counter flushes and 2048-bin scans by every block are saved.
template <class T>
__global__ __launch_bounds__(kThreads, 1) void radix_resident(const T* __restrict__ x, std::size_t n,
                                                              unsigned long long k, unsigned long long* counters,
                                                              typename KeyTraits<T>::Key* __restrict__ candidates,
                                                              ResidentAnswer<typename KeyTraits<T>::Key>* answer,
                                                              std::uint64_t* stamps) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kBits = KeyTraits<T>::kBits;
  extern __shared__ __align__(16) unsigned char shared[];
  Key* keys = reinterpret_cast<Key*>(shared);
  __shared__ unsigned counts[kDigitBins];
  __shared__ typename bracketing::DigitScan<kThreads>::TempStorage scan;
  __shared__ Key chosen_prefix;
  __shared__ unsigned long long chosen_k, chosen_count;
  __shared__ unsigned block_nans;
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  int phase = 0;  // phase_stamps.cuh
  stamp_phase(stamps, phase++);

  for (std::size_t i = std::size_t(blockIdx.x) * kThreads + threadIdx.x; i < kCounters<T>; i += std::size_t(gridDim.x) * kThreads)
    __stcg(&counters[i], 0ull);
  for (int b = threadIdx.x; b < kDigitBins; b += kThreads) counts[b] = 0;
  if (threadIdx.x == 0) block_nans = 0;
  __syncthreads();

  // The slice: loaded once, the first digit counted on the way.
  const std::size_t begin = n * blockIdx.x / gridDim.x;
  const int size = static_cast<int>(n * (blockIdx.x + 1) / gridDim.x - begin);
  const auto first_size = static_cast<unsigned long long>(n / gridDim.x);  // block 0's slice
  bracketing::Digit digit = bracketing::next_digit(kBits);
  unsigned nans = 0;
  for (int first = threadIdx.x; first < size; first += kThreads * kLoads) {
    T values[kLoads];
#pragma unroll
    for (int j = 0; j < kLoads; ++j) {
      const int at = first + j * kThreads;
      values[j] = at < size ? x[begin + at] : T(0);
    }
#pragma unroll
    for (int j = 0; j < kLoads; ++j) {
      const int at = first + j * kThreads;
      const Key key = KeyTraits<T>::to_key(values[j]);
      if (at < size) {
        keys[at] = key;
        nans += values[j] != values[j];
      }
      seed::count_in_shared(counts, at < size ? static_cast<int>(key >> digit.shift) : -1);
    }
  }
  if (nans != 0) atomicAdd(&block_nans, nans);
  stamp_phase(stamps, phase++);
  grid.sync();  // every block's share of the counters is zero
  stamp_phase(stamps, phase++);
  seed::flush_counts(counts, kDigitBins, counters);
  if (threadIdx.x == 0 && block_nans != 0) atomicAdd(&counters[kNanCounter<T>], static_cast<unsigned long long>(block_nans));

  Key prefix = 0;
  int remaining = kBits;
  for (int pass = 0; pass < passes<T>(); ++pass) {
    unsigned long long* hist = counters + std::size_t(pass) * kDigitBins;
    if (pass > 0) {
      for (int b = threadIdx.x; b < kDigitBins; b += kThreads) counts[b] = 0;
      __syncthreads();
      for (int i = threadIdx.x; i < size; i += kThreads)
        seed::count_in_shared(counts, bracketing::digit_bin(keys[i], prefix, remaining, digit));
      seed::flush_counts(counts, kDigitBins, hist);
    }
    stamp_phase(stamps, phase++);
    grid.sync();  // every block's counts are in hist
    stamp_phase(stamps, phase++);
    bracketing::find_digit_bin<kThreads>(hist, k, /*clear=*/false, scan,
                                         [&](int bin, unsigned long long within, unsigned long long in_bin) {
                                           chosen_prefix = Key(prefix << digit.width) | Key(bin);
                                           chosen_k = within;
                                           chosen_count = in_bin;
                                         });
    __syncthreads();
    stamp_phase(stamps, phase++);
    prefix = chosen_prefix;
    k = chosen_k;
    remaining = digit.shift;
    digit = bracketing::next_digit(remaining);
    const unsigned long long sharing = chosen_count;  // keys sharing the prefix, every block alike
    __syncthreads();  // chosen_* and the scan storage are written again by the next pass
    if (remaining > 0 && sharing <= first_size) {
      // Every block's keys of the prefix to `candidates` (a warp's at one cursor add).
      unsigned long long* cursor = counters + kNanCounter<T> + 1;
      for (int base = 0; base < size; base += kThreads) {
        const int i = base + static_cast<int>(threadIdx.x);
        const bool mine = i < size && bracketing::shift_right(keys[i], remaining) == prefix;
        const unsigned ballot = __ballot_sync(0xffffffffu, mine);
        if (ballot == 0) continue;  // warp-uniform
        const unsigned long long at = seed::warp_append(0xffffffffu, ballot, cursor);
        if (mine) __stcg(&candidates[at], keys[i]);
      }
      stamp_phase(stamps, phase++);
      grid.sync();  // every candidate written
      stamp_phase(stamps, phase++);
      if (blockIdx.x != 0) return;
      prefix = finish_in_one_block(candidates, static_cast<int>(sharing), prefix, remaining, k, keys, counts, scan,
                                   chosen_prefix, chosen_k);
      stamp_phase(stamps, phase++);
      break;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    answer->key = prefix;
    answer->nan_count = __ldcg(&counters[kNanCounter<T>]);  // complete: added before the second grid.sync()
    __threadfence_system();
  }
}

}  // namespace

template <class T>
std::optional<Checked<T>> radix_select_resident(const T* d_values, std::size_t n, std::size_t k, int max_blocks,
                                                Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  const auto kernel = radix_resident<T>;
  // The most dynamic shared memory a block may have, where one such block still launches
  // cooperatively (0: none, or no cooperative launch).
  static const std::size_t most_bytes = [&]() -> std::size_t {
    int device = 0, optin = 0;
    cudaFuncAttributes attributes{};
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    const std::size_t bytes = optin > static_cast<int>(attributes.sharedSizeBytes)
                                  ? std::size_t(optin) - attributes.sharedSizeBytes : 0;
    if (bytes < sizeof(Key)) return 0;
    allow_dynamic_shared_memory(kernel, bytes);
    return cooperative_blocks_per_sm(kernel, kThreads, bytes) >= 1 ? bytes : 0;
  }();
  static const int sms = multiprocessor_count();
  std::size_t blocks = std::clamp<std::size_t>((n + kMinPerBlock - 1) / kMinPerBlock, 1, sms);
  if (max_blocks > 0) blocks = std::min<std::size_t>(blocks, max_blocks);
  const std::size_t bytes = (n + blocks - 1) / blocks * sizeof(Key);
  if (bytes > most_bytes) return std::nullopt;
  allow_dynamic_shared_memory(kernel, bytes);  // per device: every call (a no-op once allowed)

  auto* d_counters = workspace.device_as<unsigned long long>(kRadixHistogram, kCounters<T>);
  auto* d_candidates = workspace.device_as<Key>(kRadixKeysA, (n + blocks - 1) / blocks);
  auto* h_answer = workspace.host_as<ResidentAnswer<Key>>(kRadixState, 1);
  unsigned long long rank = k;
  std::uint64_t* stamps = phase_stamps();
  void* args[] = {const_cast<T**>(&d_values), &n, &rank, &d_counters, &d_candidates, &h_answer, &stamps};
  if (!launch_cooperative(reinterpret_cast<const void*>(kernel), static_cast<unsigned>(blocks), kThreads, args, bytes,
                          stream))
    return std::nullopt;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return Checked<T>{KeyTraits<T>::from_key(h_answer->key), h_answer->nan_count != 0};
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                                     \
  template std::optional<Checked<T>> radix_select_resident<T>(const T*, std::size_t, std::size_t, int, Workspace&, \
                                                              cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
