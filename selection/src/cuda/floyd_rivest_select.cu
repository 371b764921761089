// Floyd–Rivest selection with one read of the input (our addition beyond the seeds; it is the
// cutting-plane hybrid's "bracket, copy_if, select in the bracket" with the bracket taken from a
// sample instead of Kelley iterations, so the input is read once instead of once per iteration).
//
//  1. One block draws a pseudo-random sample (8192 values) and selects the sample's order
//     statistics lo, hi at the sample position of rank k, widened by `sigmas` binomial
//     standard deviations on each side (the chance that rank k falls outside is
//     ~0.3 % at the default 3 sigmas, whatever the distribution).
//  2. One streaming pass counts the values < lo and appends those of [lo, hi] to a buffer
//     (where lo or hi repeats in the sample: counts the values < lo, == lo, == hi and inside
//     (lo, hi), and appends the inside ones; bracket_pass.cuh), counts NaNs, in per-warp chunks (one atomic per chunk, no
//     barriers: a cursor shared by every warp's appends would serialise, and block-wide
//     aggregation costs barriers). Vector loads, 32-bit tallies in registers and one warp
//     scan per step keep the pass near memory bandwidth.
//  3. Rank k lands on lo or hi (duplicate-heavy data ends here), or inside: radixSelect on the
//     few percent of the input in the buffer, on the digits of key − key(lo) only, its first
//     digit counted by the pass as it placed the values (one read of the buffer fewer). A miss (rank
//     outside [lo, hi], or more inside values than the buffer holds) falls back to radixSelect
//     on the whole input: always exact.
#include <algorithm>
#include <cstdint>

#include "algorithms.cuh"
#include "block_sample_select.cuh"
#include "bracket_pass.cuh"
#include "checked_select.cuh"
#include "cuda_check.cuh"
#include "seed_common.cuh"

namespace robustfit::selection::cuda::detail {
namespace {

using bracketing::BracketState;
using bracketing::kPassThreads;

// The sample: 8192 values, drawn by one block of 512 threads, the bracket's ends selected from
// it (block_sample_select.cuh). The bracket shrinks as 1/sqrt(sample size), the selection grows
// with it.
constexpr int kSampleItems = 16;

// Step 1 (one block): the bracket [lo, hi] around rank k. Positions off the sample's ends become
// -inf / +inf, which bound every non-NaN value.
// Also zeroes first_digit, the counters the pass adds the finish's first digit to.
template <class T>
__global__ __launch_bounds__(bracketing::kBlockSampleThreads) void pick_bracket(const T* __restrict__ x,
                                                                                std::size_t n, std::size_t k,
                                                                                float sigmas,
                                                                                BracketState<T>* state,
                                                                                unsigned long long* first_digit) {
  using Key = typename KeyTraits<T>::Key;
  __shared__ bracketing::SampleSelectStorage<Key> storage;
  for (int b = threadIdx.x; b < bracketing::kDigitBins; b += blockDim.x) first_digit[b] = 0;
  Key keys[kSampleItems];
  bracketing::draw_block_sample<T, kSampleItems>(x, n, keys);
  const BracketState<T> bracket = bracketing::bracket_from_block_sample<T, kSampleItems>(keys, k, n, sigmas, storage);
  if (threadIdx.x == 0) *state = bracket;
}

}  // namespace

template <class T>
Checked<T> floyd_rivest_select_checked(const T* d_values, std::size_t n, std::size_t k,
                                       const FloydRivestParams& params, Workspace& workspace,
                                       cudaStream_t stream) {
  // The expected bracket with room to spare, plus one partly filled chunk per warp.
  const auto shape = bracketing::pass_shape(d_values, n, params.capacity_fraction, params.max_capacity);
  const std::size_t capacity = shape.capacity;
  auto* d_state = workspace.device_as<BracketState<T>>(kFloydRivestState, 1);
  auto* h_state = workspace.host_as<BracketState<T>>(kFloydRivestState, 1);
  T* buffer = workspace.device_as<T>(kFloydRivestBuffer, std::max<std::size_t>(capacity, 1));

  // The finishing radix's first digit, counted by the pass (its histogram slot).
  auto* first_digit = workspace.device_as<unsigned long long>(kRadixHistogram, bracketing::kDigitBins);

  pick_bracket<T><<<1, bracketing::kBlockSampleThreads, 0, stream>>>(d_values, n, k, params.sigmas, d_state,
                                                                     first_digit);
  CUDA_CHECK_LAUNCH();

  bracketing::bracket_pass<T><<<shape.grid, kPassThreads, 0, stream>>>(d_values, shape.head, shape.vectors, n, d_state,
                                                                       buffer, capacity, first_digit);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(h_state, d_state, sizeof *h_state, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const BracketState<T> s = *h_state;
  if (s.nans != 0) return {T(0), true};
  const auto at = bracketing::locate_rank(s, k, capacity);
  switch (at.place) {
    case bracketing::Place::lo: return {s.lo, false};
    case bracketing::Place::hi: return {s.hi, false};
    case bracketing::Place::inside:  // the padded buffer: s.cursor values in [lo, hi]
      return {radix_select_in_range(buffer, s.cursor, at.rank, s.lo, s.hi, workspace, stream, /*first_counted=*/true),
              false};
    case bracketing::Place::miss: break;
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
