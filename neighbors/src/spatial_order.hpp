#pragma once
// A spatially coherent order of points (kd-tree leaf order), so that consecutive runs of
// `leaf` points are close together: the CPU engine's training blocks get small bounding boxes
// (whole blocks can be skipped) and its query groups share their nearby blocks. Only the speed
// depends on it: the neighbour sets do not.
#include <cstddef>
#include <vector>

#include "robustfit/neighbors/knn.hpp"

namespace robustfit::neighbors::detail {

// A permutation of the rows of `points`: split at a multiple of `leaf` (about the middle) along
// the column of widest spread, recursively, until at most `leaf` rows remain; each run
// [j * leaf, (j + 1) * leaf) of the result is one leaf. Deterministic (ties by row).
std::vector<std::size_t> spatial_order(const RowMatrix& points, std::size_t leaf);

}  // namespace robustfit::neighbors::detail
