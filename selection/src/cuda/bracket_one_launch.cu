// Bracket selection in one cooperative launch (issue 11: below ~2^26 values a call is bound by
// its launches and host round trips, not by its one read). The steps of bracket_select.cu's
// separate kernels, with the same sample, bracket and digits, and so the same answers:
//  1. Every block draws the same one-block sample and selects the bracket's ends from it in its
//     shared memory (block_sample_select.cuh: no sort), and so picks the same bracket: no
//     grid-wide wait before the read (after the first block's reads the sample comes from L2).
//  2. The streaming pass (bracket_pass.cuh) into the buffer; grid.sync().
//  3. Every block reads the pass's counts and locates rank k (on lo or hi, outside the bracket,
//     NaN: done). Inside: radix digits of key - key(lo) over the buffer. The first digit's
//     counts cross the grid without atomics: each block stores its 2048 counts in a row of its
//     own (counted as the pass places the values, `first_digit_in_pass`, or from the buffer
//     after it), grid.sync(), each block adds up a few bins' columns, grid.sync(). (Every block
//     adding its ~1800 non-zero bins to the same 2048 global counters queued ~475K atomics on
//     them: 12-15 us of an 82 us call at 2^24 floats on the H200, bench/phase_probe.cu.) Later
//     digits count only the keys sharing the prefix into the digit's counters; grid.sync();
//     every block chooses the digit from the same counters. After the first digit, where two
//     digits or more would remain and at most 4096 values share the prefix, every block appends
//     those values to a small array instead, grid.sync(), and block 0 selects the rank among
//     them (one grid-wide round, not 4-5).
//  4. Block 0 clears the counters (zero before and after every launch: their slot is zeroed when
//     the workspace allocates it, so no memset before the launch, 3.8 us of a small call) and
//     writes the answer and then its flag into pinned host memory; the host spins on the flag
//     (host_wait.cuh).
// Per call: 1 cooperative launch, no stream synchronisation (the separate kernels: 5 launches
// for floats, 8 for doubles, and a copy back). A miss falls back to radix select on the whole
// input, as there.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstddef>
#include <optional>

#include "algorithms.cuh"
#include "block_sample_select.cuh"
#include "bracket_digits.cuh"
#include "bracket_pass.cuh"
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

using bracketing::BracketState;
using bracketing::kDigitBins;
using bracketing::kPassThreads;
static_assert(kPassThreads == bracketing::kBlockSampleThreads, "one block shape for the sample and the pass");

template <class T>
using KeyOf = typename KeyTraits<T>::Key;

// Zero when a launch starts and when it ends: the pass's tallies (its lo and hi unused: each
// block keeps its own), one histogram per finishing digit (32-bit: the buffer holds < 2^32
// values), the compact array's cursor.
template <class T>
struct Counters {
  BracketState<T> counts;
  unsigned hist[bracketing::digit_launches(KeyTraits<T>::kBits)][kDigitBins];
  unsigned long long compacted;  // values appended to the compact array (finish_in_one_block)
};
static_assert(sizeof(Counters<double>) <= kZeroedControlBytes,
              "the counters' slot must be zeroed on allocation: each launch leaves it as it found it");

// The one-block finish: up to kCompactItems keys a thread of one block.
constexpr int kCompactItems = 8;
constexpr unsigned long long kCompactCapacity = static_cast<unsigned long long>(kPassThreads) * kCompactItems;

enum Status : int { kFound = 1, kMiss = 2 };

// What block 0 writes to the host.
template <class T>
struct Answer {
  T value;
  int status;
  unsigned long long nans;
  int ready;  // set last (host_wait.cuh)
};

// The finish's shared memory: a digit's block counts and the scan that chooses it.
struct FinishShared {
  unsigned counts[kDigitBins];
  typename bracketing::DigitScan<kPassThreads>::TempStorage scan;
};

// Dynamic shared memory, one phase at a time: the sample's selection, the pass's staged rows,
// the finish.
template <class T>
constexpr std::size_t shared_bytes() {
  return std::max({sizeof(bracketing::SampleSelectStorage<KeyOf<T>>),
                   sizeof(T) * kPassThreads * bracketing::kStagedRow<T>, sizeof(FinishShared)});
}

// The pass's counts after grid.sync(), from L2 (other blocks added them).
template <class T>
__device__ BracketState<T> settled_counts(const BracketState<T>& bracket, BracketState<T>* counts) {
  BracketState<T> s = bracket;
  s.below = __ldcg(&counts->below);
  s.equal_lo = __ldcg(&counts->equal_lo);
  s.equal_hi = __ldcg(&counts->equal_hi);
  s.inside = __ldcg(&counts->inside);
  s.nans = __ldcg(&counts->nans);
  s.cursor = __ldcg(&counts->cursor);
  return s;
}

// Block 0 (every thread), once no block reads the counters any more: clears them for the next
// launch and then answers.
template <class T>
__device__ void clear_and_answer(Counters<T>* counters, Answer<T>* answer, T value, int status,
                                 unsigned long long nans) {
  auto* words = reinterpret_cast<unsigned*>(counters);
  static_assert(sizeof(Counters<T>) % sizeof(unsigned) == 0);
  for (std::size_t i = threadIdx.x; i < sizeof(Counters<T>) / sizeof(unsigned); i += blockDim.x) words[i] = 0;
  __syncthreads();
  if (threadIdx.x != 0) return;
  answer->value = value;
  answer->nans = nans;
  answer->status = status;
  publish_answer(&answer->ready);
}

// The first digit's counts of every block, one row each, added up: each block sums a few
// bins' columns, a warp a bin.
__device__ __forceinline__ void add_up_rows(const unsigned* rows, unsigned* hist) {
  const int warps = blockDim.x / 32, lane = threadIdx.x % 32;
  const int first = static_cast<int>(std::size_t(kDigitBins) * blockIdx.x / gridDim.x);
  const int last = static_cast<int>(std::size_t(kDigitBins) * (blockIdx.x + 1) / gridDim.x);
  for (int bin = first + static_cast<int>(threadIdx.x / 32); bin < last; bin += warps) {
    unsigned sum = 0;
    for (unsigned r = lane; r < gridDim.x; r += 32) sum += __ldcg(&rows[std::size_t(r) * kDigitBins + bin]);
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) __stcg(&hist[bin], sum);
  }
}

// Every block appends the buffer's values that share `prefix` (key - base, `remaining` low bits
// free) to `compact`, warp by warp; after grid.sync() block 0 selects rank `rank` among them
// (at most kCompactCapacity: the previous digit's count said so) and answers.
template <class T>
__device__ __noinline__ void finish_in_one_block(const T* buffer, std::size_t size, std::size_t stride,
                                    typename KeyTraits<T>::Key base, typename KeyTraits<T>::Key prefix, int remaining,
                                    unsigned long long rank, Counters<T>* counters, typename KeyTraits<T>::Key* compact,
                                    cooperative_groups::grid_group& grid, unsigned char* shared, Answer<T>* answer,
                                    std::uint64_t* stamps, int phase) {
  using Key = typename KeyTraits<T>::Key;
  constexpr int kLoads = bracketing::kDigitLoads;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size; i += stride * kLoads) {
    Key keys[kLoads];
#pragma unroll
    for (int j = 0; j < kLoads; ++j) {
      const std::size_t at = i + j * stride;
      keys[j] = at < size ? Key(KeyTraits<T>::to_key(__ldcg(&buffer[at])) - base) : Key(0);
    }
    const unsigned active = __activemask();
#pragma unroll
    for (int j = 0; j < kLoads; ++j) {
      const bool match = i + j * stride < size && bracketing::shift_right(keys[j], remaining) == prefix;
      const unsigned matching = __ballot_sync(active, match);
      if (matching == 0) continue;  // warp-uniform
      const unsigned long long at = seed::warp_append(active, matching, &counters->compacted);
      if (match) compact[at] = keys[j];
    }
  }
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);
  if (blockIdx.x != 0) return;
  const unsigned long long count = __ldcg(&counters->compacted);
  __syncthreads();  // every thread has read it: cleared below
  // The low `remaining` bits: the selection passes only over their digits (padding, all ones,
  // lies above 2^remaining and takes no part).
  const Key low = Key(~Key(0)) >> (KeyTraits<T>::kBits - remaining);
  Key keys[kCompactItems];
#pragma unroll
  for (int j = 0; j < kCompactItems; ++j) {
    const unsigned long long at = std::size_t(threadIdx.x) * kCompactItems + j;
    keys[j] = at < count ? Key(__ldcg(&compact[at]) & low) : Key(~Key(0));
  }
  const unsigned wanted[2] = {static_cast<unsigned>(rank), static_cast<unsigned>(rank)};
  Key found[2];
  unsigned repeats[2];
  bracketing::select_two_ranks<Key, kCompactItems>(keys, wanted,
                                                   *reinterpret_cast<bracketing::SampleSelectStorage<Key>*>(shared),
                                                   found, repeats, remaining);
  clear_and_answer(counters, answer, KeyTraits<T>::from_key(Key(Key(prefix << remaining) | found[0]) + base), kFound,
                   0ull);
  stamp_phase(stamps, phase);
}

// Two blocks of 512 an SM (64 registers): the pass needs both to keep the memory busy.
template <class T, int kSampleItems>
__global__ __launch_bounds__(kPassThreads, 2) void bracket_one_launch(const T* __restrict__ x, std::size_t head,
                                                                      std::size_t vectors, std::size_t n,
                                                                      std::size_t k, float sigmas,
                                                                      Counters<T>* counters, T* buffer,
                                                                      std::size_t capacity, Answer<T>* answer,
                                                                      KeyOf<T>* compact,
                                                                      unsigned long long compact_limit,
                                                                      bool first_digit_in_pass, unsigned* rows,
                                                                      std::uint64_t* stamps) {
  using Key = KeyOf<T>;
  extern __shared__ __align__(16) unsigned char shared[];
  __shared__ Key chosen_prefix;
  __shared__ unsigned long long chosen_rank;
  __shared__ unsigned long long chosen_count;
  __shared__ unsigned digit_counts[kDigitBins];  // the first finishing digit, this block's
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  int phase = 0;  // phase_stamps.cuh
  stamp_phase(stamps, phase++);

  // 1. The sample and the bracket, in every block alike (block_sample_select.cuh).
  Key keys[kSampleItems];
  bracketing::draw_block_sample<T, kSampleItems>(x, n, keys);
  stamp_phase(stamps, phase++);
  const BracketState<T> bracket = bracketing::bracket_from_block_sample<T, kSampleItems>(
      keys, k, n, sigmas, *reinterpret_cast<bracketing::SampleSelectStorage<Key>*>(shared));
  __syncthreads();  // the selection's storage is dead: its bytes become the pass's rows
  stamp_phase(stamps, phase++);
  const T lo = bracket.lo, hi = bracket.hi;

  // 2. The read (counting the first finishing digit of what it keeps, first_digit_in_pass).
  for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) digit_counts[b] = 0;
  __syncthreads();
  const bracketing::FirstDigit<T> first_digit =
      first_digit_in_pass ? bracketing::FirstDigit<T>(digit_counts, lo, hi) : bracketing::FirstDigit<T>();
  T* row = reinterpret_cast<T*>(shared) + std::size_t(threadIdx.x) * bracketing::kStagedRow<T>;
  if (bracket.closed)
    bracketing::bracket_pass_body<T, true>(x, head, vectors, n, lo, hi, &counters->counts, buffer, capacity, row,
                                           first_digit);
  else
    bracketing::bracket_pass_body<T, false>(x, head, vectors, n, lo, hi, &counters->counts, buffer, capacity, row,
                                            first_digit);
  unsigned* my_row = rows + std::size_t(blockIdx.x) * kDigitBins;
  if (first_digit_in_pass) {
    __syncthreads();
    for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) __stcg(&my_row[b], digit_counts[b]);
  }
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);

  // 3. Where rank k lies; the digits inside.
  const BracketState<T> s = settled_counts(bracket, &counters->counts);
  const auto at = bracketing::locate_rank(s, k, capacity);
  if (s.nans != 0 || at.place != bracketing::Place::inside) {
    const int status = s.nans == 0 && at.place != bracketing::Place::miss ? kFound : kMiss;
    grid.sync();  // every block has read the counts
    if (blockIdx.x == 0) clear_and_answer(counters, answer, at.place == bracketing::Place::hi ? hi : lo, status, s.nans);
    return;
  }
  auto& finish = *reinterpret_cast<FinishShared*>(shared);
  const Key base = KeyTraits<T>::to_key(lo);
  Key prefix = 0;
  unsigned long long rank = at.rank;
  int remaining = bracketing::bit_width(Key(KeyTraits<T>::to_key(hi) - base));
  const std::size_t size = s.cursor;  // <= capacity where rank k is inside
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long sharing = size;  // buffer values sharing the prefix
  for (int d = 0; remaining > 0; ++d) {
    // After the first digit few values share the prefix: where two digits or more would remain
    // (doubles' spans need 5-6 in all), one block finishes them in one grid-wide round.
    if (d > 0 && remaining > bracketing::kDigitBits && sharing <= compact_limit) {
      finish_in_one_block<T>(buffer, size, stride, base, prefix, remaining, rank, counters, compact, grid, shared,
                             answer, stamps, phase);
      return;
    }
    const bracketing::Digit digit = bracketing::next_digit(remaining);
    if (d == 0) {
      if (!first_digit_in_pass) {  // this block's share of the buffer, counted now
        bracketing::count_digit(buffer, size, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, stride, base, prefix,
                                remaining, digit, digit_counts);
        __syncthreads();
        for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) __stcg(&my_row[b], digit_counts[b]);
        grid.sync();
      }
      add_up_rows(rows, counters->hist[0]);
    } else {
      for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) finish.counts[b] = 0;
      __syncthreads();
      bracketing::count_digit(buffer, size, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, stride, base, prefix,
                              remaining, digit, finish.counts);
      __syncthreads();
      for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x)
        if (finish.counts[b] != 0) atomicAdd(&counters->hist[d][b], finish.counts[b]);
    }
    stamp_phase(stamps, phase++);
    grid.sync();
    stamp_phase(stamps, phase++);
    bracketing::find_digit_bin<kPassThreads>(counters->hist[d], rank, false, finish.scan,
                                             [&](int bin, unsigned long long within, unsigned long long in_bin) {
                                               chosen_prefix = Key(prefix << digit.width) | Key(bin);
                                               chosen_rank = within;
                                               chosen_count = in_bin;
                                             });
    __syncthreads();
    stamp_phase(stamps, phase++);
    prefix = chosen_prefix;
    rank = chosen_rank;
    sharing = chosen_count;
    remaining = digit.shift;
    // chosen_* are written again only after the next grid.sync(), when every thread has read them.
  }
  grid.sync();  // every block has read the last digit's counters
  if (blockIdx.x == 0) clear_and_answer(counters, answer, KeyTraits<T>::from_key(prefix + base), kFound, 0ull);
}

template <class T, int kSampleItems>
std::optional<Checked<T>> launch(const T* d_values, std::size_t n, std::size_t k, const BracketParams& params,
                                 Workspace& workspace, cudaStream_t stream) {
  const auto kernel = bracket_one_launch<T, kSampleItems>;
  constexpr std::size_t bytes = shared_bytes<T>();
  static const int blocks_per_sm = [&] {
    detail::allow_dynamic_shared_memory(kernel, bytes);
    return cooperative_blocks_per_sm(kernel, kPassThreads, bytes);
  }();
  if (blocks_per_sm == 0) return std::nullopt;
  const auto shape =
      bracketing::pass_shape_for(d_values, n, params.capacity_fraction, params.max_capacity, blocks_per_sm);
  auto* d_counters = workspace.device_as<Counters<T>>(kBracketOneLaunchCounters, 1);  // zero (see the top)
  auto* h_answer = workspace.host_as<Answer<T>>(kBracketControl, 1);
  auto* rows = workspace.device_as<unsigned>(kBracketDigitRows, std::size_t(shape.grid) * kDigitBins);
  T* buffer = workspace.device_as<T>(kBracketBuffer, std::max<std::size_t>(shape.capacity, 1));
  auto* compact = workspace.device_as<KeyOf<T>>(kBracketSample, kCompactCapacity);  // the CUB sample's slot: unused here
  unsigned long long compact_limit = std::min<unsigned long long>(params.one_block_finish, kCompactCapacity);
  *h_answer = Answer<T>{};
  std::size_t head = shape.head, vectors = shape.vectors, size = n, rank = k, capacity = shape.capacity;
  float sigmas = params.sigmas;
  bool first_digit_in_pass = params.first_digit_in_pass;
  std::uint64_t* stamps = phase_stamps();
  void* args[] = {const_cast<T**>(&d_values), &head, &vectors, &size, &rank, &sigmas, &d_counters, &buffer,
                  &capacity, &h_answer, &compact, &compact_limit, &first_digit_in_pass, &rows, &stamps};
  if (!launch_cooperative(reinterpret_cast<const void*>(kernel), shape.grid, kPassThreads, args, bytes, stream))
    return std::nullopt;
  wait_for_answer(&h_answer->ready, stream);
  const Answer<T> got = *h_answer;
  if (got.nans != 0) return Checked<T>{T(0), true};
  if (got.status == kFound) return Checked<T>{got.value, false};
  return radix_select_checked(d_values, n, k, RadixParams{}, workspace, stream);  // a miss
}

}  // namespace

template <class T>
std::optional<Checked<T>> bracket_select_one_launch(const T* d_values, std::size_t n, std::size_t k,
                                                    const BracketParams& params, int sample_size,
                                                    Workspace& workspace, cudaStream_t stream) {
  constexpr int kThreads = bracketing::kBlockSampleThreads;
  if (sample_size == kBracketSmallBlockSample)
    return launch<T, kBracketSmallBlockSample / kThreads>(d_values, n, k, params, workspace, stream);
  if (sample_size == kBracketBlockSample)
    return launch<T, kBracketBlockSample / kThreads>(d_values, n, k, params, workspace, stream);
  return std::nullopt;
}

template <class T>
std::size_t bracket_one_launch_counter_bytes() {
  return sizeof(Counters<T>);
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                              \
  template std::optional<Checked<T>> bracket_select_one_launch<T>(const T*, std::size_t, std::size_t,        \
                                                                  const BracketParams&, int, Workspace&,    \
                                                                  cudaStream_t);                            \
  template std::size_t bracket_one_launch_counter_bytes<T>();
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
