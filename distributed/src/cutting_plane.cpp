// Beliakov's cutting plane for the k-th smallest over the ranks of a communicator.
//
// The k-th smallest minimises f(t) = sum_i |x_i - t| + (n - 2k - 1) t, a convex piecewise linear
// sum over all values, so its value and subgradient at a pivot are sums over the ranks: one
// all-reduce of five numbers per Kelley step (counts below / equal / above the pivot inside the
// bracket and the sums of (key - pivot) on each side). Kelley's step between the bracket ends is
// the mean of the values inside the bracket; counts decide everything, sums only steer. As in
// the one-GPU version the work is on order keys; a step that does not halve the values inside
// the bracket is followed by a bisection of its key range, so at most ~64 + log2(n) steps are
// taken. Once the bracket holds at most small_bracket values, they are gathered on every rank
// (the distributed bracket compaction) and the answer is selected among them.
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "robustfit/distributed/order_key.hpp"
#include "robustfit/distributed/selection.hpp"

namespace robustfit::distributed {

double cutting_plane_select(Communicator& comm, LocalShard& shard, std::uint64_t k,
                            const CuttingPlaneOptions& options, SelectionReport* report) {
  const std::uint64_t bytes_before = comm.bytes();
  shard.reset();
  const std::uint64_t n = comm.all_reduce_sum(shard.size());
  if (n == 0) throw std::invalid_argument("distributed selection: no values on any rank");
  if (k >= n)
    throw std::invalid_argument("distributed selection: rank k = " + std::to_string(k) + " is out of range for " +
                                std::to_string(n) + " values (0-based, k < n)");

  // The open bracket (lo, hi) of keys holds the answer; keys 0 and ~0 are NaN's, never present.
  std::uint64_t lo = 0, hi = ~std::uint64_t{0}, at_or_below_lo = 0, inside = n;
  std::uint64_t pivot = order_key(0.0);
  int iterations = 0;
  const auto finish = [&](double value) {
    if (report != nullptr) *report = {n, comm.bytes() - bytes_before, iterations, report->gathered};
    return value;
  };
  if (report != nullptr) report->gathered = 0;
  while (inside > options.small_bracket) {
    if (++iterations > options.max_iterations) throw std::logic_error("cutting_plane_select: no convergence");
    const PivotSums local = shard.pivot_sums(lo, hi, pivot);
    std::array<double, 5> sums{local.below, local.equal, local.above, local.sum_below, local.sum_above};
    comm.all_reduce_sum(sums);  // counts are exact in double below 2^53 values
    const auto below = static_cast<std::uint64_t>(sums[0]), equal = static_cast<std::uint64_t>(sums[1]),
               above = static_cast<std::uint64_t>(sums[2]);
    const std::uint64_t below_pivot = at_or_below_lo + below, up_to_pivot = below_pivot + equal;
    std::uint64_t now_inside = 0;
    double offset = 0;  // the mean of the new bracket's keys, relative to the pivot
    if (k < below_pivot) {
      hi = pivot;
      now_inside = below;
      offset = sums[3] / sums[0];
    } else if (k >= up_to_pivot) {
      lo = pivot;
      at_or_below_lo = up_to_pivot;
      now_inside = above;
      offset = sums[4] / sums[2];
    } else {
      return finish(from_order_key(pivot));  // the answer is the pivot itself
    }
    const bool halved = now_inside <= inside / 2;
    inside = now_inside;
    std::uint64_t next = lo + (hi - lo) / 2;  // bisection
    const double target = static_cast<double>(pivot) + offset;
    if (halved && std::isfinite(target) && target > static_cast<double>(lo) && target < static_cast<double>(hi)) {
      const auto kelley = static_cast<std::uint64_t>(target);
      if (kelley > lo && kelley < hi) next = kelley;
    }
    pivot = next;
  }
  // Bracket compaction: the few values inside, from every rank, then the answer among them.
  std::vector<std::uint64_t> bracket = comm.all_gather(shard.keys_inside(lo, hi));
  if (report != nullptr) report->gathered = bracket.size();
  const auto nth = bracket.begin() + static_cast<std::ptrdiff_t>(k - at_or_below_lo);
  std::nth_element(bracket.begin(), nth, bracket.end());
  return finish(from_order_key(*nth));
}

}  // namespace robustfit::distributed
