// Radix select with the input held in shared memory, in one cooperative launch (ours, issue 11).
// Below ~7M floats (~3.5M doubles) the whole input fits in the SMs' shared memory (227 KB a
// block on the H200): each block loads its slice once, counting the first digits on the way, and
// the later digits count the block's shared copy instead of re-reading the input through L2.
// One block of 1024 threads an SM, at least 4096 values a block: a grid.sync() across 132
// blocks costs ~1.1 us, across radix_one_launch's 528 ~2 us (bench/call_latency_probe.cu).
//
// The load counts a fine histogram of the keys' top 12-16 bits (as many as shared memory holds
// beside the slice; 16-bit counters, two a word) and derives the 11-bit digit's counts from it.
// Only those 2048 counts cross the grid (a global atomic per non-zero bin and block: the later
// digits' flushes of ~1000 bins a block cost ~5 us at 2^20 on the H200, bench/phase_probe.cu);
// where the chosen bin holds too many keys for one block to finish (the median of uniform
// [0, 1) floats: 12.5 % of the input), only its few fine counts are added up in a second, short
// round, which leaves ~n / 256 keys: no digit of 2048 bins is counted and flushed a second time.
// Then, once the keys sharing the prefix fit one block's shared memory, every block appends its
// keys of the prefix to `candidates` and block 0 finishes the later digits alone. Heavy ties
// (more keys sharing 16 bits than that) go on digit by digit over the shared copies.
//
// The counters are zero when a launch starts and when it ends: the kernel clears what it used
// after the last grid-wide read (their slot is zeroed when the workspace allocates it), so no
// memset before the launch (3.8 us of a call) and no grid.sync() to zero them (1.1 us). The host
// spins on the answer's flag rather than synchronising (host_wait.cuh).
// Per call: 1 cooperative launch, no stream synchronisation (the host waits for the flag).
#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <optional>

#include "algorithms.cuh"
#include "bracket_digits.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "dynamic_shared_memory.cuh"
#include "host_wait.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "phase_stamps.cuh"
#include "seed_common.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using bracketing::kDigitBins;
using bracketing::kDigitBits;
constexpr int kThreads = 1024;
constexpr int kLoads = 4;                      // a thread's loads in flight while its slice comes in
constexpr std::size_t kMinPerBlock = 4096;     // fewer values a block: fewer blocks to wait for
constexpr int kMinFineBits = 12, kMaxFineBits = 16;
constexpr std::size_t kMaxSlice = 65535;       // a 16-bit fine counter holds a block's whole slice

template <class Key>
struct ResidentAnswer {
  Key key;
  unsigned long long nan_count;
  int ready;  // set last (host_wait.cuh)
};

template <class T>
constexpr int passes() {
  return bracketing::digit_launches(KeyTraits<T>::kBits);
}

// The counters (32-bit: n < 2^32 here): passes() digit histograms (the first is the fine
// histogram's 11-bit digit), the fine sub-bins of the first digit's bin, the NaN count, the
// append cursor.
constexpr int kMaxSubBins = 1 << (kMaxFineBits - kDigitBits);
template <class T>
constexpr std::size_t kFineCounters = std::size_t(passes<T>()) * kDigitBins;
template <class T>
constexpr std::size_t kNanCounter = kFineCounters<T> + kMaxSubBins;
template <class T>
constexpr std::size_t kCounters = kNanCounter<T> + 2;
static_assert(kCounters<double> * sizeof(unsigned) <= kZeroedControlBytes,
              "the counters' slot must be zeroed on allocation: the kernel leaves it as it found it");

// A fine bin's count: two 16-bit counters a word.
__device__ __forceinline__ unsigned fine_count(const unsigned* fine, int bin) {
  return (fine[bin >> 1] >> ((bin & 1) * 16)) & 0xffffu;
}

// count_in_shared on the 16-bit counters (bin < 0: not counted).
__device__ __forceinline__ void count_fine(unsigned* fine, int bin) {
  const unsigned mask = __activemask();
  const int leader = __ffs(mask) - 1;
  const int first = __shfl_sync(mask, bin, leader);
  if (__all_sync(mask, bin == first)) {
    if (static_cast<int>(threadIdx.x % 32) == leader && first >= 0)
      atomicAdd(&fine[first >> 1], unsigned(__popc(mask)) << ((first & 1) * 16));
  } else if (bin >= 0) {
    atomicAdd(&fine[bin >> 1], 1u << ((bin & 1) * 16));
  }
}

// The 11-bit digit's counts from the fine histogram (2^(sub_bits - 1) words a digit bin): each
// warp reads 32 consecutive words and adds each bin's words across lanes.
__device__ __forceinline__ void digit_from_fine(const unsigned* fine, int sub_bits, unsigned* counts) {
  const int words_per_bin = 1 << (sub_bits - 1);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int total = kDigitBins * words_per_bin;
  for (int base = static_cast<int>(threadIdx.x / 32) * 32; base < total; base += kThreads) {
    const unsigned word = fine[base + lane];
    unsigned sum = (word & 0xffffu) + (word >> 16);
    for (int offset = 1; offset < words_per_bin; offset <<= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset, words_per_bin);
    if (lane % words_per_bin == 0) counts[(base + lane) / words_per_bin] = sum;
  }
}

// Adds a block's non-zero shared counts to the global ones.
__device__ __forceinline__ void flush(const unsigned* local, int count, unsigned* global) {
  for (int b = threadIdx.x; b < count; b += kThreads)
    if (local[b] != 0) atomicAdd(&global[b], local[b]);
}

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

// Clears what a launch used (block 0, after the last grid-wide read of the counters).
template <class T>
__device__ __forceinline__ void clear_counters(unsigned* counters) {
  for (std::size_t i = threadIdx.x; i < kCounters<T>; i += kThreads) counters[i] = 0;
}

// Dynamic shared memory: the slice's keys, then the fine histogram (2^(fine_bits - 1) words).
// counters: kCounters<T>, zero. candidates: room for `capacity` keys, the most block 0's
// dynamic shared memory holds.
template <class T>
__global__ __launch_bounds__(kThreads, 1) void radix_resident(const T* __restrict__ x, std::size_t n,
                                                              unsigned long long k, int fine_bits,
                                                              unsigned long long capacity, unsigned* counters,
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

  const std::size_t begin = n * blockIdx.x / gridDim.x;
  const int size = static_cast<int>(n * (blockIdx.x + 1) / gridDim.x - begin);
  unsigned* fine = reinterpret_cast<unsigned*>(shared + (std::size_t(size) * sizeof(Key) + 15) / 16 * 16);
  const int sub_bits = fine_bits - kDigitBits;
  for (int w = threadIdx.x; w < (1 << (fine_bits - 1)); w += kThreads) fine[w] = 0;
  if (threadIdx.x == 0) block_nans = 0;
  __syncthreads();

  // The slice: loaded once, its top fine_bits counted on the way.
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
      count_fine(fine, at < size ? static_cast<int>(key >> (kBits - fine_bits)) : -1);
    }
  }
  if (nans != 0) atomicAdd(&block_nans, nans);
  __syncthreads();
  digit_from_fine(fine, sub_bits, counts);
  __syncthreads();
  flush(counts, kDigitBins, counters);
  if (threadIdx.x == 0 && block_nans != 0) atomicAdd(&counters[kNanCounter<T>], block_nans);
  stamp_phase(stamps, phase++);

  // The first digit, then (where its bin is too large to finish) the fine sub-bins inside it,
  // then digit by digit; each ends with every block choosing alike from the summed counters.
  Key prefix = 0;
  int remaining = kBits;
  bracketing::Digit digit = bracketing::next_digit(kBits);
  unsigned long long sharing = n;  // keys sharing the prefix
  for (int pass = 0; remaining > 0; ++pass) {
    unsigned* hist = counters + std::size_t(pass) * kDigitBins;
    if (pass > 0) {
      for (int b = threadIdx.x; b < kDigitBins; b += kThreads) counts[b] = 0;
      __syncthreads();
      for (int i = threadIdx.x; i < size; i += kThreads)
        seed::count_in_shared(counts, bracketing::digit_bin(keys[i], prefix, remaining, digit));
      __syncthreads();
      flush(counts, kDigitBins, hist);
    }
    grid.sync();  // every block's counts are in hist
    stamp_phase(stamps, phase++);
    bracketing::find_digit_bin<kThreads>(hist, k, /*clear=*/false, scan,
                                         [&](int bin, unsigned long long within, unsigned long long in_bin) {
                                           chosen_prefix = Key(prefix << digit.width) | Key(bin);
                                           chosen_k = within;
                                           chosen_count = in_bin;
                                         });
    __syncthreads();
    prefix = chosen_prefix;
    k = chosen_k;
    sharing = chosen_count;
    remaining = digit.shift;
    stamp_phase(stamps, phase++);
    if (pass == 0 && sharing > capacity) {
      // The fine sub-bins of the chosen bin: a count each from every block, one warp chooses.
      unsigned* sub_counts = counters + kFineCounters<T>;
      const int sub_bins = 1 << sub_bits;
      __syncthreads();  // chosen_* are read: written again below
      if (threadIdx.x < sub_bins) {
        const unsigned c = fine_count(fine, static_cast<int>((prefix << sub_bits) | Key(threadIdx.x)));
        if (c != 0) atomicAdd(&sub_counts[threadIdx.x], c);
      }
      grid.sync();
      stamp_phase(stamps, phase++);
      if (threadIdx.x < 32) {
        const unsigned c = threadIdx.x < sub_bins ? __ldcg(&sub_counts[threadIdx.x]) : 0u;
        unsigned below = c;  // inclusive prefix sum across the warp
        for (int offset = 1; offset < 32; offset <<= 1) {
          const unsigned up = __shfl_up_sync(0xffffffffu, below, offset);
          if (static_cast<int>(threadIdx.x) >= offset) below += up;
        }
        below -= c;
        if (k >= below && k < below + c) {
          chosen_prefix = Key(prefix << sub_bits) | Key(threadIdx.x);
          chosen_k = k - below;
          chosen_count = c;
        }
      }
      __syncthreads();
      prefix = chosen_prefix;
      k = chosen_k;
      sharing = chosen_count;
      remaining = kBits - fine_bits;
    }
    digit = bracketing::next_digit(remaining);
    __syncthreads();  // chosen_* and the scan storage are written again by the next pass
    if (remaining > 0 && sharing <= capacity) {
      // Every block's keys of the prefix to `candidates` (a warp's at one cursor add).
      unsigned* cursor = counters + kNanCounter<T> + 1;
      for (int base = 0; base < size; base += kThreads) {
        const int i = base + static_cast<int>(threadIdx.x);
        const bool mine = i < size && bracketing::shift_right(keys[i], remaining) == prefix;
        const unsigned ballot = __ballot_sync(0xffffffffu, mine);
        if (ballot == 0) continue;  // warp-uniform
        const unsigned at = seed::warp_append(0xffffffffu, ballot, cursor);
        if (mine) __stcg(&candidates[at], keys[i]);
      }
      stamp_phase(stamps, phase++);
      grid.sync();  // every candidate written, every count read
      stamp_phase(stamps, phase++);
      if (blockIdx.x != 0) return;
      const unsigned nan_count = __ldcg(&counters[kNanCounter<T>]);
      clear_counters<T>(counters);
      prefix = finish_in_one_block(candidates, static_cast<int>(sharing), prefix, remaining, k, keys, counts, scan,
                                   chosen_prefix, chosen_k);
      if (threadIdx.x == 0) {
        answer->key = prefix;
        answer->nan_count = nan_count;
        publish_answer(&answer->ready);
      }
      stamp_phase(stamps, phase++);
      return;
    }
  }
  // Digit by digit to the end (heavy ties): every block has read the counters once this waits.
  grid.sync();
  if (blockIdx.x != 0) return;
  const unsigned nan_count = __ldcg(&counters[kNanCounter<T>]);
  clear_counters<T>(counters);
  if (threadIdx.x == 0) {
    answer->key = prefix;
    answer->nan_count = nan_count;
    publish_answer(&answer->ready);
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
  const std::size_t slice = (n + blocks - 1) / blocks;
  const std::size_t slice_bytes = (slice * sizeof(Key) + 15) / 16 * 16;
  // The widest fine histogram that fits beside the slice (2^(bits + 1) bytes).
  int fine_bits = kMaxFineBits;
  while (fine_bits >= kMinFineBits && slice_bytes + (std::size_t{1} << (fine_bits + 1)) > most_bytes) --fine_bits;
  if (fine_bits < kMinFineBits || slice > kMaxSlice) return std::nullopt;
  const std::size_t bytes = slice_bytes + (std::size_t{1} << (fine_bits + 1));
  allow_dynamic_shared_memory(kernel, bytes);  // per device: every call (a no-op once allowed)
  unsigned long long capacity = bytes / sizeof(Key);

  auto* d_counters = workspace.device_as<unsigned>(kRadixResidentCounters, kCounters<T>);  // zero (see the top)
  auto* d_candidates = workspace.device_as<Key>(kRadixKeysA, capacity);
  auto* h_answer = workspace.host_as<ResidentAnswer<Key>>(kRadixState, 1);
  h_answer->ready = 0;
  unsigned long long rank = k;
  std::uint64_t* stamps = phase_stamps();
  void* args[] = {const_cast<T**>(&d_values), &n, &rank, &fine_bits, &capacity, &d_counters, &d_candidates,
                  &h_answer, &stamps};
  if (!launch_cooperative(reinterpret_cast<const void*>(kernel), static_cast<unsigned>(blocks), kThreads, args, bytes,
                          stream))
    return std::nullopt;
  wait_for_answer(&h_answer->ready, stream);
  return Checked<T>{KeyTraits<T>::from_key(h_answer->key), h_answer->nan_count != 0};
}

template <class T>
std::size_t radix_resident_counter_bytes() {
  return kCounters<T> * sizeof(unsigned);
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                                     \
  template std::optional<Checked<T>> radix_select_resident<T>(const T*, std::size_t, std::size_t, int, Workspace&, \
                                                              cudaStream_t);                                        \
  template std::size_t radix_resident_counter_bytes<T>();
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
