#pragma once
// Internal: every buffer the CUDA selection keeps in a Workspace, by name. Each algorithm has
// slots of its own, so that one algorithm may call another (cutting plane finishes with
// sort_select on its bracket; Floyd–Rivest falls back to radix select) without aliasing. A slot
// names a device buffer, a pinned host buffer, or both (the Workspace keeps the two kinds
// apart: Workspace::device(s) and Workspace::host(s) never share memory).
#include <cstddef>

namespace robustfit::selection::cuda::detail {

enum Slot : std::size_t {
  // Input summary (min, max, NaN) of the dispatch layer.
  kSummaryRange,    // device + host: the reduction's result
  kSummaryTemp,     // CUB reduction scratch

  // Sort & choose.
  kSortTemp,        // CUB radix-sort scratch
  kSortSorted,      // the sorted copy (or the in-place sort's alternate buffer)
  kSortPicked,      // device + host: the ends and the chosen ranks' values
  kSortRanks,       // device + host: the ranks of a many-rank selection

  // Cutting plane.
  kCuttingPlaneState,     // device + host: the bracket
  kCuttingPlanePartials,  // per-block partial sums
  kCuttingPlaneSelected,  // the bracket's values, copied out for the finishing sort
  kCuttingPlaneTemp,      // CUB select scratch

  // bucketSelect.
  kBucketControl,    // device: state and bucket counts; host: the state
  kBucketBufferA,    // two vectors of n values the K-bucket is copied between
  kBucketBufferB,
  kBucketSortTemp,   // CUB scratch of the fallback sort
  kBucketHostValue,  // host: the fallback's answer

  // radixSelect.
  kRadixState,      // device + host: prefix found so far
  kRadixHistogram,  // digit counters
  kRadixKeysA,      // two vectors of n keys for the compacting variant
  kRadixKeysB,

  // SampleSelect.
  kSampleControl,   // device: splitters, state and bucket counts; host: the state
  kSampleOracles,   // each value's bucket
  kSampleSortTemp = kSampleOracles,  // the fallback sort's scratch: the oracles are dead by then
                                     // (right after kSampleOracles, so the next name is new)
  kSampleBufferA,   // two vectors of n values the chosen bucket is filtered between
  kSampleBufferB,

  // bucketMultiSelect.
  kMultiControl,    // device + host: min/max, pivots, bucket counts
  kMultiBucketIds,  // each value's bucket
  kMultiActive,     // device + host: which buckets hold a wanted rank
  kMultiCompacted,  // the active buckets' values
  kMultiSorted,     // those values (or all) sorted
  kMultiSortTemp,   // CUB radix-sort scratch
  kMultiPositions,  // device + host: each rank's place in the sorted values
  kMultiOut,        // device + host: the values at those places

  // Batched selection (many columns).
  kBatchedPrefix,     // per column: digits found so far
  kBatchedRank,       // per column: rank among keys sharing the prefix
  kBatchedNanFlags,   // per column: holds a NaN
  kBatchedHistogram,  // cols x bins counters
  kBatchedSortTemp,   // CUB segmented-sort scratch
  kBatchedSorted,     // the sorted columns
  kBatchedOffsets,    // segment offsets
  kBatchedBracketState,       // per column: the sampled bracket and the counting read's tallies
  kBatchedBracketCandidates,  // per column: a region for the values inside its bracket
  kBatchedBracketSegments,    // per listed column: what the finishing radix selects in, and the rank
  kBatchedBracketPrefix,      // per listed column: digits found so far
  kBatchedBracketHistogram,   // cols x 2048 digit counters of the finishing radix
  kBatchedBracketLists,       // the columns to finish among their candidates / in their whole column

  // Floyd–Rivest.
  kFloydRivestState,   // device + host: the bracket and its counts
  kFloydRivestBuffer,  // the values inside the bracket

  // Sampled multiselection.
  kSampledMultiSample,      // the sample's keys, drawn and sorted
  kSampledMultiSorted,
  kSampledMultiSortTemp,    // CUB radix-sort scratch (sample, then candidates)
  kSampledMultiPlan,        // edges, lookup table, bucket counts and prefix sums
  kSampledMultiStatus,      // device + host: NaN count and candidate count
  kSampledMultiRanks,       // device + host: the wanted ranks
  kSampledMultiPositions,   // each rank's place among the sorted candidates
  kSampledMultiCandidates,  // the values of the buckets that hold a wanted rank
  kSampledMultiCandidatesSorted,
  kSampledMultiOut,         // device + host: the answers
  kSampledMultiBlockCounts,   // the counting read's per-block bucket (or band range) counts
  kSampledMultiBlockOffsets,  // per block and active bucket: where the block's keys of the bucket go
  kSampledMultiDigitCounts,   // per rank: its segment's first-digit counts, summed over the blocks of a split
  kBandMultiPlan,             // the band table, range counts, prefix sums, active ranges and cursors
  kBandMultiStatus,           // device + host: the answers, then NaN count, candidate count, fallback flag

  // Bracket selection (bracket_select.cu).
  kBracketControl,       // device + host: the bracket, the pass's counts, the finish's state and answer
  kBracketHistogram,     // the finishing digit's counters
  kBracketBuffer,        // the values inside the bracket
  kBracketSample,        // a large sample's keys, drawn
  kBracketSampleSorted,  // and sorted
  kBracketSortTemp,      // CUB radix-sort scratch of the sample
};

// The one deliberate alias must not shift the names after it onto another slot.
static_assert(kSampleBufferA == kSampleOracles + 1 && kMultiControl == kSampleBufferB + 1);

}  // namespace robustfit::selection::cuda::detail
