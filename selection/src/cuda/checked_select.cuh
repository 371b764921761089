#pragma once
// Internal: variants of this module's own algorithms that also report whether the input holds
// a NaN, found during a pass the algorithm makes anyway (no extra read of the input), plus
// their tunable parameters. The dispatch layer (select.cu) calls these directly.
#include <cstddef>
#include <optional>
#include <cuda_runtime.h>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

template <class T>
struct Checked {
  T value;
  bool has_nan;
};

struct CuttingPlaneParams {
  int max_iterations = 4;  // Kelley steps before the bracket is copied and sorted (H200-tuned)
  std::size_t min_bracket = 1u << 16;  // stop early once the bracket holds at most
  int bracket_shift = 10;              // max(min_bracket, n >> bracket_shift) elements
};

struct RadixParams {
  std::size_t copy_threshold = std::size_t{1} << 20;  // n below this: rescan, no compaction
  // The one-launch forms (resident, then n <= 2^22): at most this many blocks; 0: the default
  // (resident: one an SM, at least 4096 values each; radix_one_launch: as many as the device
  // keeps resident, or as n fills). Fewer blocks each count more values but flush and scan
  // fewer per-block histograms (the bench's tune-radix rows).
  int one_launch_blocks = 0;
  // Where the input fits in the SMs' shared memory (radix_resident.cu: ~7M floats, ~3.5M doubles
  // on the H200), the digits count a shared copy in one cooperative launch with the counters
  // zeroed by the kernel; false (tests): radix_one_launch or the separate passes. one_launch
  // false (tests): the separate passes at every n.
  bool resident = true;
  bool one_launch = true;
};

// Floyd–Rivest: the bracket spans `sigmas` binomial standard deviations of the sample position
// on each side of rank k; the buffer holds capacity_fraction * n values plus one chunk per warp,
// at most max_capacity (tests lower it to force the overflow path).
struct FloydRivestParams {
  float sigmas = 3.0f;  // H200: 3 beat 4-6 at 2^26-2^28 (a miss, 0.27 % of inputs, costs one radix select)
  double capacity_fraction = 0.125;
  std::size_t max_capacity = ~std::size_t{0};
};

// Bracket selection (bracket_select.cu): Floyd–Rivest's bracket and one read, finished on the
// device. sample_size < 0: by n (default_bracket_sample); up to kBracketSmallBlockSample or
// kBracketBlockSample, one block draws and sorts that many keys; more: a device-wide CUB sort of
// sample_size keys. sigmas, capacity_fraction and max_capacity as FloydRivestParams (tests shrink
// them to force misses and overflows). one_launch: with a one-block sample, the whole call in one
// cooperative launch where the device allows it (bracket_one_launch.cu; the same bracket and
// answer); false: the separate kernels (tests run both).
constexpr int kBracketSmallBlockSample = 2048;
constexpr int kBracketBlockSample = 8192;
struct BracketParams {
  int sample_size = -1;
  float sigmas = 3.0f;
  double capacity_fraction = 0.125;
  std::size_t max_capacity = ~std::size_t{0};
  bool one_launch = true;
  // One launch: after the first finishing digit, at most this many values sharing the prefix are
  // finished by one block (capped at the kernel's 4096); 0: a digit at a time to the end (tests).
  std::size_t one_block_finish = 4096;
};

// The default sample, by n: below 2^25 values a call is bound by its fixed costs and the
// 2048-key sample is the quickest to draw and select from in every block of the one-launch form
// (H200, 2026-11-29, bench/results/selection_one_launch_bracket_h200_2026-11-29: at 2^24 the
// 8192-key sample cost more than its narrower bracket saved: floats 97 against 88 us, doubles
// 168 against 138); up to 2^26 one block draws 8192 keys; from 2^26 a 2^16-key sample sorted by
// CUB narrows the float median's bracket to ~1.2 % of n, halving the buffer to write and finish.
inline int default_bracket_sample(std::size_t n) {
  if (n < (std::size_t{1} << 25)) return kBracketSmallBlockSample;
  return n < (std::size_t{1} << 26) ? kBracketBlockSample : 1 << 16;
}

// The one-launch form of bracket selection with a one-block sample of `sample_size` keys
// (kBracketSmallBlockSample or kBracketBlockSample); nullopt where the device has no
// cooperative launch (the caller then runs the separate kernels).
template <class T>
std::optional<Checked<T>> bracket_select_one_launch(const T* d_values, std::size_t n, std::size_t k,
                                                    const BracketParams& params, int sample_size,
                                                    Workspace& workspace, cudaStream_t stream);

template <class T>
Checked<T> sort_select_checked(const T* d_values, std::size_t n, std::size_t k, Workspace&,
                               cudaStream_t);
// Sorts d_values itself (no copy of the input); d_values must hold n writable elements.
template <class T>
Checked<T> sort_select_inplace_checked(T* d_values, std::size_t n, std::size_t k, Workspace&,
                                       cudaStream_t);
// Many ranks by one sort: out[i] = the ks[i]-th smallest (host arrays). Returns has_nan.
template <class T>
bool sort_select_many_checked(const T* d_values, std::size_t n, const std::size_t* ks,
                              std::size_t count, T* out, Workspace&, cudaStream_t);
template <class T>
Checked<T> cutting_plane_select_checked(const T* d_values, std::size_t n, std::size_t k,
                                        const CuttingPlaneParams&, Workspace&, cudaStream_t);
// The shared-memory form of radix select; nullopt where the input does not fit in the SMs'
// shared memory or the device has no cooperative launch. max_blocks: 0 for the default grid.
template <class T>
std::optional<Checked<T>> radix_select_resident(const T* d_values, std::size_t n, std::size_t k, int max_blocks,
                                                Workspace& workspace, cudaStream_t stream);
template <class T>
Checked<T> radix_select_checked(const T* d_values, std::size_t n, std::size_t k,
                                const RadixParams&, Workspace&, cudaStream_t);

// Radix select on input known to lie in [lo, hi] (no NaN): digits of key - key(lo) only.
// first_counted: the kRadixHistogram slot (kDigitBins counters) already holds the first digit's
// counts of the input (bracket_pass's first_digit), whose pass is then skipped.
template <class T>
T radix_select_in_range(const T* d_values, std::size_t n, std::size_t k, T lo, T hi, Workspace&, cudaStream_t,
                        bool first_counted = false);
template <class T>
Checked<T> floyd_rivest_select_checked(const T* d_values, std::size_t n, std::size_t k,
                                       const FloydRivestParams&, Workspace&, cudaStream_t);
template <class T>
Checked<T> bracket_select_checked(const T* d_values, std::size_t n, std::size_t k, const BracketParams&,
                                  Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
