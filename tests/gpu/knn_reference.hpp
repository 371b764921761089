#pragma once
// Shared by the CUDA kNN tests: planted test data (duplicates and grid ties), the brute-force
// reference (every direct distance, full sort by (distance, row)) and list comparisons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "neighbors/src/direct_distance.hpp"
#include "neighbors/src/engine.hpp"

namespace robustfit::neighbors::reference {

using detail::NeighborLists;

// Gaussian rows, every third a copy of an earlier one, every fourth on a small integer grid.
inline RowMatrix planted(std::size_t rows, std::size_t d, std::uint64_t seed, double scale = 1.0,
                  double offset = 0.0) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> grid(0, 3);
  RowMatrix x(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(d));
  for (std::size_t i = 0; i < rows; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    if (i % 3 == 2) {
      x.row(r) = x.row(static_cast<Eigen::Index>(gen() % i));
      continue;
    }
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      x(r, j) = offset + scale * (i % 4 == 1 ? double(grid(gen)) : normal(gen));
  }
  return x;
}

// Brute force: every direct distance, full sort by (distance, row).
inline NeighborLists brute_force(const RowMatrix& train, const RowMatrix& queries, std::size_t k,
                          Metric metric, std::optional<std::size_t> self_from) {
  const auto n = static_cast<std::size_t>(train.rows());
  const auto d = static_cast<std::size_t>(train.cols());
  NeighborLists out;
  out.queries = static_cast<std::size_t>(queries.rows());
  out.k = k;
  for (std::size_t q = 0; q < out.queries; ++q) {
    std::vector<std::pair<double, std::int64_t>> all;
    for (std::size_t r = 0; r < n; ++r) {
      if (self_from && r == *self_from + q) continue;
      all.emplace_back(detail::direct_distance(queries.data() + q * d, train.data() + r * d, d, metric),
                       static_cast<std::int64_t>(r));
    }
    std::sort(all.begin(), all.end());
    for (std::size_t j = 0; j < k; ++j) {
      out.rows.push_back(all[j].second);
      out.distances.push_back(all[j].first);
    }
  }
  return out;
}

// Unordered lists compared as sets: sort each query's list by (distance, row).
inline NeighborLists sorted_lists(NeighborLists lists) {
  for (std::size_t q = 0; q < lists.queries; ++q) {
    std::vector<std::pair<double, std::int64_t>> items;
    for (std::size_t j = 0; j < lists.k; ++j)
      items.emplace_back(lists.distances[q * lists.k + j], lists.rows[q * lists.k + j]);
    std::sort(items.begin(), items.end());
    for (std::size_t j = 0; j < lists.k; ++j) {
      lists.distances[q * lists.k + j] = items[j].first;
      lists.rows[q * lists.k + j] = items[j].second;
    }
  }
  return lists;
}

inline void expect_identical(const NeighborLists& got, const NeighborLists& want, const std::string& what) {
  ASSERT_EQ(got.queries, want.queries) << what;
  ASSERT_EQ(got.k, want.k) << what;
  ASSERT_EQ(got.rows.size(), want.rows.size()) << what;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < got.rows.size(); ++i) {
    if (got.rows[i] != want.rows[i] || got.distances[i] != want.distances[i]) {
      if (++mismatches <= 5)
        ADD_FAILURE() << what << ": query " << i / got.k << " rank " << i % got.k << ": row "
                      << got.rows[i] << " at " << got.distances[i] << ", want row " << want.rows[i]
                      << " at " << want.distances[i];
    }
  }
  EXPECT_EQ(mismatches, 0u) << what;
}

}  // namespace robustfit::neighbors::reference
