// Batched sampled-bracket selection (Algorithm::bracket, batched): Floyd–Rivest's one-read idea
// (floyd_rivest_select.cu) for every column at once, with the whole control on the device.
//
//  1. One block per column sorts a pseudo-random sample of 4096 of its values
//     (cub::BlockRadixSort) and takes the bracket [lo, hi] at the sample positions of rank k
//     +- `sigmas` binomial standard deviations (off the sample's ends: -inf / +inf).
//  2. ONE read of the matrix (grid = columns x slices, 16-byte loads) counts per column the
//     values < lo, == lo, == hi and NaNs, and appends the values inside (lo, hi) to the column's
//     region of a candidate buffer (one atomic per warp and step; the column's append cursor is
//     its count of inside values).
//  3. One thread per column decides: NaN column -> NaN; rank k on lo or hi (ties) -> done;
//     inside and the region held them all -> the column joins the "inside" list (select rank
//     k - below - equal_lo among its candidates); otherwise (a miss: the bracket did not hold
//     rank k, or the region overflowed) -> the "miss" list (select rank k in the whole column).
//  4. Batched MSD radix select (11-bit digits: 3 passes for float, 6 for double) on the listed
//     columns only, over their candidates or, for misses, their whole column. The passes run a
//     fixed grid that walks the two device-side lists (work item = listed column x slice), so
//     nothing waits for the host: unlisted columns cost nothing, and an empty miss list costs a
//     launch of blocks that exit at once.
// Traffic: one read of the matrix, the candidates written once and read once per digit (for
// the median, a bracket of ~4.7 % of each column). Exact whatever the sample: a miss costs a
// radix select of that column.
#include <cub/block/block_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "batched_bracket.cuh"
#include "batched_digit.cuh"
#include "batched_select.cuh"
#include "cuda_check.cuh"
#include "key_traits.cuh"
#include "launch_shape.cuh"
#include "seed_common.cuh"
#include "vector16.cuh"
#include "warp_scan.cuh"
#include "workspace_slots.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

constexpr int kSampleThreads = 256;
constexpr int kSampleItems = 16;
constexpr int kSampleSize = kSampleThreads * kSampleItems;  // 4096 per column
constexpr int kPassThreads = 256;
constexpr int kVectorsPerThread = 4;        // 16-byte loads in flight per thread and step
constexpr std::size_t kPassSlice = 1 << 15;  // values per block of the counting read (at least)
constexpr int kRadixBits = 11;
constexpr int kBins = 1 << kRadixBits;
constexpr int kRadixThreads = 256;
constexpr int kRadixItems = 4;               // loads in flight per thread in the finishing passes
constexpr int kFindThreads = 256;

// Per column: the bracket and the counting read's tallies. `inside` is also the append cursor
// of the column's candidate region (it may pass the capacity: overflow).
template <class T>
struct ColumnState {
  T lo, hi;
  unsigned long long below, equal_lo, equal_hi, inside, nans;
};

// What the finishing radix selects in, per listed column: `length` values at `values`, rank `rank`.
template <class T>
struct Segment {
  const T* values;
  unsigned long long length, rank;
};

// The two device-side lists of columns that need the finishing radix: counts[0] columns at
// inside[] (candidates), counts[1] at miss[] (the whole column).
struct Lists {
  unsigned* counts;
  int* inside;
  int* miss;
};

// Sample positions (0-based ranks in the sorted sample) of the bracket's ends for rank k.
struct SampleRanks {
  long long lo, hi;
};

SampleRanks sample_ranks(std::size_t k, std::size_t rows, float sigmas) {
  const double p = (static_cast<double>(k) + 0.5) / static_cast<double>(rows);
  const double centre = p * kSampleSize - 0.5;
  const double spread = sigmas * std::sqrt(kSampleSize * p * (1 - p)) + 1;
  return {static_cast<long long>(std::floor(centre - spread)), static_cast<long long>(std::ceil(centre + spread))};
}

// Step 1: one block per column. Also resets the column's tallies and (block 0) the lists.
template <class T>
__global__ __launch_bounds__(kSampleThreads) void sample_brackets(const T* __restrict__ matrix, std::size_t rows,
                                                                  std::size_t ld, SampleRanks ranks,
                                                                  ColumnState<T>* states, Lists lists) {
  using Sort = cub::BlockRadixSort<T, kSampleThreads, kSampleItems>;
  __shared__ typename Sort::TempStorage temp;
  const std::size_t column = blockIdx.x;
  const T* values = matrix + column * ld;
  T items[kSampleItems];
#pragma unroll
  for (int j = 0; j < kSampleItems; ++j)
    items[j] = values[seed::sample_index(column * kSampleSize + threadIdx.x * std::uint64_t{kSampleItems} + j + 1, rows)];
  Sort(temp).Sort(items);  // blocked: thread t holds sample ranks t * items .. + items - 1
  ColumnState<T>& state = states[column];
  const long long first = threadIdx.x * static_cast<long long>(kSampleItems);
#pragma unroll
  for (int j = 0; j < kSampleItems; ++j) {
    if (first + j == ranks.lo) state.lo = items[j];
    if (first + j == ranks.hi) state.hi = items[j];
  }
  if (threadIdx.x == 0) {
    if (ranks.lo < 0) state.lo = -std::numeric_limits<T>::infinity();
    if (ranks.hi >= kSampleSize) state.hi = std::numeric_limits<T>::infinity();
    state.below = state.equal_lo = state.equal_hi = state.inside = state.nans = 0;
    if (column == 0) lists.counts[0] = lists.counts[1] = 0;
  }
}

// Per-thread tallies of the counting read (a thread sees far fewer than 2^32 values).
struct Tally {
  unsigned below = 0, equal_lo = 0, equal_hi = 0, nans = 0;
};

template <class T>
__device__ __forceinline__ bool classify(T v, T lo, T hi, Tally& tally) {
  tally.below += v < lo;
  tally.equal_lo += v == lo;
  tally.equal_hi += v == hi;  // also lo's ties when lo == hi: the plan ignores it then
  tally.nans += v != v;
  return lo < v && v < hi;
}

// A warp's `count`s of values for the column's region: one atomic per warp; returns the warp's
// first position, and in `offset` the lane's place after it.
__device__ __forceinline__ unsigned long long claim(unsigned count, unsigned long long* cursor, unsigned& offset) {
  unsigned total = 0;
  offset = warp_exclusive_sum(count, total);
  unsigned long long first = 0;
  if (total != 0 && threadIdx.x % 32 == 0) first = atomicAdd(cursor, static_cast<unsigned long long>(total));
  return __shfl_sync(0xffffffffu, first, 0);
}

// Step 2: grid = columns x slices. Each block reads its slice of its column as 16-byte vectors
// (block-uniform steps, so every warp reaches the warp scans); the first warp of slice 0 also
// reads the column's unaligned head and its tail (fewer than one vector each).
template <class T>
__global__ __launch_bounds__(kPassThreads) void bracket_pass(const T* __restrict__ matrix, std::size_t rows,
                                                             std::size_t ld, std::size_t vectors_per_block,
                                                             ColumnState<T>* states, T* __restrict__ candidates,
                                                             std::size_t capacity) {
  using V = Vector16<T>;
  __shared__ unsigned long long totals[4];
  if (threadIdx.x < 4) totals[threadIdx.x] = 0;
  const std::size_t column = blockIdx.x;
  const T* values = matrix + column * ld;
  ColumnState<T>& state = states[column];
  const T lo = state.lo, hi = state.hi;
  T* region = candidates + column * capacity;
  const auto address = reinterpret_cast<std::uintptr_t>(values);
  const std::size_t misaligned = (16 - address % 16) % 16 / sizeof(T);
  const std::size_t head = misaligned < rows ? misaligned : rows;
  const std::size_t vectors = (rows - head) / V::size;
  const auto* body = reinterpret_cast<const typename V::type*>(values + head);
  const std::size_t begin = std::size_t(blockIdx.y) * vectors_per_block;
  const std::size_t end = begin + vectors_per_block < vectors ? begin + vectors_per_block : vectors;
  Tally tally;
  for (std::size_t base = begin; base < end; base += std::size_t(kPassThreads) * kVectorsPerThread) {
    typename V::type loaded[kVectorsPerThread] = {};
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      const std::size_t i = base + std::size_t(u) * kPassThreads + threadIdx.x;
      if (i < end) loaded[u] = body[i];
    }
    unsigned inside = 0;  // bit u * V::size + e: element e of vector u lies inside (lo, hi)
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      if (base + std::size_t(u) * kPassThreads + threadIdx.x >= end) continue;
#pragma unroll
      for (int e = 0; e < V::size; ++e)
        if (classify(element(loaded[u], e), lo, hi, tally)) inside |= 1u << (u * V::size + e);
    }
    unsigned offset = 0;
    unsigned long long position = claim(__popc(inside), &state.inside, offset) + offset;
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u)
#pragma unroll
      for (int e = 0; e < V::size; ++e)
        if (inside & (1u << (u * V::size + e))) {
          if (position < capacity) region[position] = element(loaded[u], e);
          ++position;
        }
  }
  if (blockIdx.y == 0 && threadIdx.x < 32) {
    const std::size_t tail = head + vectors * V::size;
    const std::size_t extra = head + (rows - tail);  // < 2 * V::size <= 8
    const std::size_t i = threadIdx.x < head ? threadIdx.x : tail + (threadIdx.x - head);
    const T v = threadIdx.x < extra ? values[i] : T(0);
    const bool keep = threadIdx.x < extra && classify(v, lo, hi, tally);
    unsigned offset = 0;
    const unsigned long long position = claim(keep ? 1u : 0u, &state.inside, offset) + offset;
    if (keep && position < capacity) region[position] = v;
  }
  __syncthreads();  // totals[] cleared
  add_warp_sum(tally.below, &totals[0]);
  add_warp_sum(tally.equal_lo, &totals[1]);
  add_warp_sum(tally.equal_hi, &totals[2]);
  add_warp_sum(tally.nans, &totals[3]);
  __syncthreads();
  if (threadIdx.x < 4 && totals[threadIdx.x] != 0) {
    unsigned long long* fields[4] = {&state.below, &state.equal_lo, &state.equal_hi, &state.nans};
    atomicAdd(fields[threadIdx.x], totals[threadIdx.x]);
  }
}

// Step 3: one thread per column. Writes the answer of NaN columns and of ranks on lo or hi; lists
// the others for the finishing radix, with what it selects in.
template <class T>
__global__ void plan_columns(const T* matrix, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t k,
                             const ColumnState<T>* states, const T* candidates, std::size_t capacity,
                             Segment<T>* segments, typename KeyTraits<T>::Key* prefix, Lists lists, T* out) {
  const std::size_t column = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= cols) return;
  const ColumnState<T> s = states[column];
  if (s.nans != 0) {
    out[column] = std::numeric_limits<T>::quiet_NaN();
    return;
  }
  const unsigned long long equal_hi = s.lo == s.hi ? 0 : s.equal_hi;  // else lo's ties twice
  if (k >= s.below) {
    unsigned long long rank = k - s.below;
    if (rank < s.equal_lo) {
      out[column] = s.lo;
      return;
    }
    rank -= s.equal_lo;
    if (rank < s.inside && s.inside <= capacity) {  // the region holds every inside value
      segments[column] = {candidates + column * capacity, s.inside, rank};
      prefix[column] = 0;
      lists.inside[atomicAdd(&lists.counts[0], 1u)] = static_cast<int>(column);
      return;
    }
    if (rank >= s.inside && rank - s.inside < equal_hi) {
      out[column] = s.hi;
      return;
    }
  }
  segments[column] = {matrix + column * ld, rows, k};  // a miss: the whole column
  prefix[column] = 0;
  lists.miss[atomicAdd(&lists.counts[1], 1u)] = static_cast<int>(column);
}

// The finishing radix's work: the inside list's columns in `inside_slices` slices each, then the
// miss list's in `miss_slices`; a block walks items blockIdx.x, + gridDim.x, ...
struct WorkPlan {
  unsigned inside_slices, miss_slices;
  std::size_t slice;  // values per slice
};

__device__ __forceinline__ void item_of(const Lists& lists, const WorkPlan& plan, unsigned long long item,
                                        unsigned long long inside_items, int& column, std::size_t& part) {
  if (item < inside_items) {
    column = lists.inside[item / plan.inside_slices];
    part = item % plan.inside_slices;
  } else {
    item -= inside_items;
    column = lists.miss[item / plan.miss_slices];
    part = item % plan.miss_slices;
  }
}

// Step 4, one digit: each work item histograms its slice's keys that match the column's prefix
// in shared memory and adds them to the column's global histogram.
template <class T, bool kFirst>
__global__ __launch_bounds__(kRadixThreads) void listed_radix_pass(const Segment<T>* segments, Lists lists,
                                                                   WorkPlan plan,
                                                                   const typename KeyTraits<T>::Key* prefix,
                                                                   int prev_shift, int shift, unsigned int* hist) {
  using Key = typename KeyTraits<T>::Key;
  __shared__ unsigned int counts[kBins];
  const unsigned long long inside_items = static_cast<unsigned long long>(lists.counts[0]) * plan.inside_slices;
  const unsigned long long items = inside_items + static_cast<unsigned long long>(lists.counts[1]) * plan.miss_slices;
  for (unsigned long long item = blockIdx.x; item < items; item += gridDim.x) {
    int column = 0;
    std::size_t part = 0;
    item_of(lists, plan, item, inside_items, column, part);
    const Segment<T> segment = segments[column];
    const std::size_t begin = part * plan.slice;
    if (begin >= segment.length) continue;  // block-uniform
    const std::size_t end = begin + plan.slice < segment.length ? begin + plan.slice : segment.length;
    for (int b = threadIdx.x; b < kBins; b += kRadixThreads) counts[b] = 0;
    __syncthreads();
    const Key column_prefix = kFirst ? Key(0) : prefix[column];
    for (std::size_t base = begin + threadIdx.x; base < end; base += std::size_t(kRadixThreads) * kRadixItems) {
      T x[kRadixItems];
#pragma unroll
      for (int j = 0; j < kRadixItems; ++j) {
        const std::size_t i = base + std::size_t(j) * kRadixThreads;
        x[j] = i < end ? segment.values[i] : T(0);
      }
#pragma unroll
      for (int j = 0; j < kRadixItems; ++j) {
        if (base + std::size_t(j) * kRadixThreads >= end) continue;
        const Key key = KeyTraits<T>::to_key(x[j]);
        if (kFirst || (key >> prev_shift) == column_prefix) atomicAdd(&counts[(key >> shift) & Key(kBins - 1)], 1u);
      }
    }
    __syncthreads();
    unsigned int* column_hist = hist + static_cast<std::size_t>(column) * kBins;
    for (int b = threadIdx.x; b < kBins; b += kRadixThreads)
      if (counts[b] != 0) atomicAdd(&column_hist[b], counts[b]);
    __syncthreads();  // counts[] is cleared for the next item only after every thread flushed
  }
}

// Step 4, one digit: one block per listed column (blocks walk the lists) finds the bin holding
// the column's rank; after the last digit the prefix is the answer's key.
template <class T, bool kLast>
__global__ __launch_bounds__(kFindThreads) void listed_radix_find(Lists lists, unsigned int* hist,
                                                                  typename KeyTraits<T>::Key* prefix,
                                                                  Segment<T>* segments, int width, T* out) {
  using Key = typename KeyTraits<T>::Key;
  __shared__ typename DigitScan<kFindThreads>::TempStorage storage;
  const unsigned inside_count = lists.counts[0];
  const unsigned listed = inside_count + lists.counts[1];
  for (unsigned entry = blockIdx.x; entry < listed; entry += gridDim.x) {
    const int column = entry < inside_count ? lists.inside[entry] : lists.miss[entry - inside_count];
    Key found = 0;
    const bool mine = find_digit<Key, kRadixBits, kFindThreads>(hist + static_cast<std::size_t>(column) * kBins,
                                                                 prefix + column, &segments[column].rank, width,
                                                                 storage, found);
    if (kLast && mine) out[column] = KeyTraits<T>::from_key(found);
  }
}

template <class T>
void finishing_radix(Segment<T>* segments, Lists lists, WorkPlan plan, typename KeyTraits<T>::Key* prefix,
                     unsigned int* hist, std::size_t cols, T* out, cudaStream_t stream) {
  constexpr int kKeyBits = KeyTraits<T>::kBits;
  constexpr int kPasses = (kKeyBits + kRadixBits - 1) / kRadixBits;
  auto shift_of = [](int pass) { return std::max(kKeyBits - kRadixBits * (pass + 1), 0); };
  // The pass blocks walk the work items: exactly as many as are resident at once, so that none
  // starts late with a share of the items (the fewer resident blocks finish theirs first).
  int resident = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, listed_radix_pass<T, false>, kRadixThreads, 0));
  const unsigned pass_grid = static_cast<unsigned>(multiprocessor_count() * std::max(resident, 1));
  const unsigned find_grid = static_cast<unsigned>(std::min<std::size_t>(cols, 4096));
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = shift_of(pass);
    const int prev_shift = pass == 0 ? 0 : shift_of(pass - 1);
    if (pass == 0)
      listed_radix_pass<T, true><<<pass_grid, kRadixThreads, 0, stream>>>(segments, lists, plan, prefix, prev_shift,
                                                                         shift, hist);
    else
      listed_radix_pass<T, false><<<pass_grid, kRadixThreads, 0, stream>>>(segments, lists, plan, prefix, prev_shift,
                                                                          shift, hist);
    CUDA_CHECK_LAUNCH();
    const int width = (pass == 0 ? kKeyBits : shift_of(pass - 1)) - shift;
    if (pass + 1 == kPasses)
      listed_radix_find<T, true><<<find_grid, kFindThreads, 0, stream>>>(lists, hist, prefix, segments, width, out);
    else
      listed_radix_find<T, false><<<find_grid, kFindThreads, 0, stream>>>(lists, hist, prefix, segments, width, out);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

template <class T>
void batched_bracket_select(const T* d_matrix, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t k,
                            T* d_out, const BatchedBracketParams& params, Workspace& workspace, cudaStream_t stream) {
  using Key = typename KeyTraits<T>::Key;
  using V = Vector16<T>;
  if (rows < std::max<std::size_t>(params.min_rows, 1)) {
    batched_radix_select(d_matrix, rows, cols, ld, k, d_out, workspace, stream);
    return;
  }
  // The candidate region per column: the expected bracket (the sample's gap between the two
  // ranks, clipped to the sample) times capacity_factor, plus slack; a multiple of one vector.
  const SampleRanks ranks = sample_ranks(k, rows, params.sigmas);
  const double expected = static_cast<double>(std::min<long long>(ranks.hi, kSampleSize) -
                                              std::max<long long>(ranks.lo, -1)) /
                          (kSampleSize + 1) * static_cast<double>(rows);
  std::size_t capacity = static_cast<std::size_t>(expected * params.capacity_factor) + 1024;
  capacity = std::min({capacity, rows, params.max_capacity});
  capacity = (capacity + V::size - 1) / V::size * V::size;
  if (params.max_capacity < capacity) capacity = params.max_capacity;  // tests: a tiny region, unaligned

  auto* d_states = workspace.device_as<ColumnState<T>>(kBatchedBracketState, cols);
  T* d_candidates = workspace.device_as<T>(kBatchedBracketCandidates, std::max<std::size_t>(cols * capacity, 1));
  auto* d_segments = workspace.device_as<Segment<T>>(kBatchedBracketSegments, cols);
  Key* d_prefix = workspace.device_as<Key>(kBatchedBracketPrefix, cols);
  auto* d_hist = workspace.device_as<unsigned int>(kBatchedBracketHistogram, cols * kBins);
  int* d_lists = workspace.device_as<int>(kBatchedBracketLists, 4 + 2 * cols);
  const Lists lists{reinterpret_cast<unsigned*>(d_lists), d_lists + 4, d_lists + 4 + cols};
  CUDA_CHECK(cudaMemsetAsync(d_hist, 0, cols * kBins * sizeof(unsigned int), stream));

  sample_brackets<T><<<unsigned(cols), kSampleThreads, 0, stream>>>(d_matrix, rows, ld, ranks, d_states, lists);
  CUDA_CHECK_LAUNCH();

  // Slices of at least kPassSlice values, and enough blocks to fill the GPU several times over.
  const std::size_t vectors = rows / V::size;
  const std::size_t step = std::size_t(kPassThreads) * kVectorsPerThread;
  const std::size_t wanted = std::size_t(multiprocessor_count()) * 16;
  std::size_t slices = std::max((rows + kPassSlice - 1) / kPassSlice, (wanted + cols - 1) / cols);
  slices = std::clamp<std::size_t>(slices, 1, std::min<std::size_t>(65535, std::max<std::size_t>((vectors + step - 1) / step, 1)));
  const std::size_t vectors_per_block = (vectors + slices - 1) / slices;  // a column has at most `vectors`
  bracket_pass<T><<<dim3(unsigned(cols), unsigned(slices)), kPassThreads, 0, stream>>>(
      d_matrix, rows, ld, vectors_per_block, d_states, d_candidates, capacity);
  CUDA_CHECK_LAUNCH();

  plan_columns<T><<<unsigned((cols + 255) / 256), 256, 0, stream>>>(d_matrix, rows, cols, ld, k, d_states,
                                                                    d_candidates, capacity, d_segments, d_prefix,
                                                                    lists, d_out);
  CUDA_CHECK_LAUNCH();

  // Slices of the finishing passes: about four work items per block when every column is listed
  // with a full region, at least 2048 values each (a slice costs a histogram clear and flush).
  const std::size_t pass_blocks = std::size_t(multiprocessor_count()) * (2048 / kRadixThreads);
  const std::size_t slice = std::clamp<std::size_t>((cols * capacity) / (4 * pass_blocks), 2048, 1 << 16);
  const WorkPlan plan{static_cast<unsigned>(std::max<std::size_t>((capacity + slice - 1) / slice, 1)),
                      static_cast<unsigned>((rows + slice - 1) / slice), slice};
  finishing_radix<T>(d_segments, lists, plan, d_prefix, d_hist, cols, d_out, stream);
}

#define ROBUSTFIT_INSTANTIATE(T)                                                                                  \
  template void batched_bracket_select<T>(const T*, std::size_t, std::size_t, std::size_t, std::size_t, T*,      \
                                          const BatchedBracketParams&, Workspace&, cudaStream_t);
ROBUSTFIT_INSTANTIATE(float)
ROBUSTFIT_INSTANTIATE(double)
#undef ROBUSTFIT_INSTANTIATE

}  // namespace robustfit::selection::cuda::detail
