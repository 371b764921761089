#pragma once
// bucket_of (local_shard.hpp) without a 128-bit division, for the GPU, where that division is a
// long software routine run once per value and pass. The quotient q = floor(d b / W) is below b,
// so when (hi - lo) b fits in 64 bits one 64-bit division gives it, and otherwise a double
// estimate is off by at most one and is corrected with exact 128-bit products. Equal to
// bucket_of for every input (tests/distributed_gpu compare them on the host).
#include <cstdint>

#include "robustfit/distributed/local_shard.hpp"

#ifdef __CUDACC__
#define ROBUSTFIT_HOST_DEVICE __host__ __device__
#else
#define ROBUSTFIT_HOST_DEVICE
#endif

namespace robustfit::distributed::detail {

// Buckets per interval above which the double estimate could be off by more than a step or two:
// the exact 128-bit division then (never with DIBMS's defaults, where b <= max(B, 2 P)).
constexpr std::uint64_t kEstimateLimit = std::uint64_t{1} << 40;

ROBUSTFIT_HOST_DEVICE inline std::uint64_t fast_bucket_of(const KeyInterval& interval, std::uint64_t key) {
  const std::uint64_t d = key - interval.lo, span = interval.hi - interval.lo, b = interval.buckets;
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  if (span == kMax) return interval.first_bucket + static_cast<std::uint64_t>((Wide(d) * b) >> 64);  // W = 2^64
  const std::uint64_t width = span + 1;
  if (span <= kMax / b) return interval.first_bucket + d * b / width;  // d b <= span b: no overflow
  const Wide product = Wide(d) * b;
  if (b > kEstimateLimit) return interval.first_bucket + static_cast<std::uint64_t>(product / width);
  const double estimate = static_cast<double>(d) * (static_cast<double>(b) / static_cast<double>(width));
  std::uint64_t q = estimate >= static_cast<double>(b - 1) ? b - 1 : static_cast<std::uint64_t>(estimate);
  while (q > 0 && Wide(q) * width > product) --q;
  while (q + 1 < b && Wide(q + 1) * width <= product) ++q;
  return interval.first_bucket + q;
}

}  // namespace robustfit::distributed::detail
