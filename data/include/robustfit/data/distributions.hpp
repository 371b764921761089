#pragma once
// Test and benchmark inputs for selection (docs/BENCHMARKS.md, "Selection"), generated
// reproducibly: the same (distribution, n, seed, distinct) gives the same vector everywhere.
// Uses its own generator (xoshiro256**), not std:: distributions, whose output varies by library.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

namespace robustfit::data {

enum class Distribution {
  uniform,                  // U(0,1)
  normal,                   // N(0,1)
  half_normal,              // |N(0,1)|
  beta_2_5,                 // Beta(2,5)
  cauchy,                   // standard Cauchy (heavy tails)
  mixture_normal_66_33,     // Beliakov mixture 1: 66.6% N(0,1), 33.3% N(10,1)
  mixture_normal_50_50,     // Beliakov mixture 2: 50% N(0,1), 50% N(10,1)
  half_normal_10pct_ten,    // Beliakov mixture 3: 90% |N(0,1)|, 10% exactly 10
  half_normal_wide_66_33,   // Beliakov mixture 4: 66.6% |N(0,1)|, 33.3% N(0,10^2)
  half_normal_wide_50_50,   // Beliakov mixture 5: 50% |N(0,1)|, 50% N(0,10^2)
  few_huge,                 // N(0,1) with a few (<= 3) values ~1e30
  distinct_d,               // uniform over `distinct` values 0, 1, ..., d-1
  all_equal,                // every value 1
  two_values_95,            // {1, 2}: exactly n - floor(n/20) ones, shuffled
  sorted,                   // U(0,1) ascending
  reverse_sorted,           // U(0,1) descending
  bucket_killer,            // Alabi et al.: 2^p for p = -32..32 plus n-65 values just above 2^-32
  near_zero_doubles,        // +-m * denorm_min, m < 2^24: subnormal/tiny range (Alabi et al.)
  signed_zeros_and_infs,    // N(0,1) with ~10% +0, ~10% -0, ~5% +inf, ~5% -inf
};

// Every distribution, in declaration order.
std::span<const Distribution> all_distributions();

std::string_view to_string(Distribution distribution);
// The inverse of to_string; throws std::invalid_argument listing the accepted names.
Distribution parse_distribution(std::string_view name);

// n values of `distribution` (float or double). `distinct` is d for distinct_d (>= 1).
template <class T>
std::vector<T> make_distribution(Distribution distribution, std::size_t n, std::uint64_t seed,
                                 std::size_t distinct = 16);

// The values of make_distribution<double>(distribution, n, seed, distinct), handed to `sink` in
// order, a block at a time. Independent draws are produced block by block (constant memory);
// the distributions arranged as a whole (sorted, reverse_sorted, two_values_95, few_huge,
// bucket_killer) are built in memory and handed over in blocks.
void for_each_distribution_chunk(Distribution distribution, std::size_t n, std::uint64_t seed,
                                 std::size_t distinct,
                                 const std::function<void(std::span<const double>)>& sink);

}  // namespace robustfit::data
