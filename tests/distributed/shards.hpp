#pragma once
// How the tests split one vector over the ranks: evenly, or unevenly with a rank of 0 rows and
// a rank of 1 row (the last rank takes the rest).
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace robustfit::testing {

inline const char* const kSplits[] = {"even", "empty_then_one", "one_then_empty"};

// [begin, end) of `rank`'s rows of n under the split:
//   even            n/q each;
//   empty_then_one  rank 0 none, rank 1 one row (with 3+ ranks), the last rank the rest;
//   one_then_empty  rank 0 one row, the last rank none (with 3+ ranks), the others the rest.
inline std::pair<std::size_t, std::size_t> shard_rows(const std::string& split, std::size_t n, int rank, int ranks) {
  const auto q = static_cast<std::size_t>(ranks);
  std::vector<std::size_t> sizes(q, 0);
  if (split == "even" || q == 1) {
    for (std::size_t i = 0; i < q; ++i) sizes[i] = n * (i + 1) / q - n * i / q;
  } else if (split == "empty_then_one") {
    if (q > 2) sizes[1] = 1;
    sizes[q - 1] = n - (q > 2 ? 1 : 0);
  } else {
    sizes[0] = 1;
    const std::size_t others = q > 2 ? q - 2 : 1, rest = n - 1;
    for (std::size_t i = 0; i < others; ++i) sizes[1 + i] = rest * (i + 1) / others - rest * i / others;
  }
  std::size_t begin = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(rank); ++i) begin += sizes[i];
  return {begin, begin + sizes[static_cast<std::size_t>(rank)]};
}

template <class T>
std::span<const T> shard_of(const std::vector<T>& all, const std::string& split, int rank, int ranks) {
  const auto [begin, end] = shard_rows(split, all.size(), rank, ranks);
  return std::span<const T>(all).subspan(begin, end - begin);
}

}  // namespace robustfit::testing
