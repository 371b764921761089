#pragma once
// The shortest window of h consecutive sorted values (univariate.hpp's shortest_window_sorted)
// of values spread over the ranks, for several independent problems at once: the exact LMS
// intercept of a batch of candidates, and the LMS R^2's univariate LMS of y.
//
// Exact sample sort per problem: the splitters are DIBMS order statistics (one batched DIBMS
// for the whole batch), each rank receives one block of sorted positions (one all-to-all),
// the value at position j + h - 1 is moved to the owner of position j (a second all-to-all),
// and every rank scans its windows; the first of the shortest over all ranks wins (an
// all-gather of each rank's best), so the answer is shortest_window_sorted's, bit for bit.
// Bytes per rank and problem: 16 n / q (each value moved twice) plus the DIBMS counts. One rank
// sorts its values and runs the one-process scan.
#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <vector>

#include "../univariate.hpp"
#include "robustfit/distributed/communicator.hpp"

namespace robustfit::regression::detail {

// values[i]: this rank's values of problem i (every rank passes the same number of problems,
// n >= h >= 1 over all ranks). The local sorts run on the rank's GPU where on_gpu (local_sort.hpp).
// Collective.
std::vector<ShortestWindow> shortest_windows(distributed::Communicator& comm, std::span<const Eigen::VectorXd> values,
                                             std::size_t h, bool on_gpu = false);

}  // namespace robustfit::regression::detail
