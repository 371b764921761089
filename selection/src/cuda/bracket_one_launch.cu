// Bracket selection in one cooperative launch (issue 11: below ~2^26 values a call is bound by
// its launches and host round trips, not by its one read). The steps of bracket_select.cu's
// separate kernels, with the same sample, bracket and digits, and so the same answers:
//  1. Every block draws the same one-block sample and selects the bracket's ends from it in its
//     shared memory (block_sample_select.cuh: no sort), and so picks the same bracket: no
//     grid-wide wait before the read (after the first block's reads the sample comes from L2).
//  2. The streaming pass (bracket_pass.cuh) into the buffer; grid.sync().
//  3. Every block reads the pass's counts and locates rank k (on lo or hi, outside the bracket,
//     NaN: done). Inside: radix digits of key - key(lo) over the buffer, each block counting its
//     share into the digit's counters; grid.sync(); every block chooses the digit from the same
//     counters. After the first digit, where two digits or more would remain and at most 4096
//     values share the prefix, every block appends those values to a small array instead,
//     grid.sync(), and block 0 selects the rank among them (one grid-wide round, not 4-5).
//  4. Block 0 writes the answer into pinned host memory.
// Per call: 1 memset (the counters), 1 cooperative launch, 1 host synchronisation (the
// separate kernels: 5 launches for floats, 8 for doubles, and a copy back). A miss falls back to
// radix select on the whole input, as there.
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

// Zeroed before the launch: the pass's tallies (its lo and hi unused: each block keeps its own)
// and one histogram per finishing digit.
template <class T>
struct Counters {
  BracketState<T> counts;
  unsigned long long hist[bracketing::digit_launches(KeyTraits<T>::kBits)][kDigitBins];
  unsigned long long compacted;  // values appended to the compact array (finish_in_one_block)
};

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

template <class T>
__device__ void answer_with(Answer<T>* answer, T value, int status, unsigned long long nans) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  answer->value = value;
  answer->nans = nans;
  answer->status = status;
  __threadfence_system();
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
  answer_with(answer, KeyTraits<T>::from_key(Key(Key(prefix << remaining) | found[0]) + base), kFound, 0ull);
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
                                                                      std::uint64_t* stamps) {
  using Key = KeyOf<T>;
  extern __shared__ __align__(16) unsigned char shared[];
  __shared__ Key chosen_prefix;
  __shared__ unsigned long long chosen_rank;
  __shared__ int chosen_bin;
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

  // 2. The read.
  T* row = reinterpret_cast<T*>(shared) + std::size_t(threadIdx.x) * bracketing::kStagedRow<T>;
  if (bracket.closed)
    bracketing::bracket_pass_body<T, true>(x, head, vectors, n, lo, hi, &counters->counts, buffer, capacity, row);
  else
    bracketing::bracket_pass_body<T, false>(x, head, vectors, n, lo, hi, &counters->counts, buffer, capacity, row);
  stamp_phase(stamps, phase++);
  grid.sync();
  stamp_phase(stamps, phase++);

  // 3. Where rank k lies; the digits inside.
  const BracketState<T> s = settled_counts(bracket, &counters->counts);
  const auto at = bracketing::locate_rank(s, k, capacity);
  if (s.nans != 0 || at.place != bracketing::Place::inside) {
    const int status = s.nans == 0 && at.place != bracketing::Place::miss ? kFound : kMiss;
    answer_with(answer, at.place == bracketing::Place::hi ? hi : lo, status, s.nans);
    return;
  }
  auto& finish = *reinterpret_cast<FinishShared*>(shared);
  const Key base = KeyTraits<T>::to_key(lo);
  Key prefix = 0;
  unsigned long long rank = at.rank;
  int remaining = bracketing::bit_width(Key(KeyTraits<T>::to_key(hi) - base));
  const std::size_t size = s.cursor;  // <= capacity where rank k is inside
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (int d = 0; remaining > 0; ++d) {
    // After the first digit few values share the prefix: where two digits or more would remain
    // (doubles' spans need 5-6 in all), one block finishes them in one grid-wide round.
    if (d > 0 && remaining > bracketing::kDigitBits && __ldcg(&counters->hist[d - 1][chosen_bin]) <= compact_limit) {
      finish_in_one_block<T>(buffer, size, stride, base, prefix, remaining, rank, counters, compact, grid, shared,
                             answer, stamps, phase);
      return;
    }
    const bracketing::Digit digit = bracketing::next_digit(remaining);
    for (int b = threadIdx.x; b < kDigitBins; b += blockDim.x) finish.counts[b] = 0;
    __syncthreads();
    bracketing::count_digit(buffer, size, std::size_t(blockIdx.x) * blockDim.x + threadIdx.x, stride, base, prefix,
                            remaining, digit, finish.counts);
    seed::flush_counts(finish.counts, kDigitBins, counters->hist[d]);
    stamp_phase(stamps, phase++);
    grid.sync();
    stamp_phase(stamps, phase++);
    bracketing::find_digit_bin<kPassThreads>(counters->hist[d], rank, false, finish.scan,
                                             [&](int bin, unsigned long long within) {
                                               chosen_prefix = Key(prefix << digit.width) | Key(bin);
                                               chosen_rank = within;
                                               chosen_bin = bin;
                                             });
    __syncthreads();
    stamp_phase(stamps, phase++);
    prefix = chosen_prefix;
    rank = chosen_rank;
    remaining = digit.shift;
    // chosen_* are written again only after the next grid.sync(), when every thread has read them.
  }
  answer_with(answer, KeyTraits<T>::from_key(prefix + base), kFound, 0ull);
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
  auto* d_counters = workspace.device_as<Counters<T>>(kBracketControl, 1);
  auto* h_answer = workspace.host_as<Answer<T>>(kBracketControl, 1);
  T* buffer = workspace.device_as<T>(kBracketBuffer, std::max<std::size_t>(shape.capacity, 1));
  auto* compact = workspace.device_as<KeyOf<T>>(kBracketSample, kCompactCapacity);  // the CUB sample's slot: unused here
  unsigned long long compact_limit = std::min<unsigned long long>(params.one_block_finish, kCompactCapacity);
  CUDA_CHECK(cudaMemsetAsync(d_counters, 0, sizeof *d_counters, stream));
  *h_answer = Answer<T>{};
  std::size_t head = shape.head, vectors = shape.vectors, size = n, rank = k, capacity = shape.capacity;
  float sigmas = params.sigmas;
  std::uint64_t* stamps = phase_stamps();
  void* args[] = {const_cast<T**>(&d_values), &head, &vectors, &size, &rank, &sigmas,
                  &d_counters, &buffer, &capacity, &h_answer, &compact, &compact_limit, &stamps};
  if (!launch_cooperative(reinterpret_cast<const void*>(kernel), shape.grid, kPassThreads, args, bytes, stream))
    return std::nullopt;
  CUDA_CHECK(cudaStreamSynchronize(stream));
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

#define ROBUSTFIT_INSTANTIATE(T)                                                                              \
  template std::optional<Checked<T>> bracket_select_one_launch<T>(const T*, std::size_t, std::size_t,        \
                                                                  const BracketParams&, int, Workspace&,    \
                                                                  cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
