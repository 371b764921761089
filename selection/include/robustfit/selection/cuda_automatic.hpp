#pragma once
// What Algorithm::automatic runs on the CUDA backend, by the shape of the call: the choice alone,
// in one place (src/cuda_automatic.cpp holds the thresholds and the measurements behind them).
// Plain host code, in every build: the CUDA entry points dispatch on it, the CLI and the
// benchmarks name it.
#include <cstddef>
#include <span>
#include <string>

#include "robustfit/selection/algorithm.hpp"

namespace robustfit::selection {

// One rank k of n values (k < n): radix, bracket or floyd_rivest; Algorithm::automatic where one
// min/max reduction answers (k = 0 or k = n - 1).
Algorithm cuda_automatic_single(std::size_t n, std::size_t k);

// Ranks ks of n values: sampled_multi, multi or sort; Algorithm::automatic where each rank is
// chosen alone (cuda_automatic_single): one rank, or a few other than 0 and n - 1 (those two cost
// one reduction each), fewer the larger n.
Algorithm cuda_automatic_many(std::size_t n, std::span<const std::size_t> ks, bool is_double);

// One rank per column of a rows x cols matrix: bracket or radix.
Algorithm cuda_automatic_batched(std::size_t rows, std::size_t cols);

// The choice for ranks `ks` of n values in words, for output: "bracket", "min-max reduction",
// "per rank: radix, min-max reduction" (each distinct choice once, in the order of the ranks).
std::string cuda_automatic_description(std::size_t n, std::span<const std::size_t> ks, bool is_double);

}  // namespace robustfit::selection
