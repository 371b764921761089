#pragma once
// Internal: sampled multiselection (sampled_multi_select.cu), many ranks of one vector in about
// two reads of it, and its tunable parameters. The dispatch layer (select.cu), the tests and
// the benchmark call it directly.
#include <cstddef>
#include <cuda_runtime.h>
#include <optional>
#include <string>
#include <vector>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::selection::cuda::detail {

constexpr int kSampledMultiMaxEdges = 8192;       // shared memory: edges, 2 * edges + 1 counters
constexpr int kSampledMultiMaxTableBins = 16384;  // shared memory: 2 bytes per bin

// The phases of one call and their times (SampledMultiParams::phases).
struct SampledMultiPhases {
  std::vector<std::string> names;
  std::vector<float> ms;
};

// Out-of-range values are clamped: sample_size >= 1, edges in 1..min(kSampledMultiMaxEdges,
// sample_size), table_bins in 1..kSampledMultiMaxTableBins. Tests shrink them to force the
// rare paths (a large max_candidate_fraction keeps the compaction, a negative one forces the
// fallback).
struct SampledMultiParams {
  int sample_size = 1 << 15;  // sampled keys, sorted to choose the edges
  // At most this many distinct edges: each open bucket holds ~ n / edges values, so the
  // candidates are ~ ranks * n / edges. 0: by the number of ranks (default_edges).
  int edges = 0;
  int table_bins = 8192;      // ranges of the lookup table (sampled_multi_buckets.hpp)
  // More candidates than this share of n: one sort of the whole input instead. A radix sort
  // moves each value ~9 times, the compaction path 1 + 10 times per candidate: 0.5 is well
  // below the break-even (~0.8 n).
  double max_candidate_fraction = 0.5;
  // The finish. true: the compaction writes each active bucket into a segment of its own (its
  // place is known from the counting read) and one block per rank selects in its segment by
  // 11-bit radix digits of key - the bucket's lowest key (one launch). false: the compaction
  // appends in any order and CUB sorts all candidates (the first version, kept to compare).
  bool segmented = true;
  // The segmented finish's candidate buffer, in keys; < 0: by ranks and edges (1.5 n / edges
  // per rank + 2^16). Tests make it tiny to force the second compaction.
  long long initial_capacity = -1;
  // The counting read with every value's binary search advanced in lock step (shared-memory
  // loads of a thread's values in flight together); false: one search after another.
  bool interleaved_count = false;
  // Blocks per multiprocessor of the two passes (their grid). How many are resident at once
  // depends on the shared memory of edges and table (float: 64 KB per block with 2048 edges and
  // 8192 ranges, 3 fit; 88 KB with 4096 edges, 2 fit). 0: 3 with at most 2048 edges and 8192
  // ranges, else 2 (the two settings measured, bench tune-multi).
  int pass_blocks_per_sm = 0;
  // With a sample of 8192 or 16384 keys: one block draws and sorts it (cub::BlockRadixSort, one
  // launch); otherwise, or false: a drawing kernel and CUB's device-wide sort.
  bool block_sample = false;
  // The segmented finish: the first digit of long segments (from 2 x 16384 expected keys) counted
  // by several blocks per rank before the one block per rank goes on; false: by that block alone.
  bool split_first_digit = true;
  // The band-table form first (band_multi_select.cu): about this many ranges, each value's found
  // by a table load and a shift (no search); the edges answer where the sample shows ties or
  // spans the bands cannot split, or the ranges exceed kBandMaxRanges. 0: the edges only.
  int band_ranges = 8192;
  // The band form in one cooperative launch (band_one_launch.cu) below this many values (more
  // than 128 ranks: below half that), for up to kOneLaunchMaxRanks ranks (its table asks for at
  // most 4096 ranges); 0: the separate kernels always.
  std::size_t band_one_launch_below = std::size_t{1} << 27;
  // Where the separate kernels' sample shows ties or a span their table cannot split (their
  // verdict: the edges), the one launch answers instead at any size below 2^31 values and up to
  // kOneLaunchMaxRanks ranks: it splits the crowded ranges into cells. false: the edges.
  bool band_one_launch_on_ties = true;
  // The band form's sample (drawn, not sorted: its histograms plan the ranges). H200, tune-multi
  // 2026-12-02 (floats, 2^26 and 2^28, 101 and 1001 ranks): 16384 keys within 1 % of 32768 or
  // faster (101 ranks of 2^28: 0.772 against 0.790 ms with one block an SM; 1001 of 2^26 normal
  // 0.581 against 0.626); 65536 slower. The edges keep sample_size.
  int band_sample_size = 1 << 14;
  // The band form's two reads: blocks of 1024 threads per multiprocessor (1 or 2; each block
  // zeroes and flushes a counter per range, so fewer blocks flush less). 0: 1 (H200, tune-multi
  // 2026-12-02: one block 2-5 % faster than two at 2^26-2^28 in every row).
  int band_blocks_per_sm = 0;
  // The band form's compaction tests a value's range by a byte a range in shared memory; false:
  // by the active ranges' bit words (a shift and a mask more a value; bench rows
  // sampled-multi-bitwords).
  bool band_byte_flags = true;
  // Not null: the call records CUDA events between its phases and, after its last
  // synchronisation, stores each phase's name and milliseconds here (bench and debugging only;
  // the events cost a little).
  SampledMultiPhases* phases = nullptr;
};

// Edges for `ranks` ranks: 2048 (64-72 KB of shared memory per block of the passes, 3 blocks per
// SM), 8192 from 257 ranks on (half the candidates per rank: 1001 ranks stay below an eighth of
// n). H100, tune-multi (bench/results/SELECTION.md, 2026-11-26), float, 101 ranks: 2048 edges
// with 3 blocks per SM 2.03 / 2.78 ms at 2^28 (uniform / normal) against 2.16 / 3.03 with 4096
// edges and 2 blocks, 0.27 / 0.33 against 0.29 / 0.36 at 2^24.
inline int default_edges(std::size_t ranks) { return ranks <= 256 ? 2048 : 8192; }

// Ranges of the band table at most (shared memory of its two reads: 4 bytes a range and the
// table's 2 KB (float) or 16 KB (double), two blocks of 1024 threads an SM).
constexpr int kBandMaxRanges = 20480;

// Ranks the one-launch band form takes at most (a thread of a block each).
constexpr int kOneLaunchMaxRanks = 1024;

// The band-table form alone (band_multi_select.cu): answered, NaN seen, or the edges must answer
// (ties or narrow spans in the sample, too many ranges or candidates).
enum class BandOutcome { answered, nan, use_edges };
template <class T>
BandOutcome band_multi_select(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count, T* out,
                              const SampledMultiParams&, Workspace&, cudaStream_t);
// Whether band_multi_select_one_launch takes a call of n values and `count` ranks (its size limits).
bool band_one_launch_takes(std::size_t n, std::size_t count, const SampledMultiParams&);
// The band-table form in one cooperative launch (band_one_launch.cu); nullopt where it declines
// (band_one_launch_below, kOneLaunchMaxRanks, a larger table or more candidates than its buffer,
// no cooperative launch) and the separate kernels answer instead.
template <class T>
std::optional<BandOutcome> band_multi_select_one_launch(const T* d_values, std::size_t n, const std::size_t* ks,
                                                        std::size_t count, T* out, const SampledMultiParams&,
                                                        Workspace&, cudaStream_t);

// out[i] = the ks[i]-th smallest of d_values (ks, out: host arrays of `count`; ranks < n, any
// order, repeats allowed). Returns true, leaving `out` undefined, when the input holds a NaN.
template <class T>
bool sampled_multi_select_checked(const T* d_values, std::size_t n, const std::size_t* ks, std::size_t count,
                                  T* out, const SampledMultiParams&, Workspace&, cudaStream_t);

}  // namespace robustfit::selection::cuda::detail
