#pragma once
// Exact order statistics of values spread over the ranks of a communicator; every rank calls
// with its own LocalShard and receives the same results. Ranks k are 0-based over all values
// together (k = 0: the global minimum). No value ever leaves its rank except the few the
// algorithms name: samples, single-candidate answers and a small final bracket.
//
// dibms_select: DIBMS, the distributed iterative bucket multiselection (the distributed form of
// bucketMultiSelect; docs/DISTRIBUTED.md): Phase 1 buckets from ~1024 sampled pivots, bucket counts summed over
// the ranks, active buckets kept; Phase 2 re-buckets the active buckets' exact key ranges in
// place until every order statistic is a bucket of one candidate (answered by its owner) or one
// repeated value. Communication per iteration is O(B + m) numbers, independent of n.
//
// cutting_plane_select: Beliakov's cutting plane (Kelley's method) for one k, with one
// all-reduce of five numbers (counts and sums at the pivot) per iteration, then the few values
// left in the bracket gathered and selected.
//
// Errors (std::invalid_argument, the same on every rank): no values at all, a rank k >= n.
#include <cstdint>
#include <span>
#include <vector>

#include "robustfit/distributed/communicator.hpp"
#include "robustfit/distributed/local_shard.hpp"

namespace robustfit::distributed {

// The paper's parameters, as named defaults.
struct DibmsOptions {
  std::uint64_t buckets = 8192;        // B = 2^13 buckets per iteration (at least 2 per active bucket)
  // With band_intervals off: P pivot intervals in Phase 1 (the paper's P = 16). 0: one per 32 of
  // Phase 1's buckets (at least 16; 256 at B = 8192) where every rank's shards say that costs
  // nothing more (LocalShard::fine_pivots_free: the CUDA shard over floats), else 16; the ranks
  // agree through Phase 1's all-gather. Buckets are even in key space inside an interval, so
  // narrower intervals follow the values' density: on normal data the first reduce keeps 1.7 %
  // of the values instead of 7.7 % (101 percentiles of 2^24); on the CPU shard, whose count
  // searches the intervals, 256 of them made the call 1.7-1.9x slower.
  std::uint64_t pivot_intervals = 0;
  // Phase 1's intervals aligned to the order key's bands instead of cut at sampled pivots
  // (band_intervals.hpp; ours): each band between the smallest and largest key is one interval
  // of 2^bits buckets by its share of the merged sample (about `buckets` in all, up to twice that
  // after rounding up), so that both shards find a value's bucket by one table load
  // (src/cuda/band_table.hpp), no search. One rank's 2^29 floats, 101 percentiles and the median
  // on an H200: 2.3-2.6 ms against the fine pivots' 5.2-6.1 ms; 2^24 doubles on the 2-core
  // CPU: 58-63 ms against 114-307 ms. Off: the paper's pivots (pivot_intervals). The answers are
  // the same either way.
  bool band_intervals = true;
  std::uint64_t sample_size = 1024;    // values sampled over all ranks in Phase 1
  std::uint64_t stalls_before_check = 2;  // iterations that do not shrink the candidates before
                                          // the repeated-value check (the paper's stopping rule)
  std::uint64_t seed = 0x5eed;         // sampling only: the results never depend on it
  // Once at most this many candidates are left over all ranks (shared by the problems of a
  // batched call), every rank gathers them (8 bytes each, one all-gather) and chooses the
  // pending ranks from them, instead of the last iterations: each costs a count, a reduce and
  // two collectives for a few candidates (on GPUs ~0.2 ms, 3 of the 6 iterations of 101
  // percentiles of 2^29 floats). 0: the paper's iterations to the end.
  std::uint64_t gather_candidates = 16384;
  int max_iterations = 200;            // never reached: each iteration halves every bucket's key range
};

struct CuttingPlaneOptions {
  std::uint64_t small_bracket = 8192;  // values left in the bracket when it is gathered
  int max_iterations = 200;            // never reached: a bisection follows every step that does not halve the bracket
};

// What a call cost: bytes this rank handed to collectives, and iterations.
struct SelectionReport {
  std::uint64_t n = 0;           // values over all ranks
  std::uint64_t bytes = 0;
  int iterations = 0;            // DIBMS: count passes (Phase 1 is iteration 1); cutting plane: Kelley steps
  std::uint64_t gathered = 0;    // cutting plane: values in the final bracket; DIBMS: candidates gathered
  int repeated_value_checks = 0; // DIBMS: times the stopping rule fired (exact check of the active buckets)
  std::uint64_t single_answers = 0;  // DIBMS: order statistics answered by the owner of a one-candidate bucket
};

std::vector<double> dibms_select(Communicator& comm, LocalShard& shard, std::span<const std::uint64_t> ks,
                                 const DibmsOptions& options = {}, SelectionReport* report = nullptr);

// Several independent problems at once (shards[i] with ranks ks[i]), sharing each collective:
// as many collectives as one problem needs, whatever the number of problems (the thresholds of
// a batch of regression candidates). report->n is the sum of the problems' sizes.
std::vector<std::vector<double>> dibms_select_batched(Communicator& comm, std::span<LocalShard* const> shards,
                                                      std::span<const std::vector<std::uint64_t>> ks,
                                                      const DibmsOptions& options = {}, SelectionReport* report = nullptr);

// A caller's guess where a problem's wanted order statistics lie (an LTS candidate's last
// threshold, say), with the problem's size over all ranks.
struct DibmsBracket {
  std::uint64_t n = 0;  // values over all ranks (checked against the first counts)
  double lo = 0, hi = 0;  // lo <= hi, not NaN
};

// dibms_select_batched with Phase 1's intervals from the brackets instead of a sample: B buckets
// over [lo, hi] and one each below and above (not the paper's: its Phase 1 samples). It skips
// the all-gathers of the sizes, key ranges and samples: a call is then one count and its
// all-reduce, and the gather of the last candidates where the guess held (more iterations where
// it did not; the answers are exact either way). One bracket per problem, the same on every rank.
std::vector<std::vector<double>> dibms_select_bracketed(Communicator& comm, std::span<LocalShard* const> shards,
                                                        std::span<const std::vector<std::uint64_t>> ks,
                                                        std::span<const DibmsBracket> brackets,
                                                        const DibmsOptions& options = {}, SelectionReport* report = nullptr);

double cutting_plane_select(Communicator& comm, LocalShard& shard, std::uint64_t k,
                            const CuttingPlaneOptions& options = {}, SelectionReport* report = nullptr);

}  // namespace robustfit::distributed
