#pragma once
// The CPU kNN engine: all cores, tiles of queries x training rows.
// Euclidean: a fused vector kernel (filter_kernel.hpp) gives s' = |q|^2 + |x|^2 - 2 q.x for
// groups of queries over blocks of transposed training rows; with the rigorous bound
// e >= |s' - s| (s the direct squared distance), a running k-th smallest upper bound s' + e per
// query rejects most rows on one comparison; survivors (s' - e <= bound) become candidates and
// get the direct distance. Manhattan (and euclidean data whose squares overflow): direct
// distances.
// Either way the answer is the k smallest by (direct distance, row): exact, tiling-independent.
#include <memory>

#include "engine.hpp"

namespace robustfit::neighbors::detail {

// Queries per task; training rows per tile of the direct (manhattan, overflow) path.
inline constexpr std::size_t kQueryTile = 32;
inline constexpr std::size_t kTrainTile = 2048;

}  // namespace robustfit::neighbors::detail
