#pragma once
// bucket_of (local_shard.hpp) without a 128-bit division, for the GPU, where that division is a
// long software routine run once per value and pass. The quotient q = floor(d b / W) is below b,
// so when (hi - lo) b fits in 64 bits one 64-bit division gives it, and otherwise a double
// estimate is off by at most one and is corrected with exact 128-bit products. Equal to
// bucket_of for every input (tests/distributed_gpu compare them on the host).
#include <cstdint>
#include <span>

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
  if (interval.buckets == 1) return interval.first_bucket;  // a bracket's outer intervals
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


// The same bucket without any division per key: a double estimate of floor(d b / W), corrected
// against each bucket's first key (bucket_key_range's lower end, precomputed exactly by
// write_bucket_starts). The result is the last bucket j with starts[j] <= key, which is
// floor(d b / W) = bucket_of (start_j <= lo + d exactly when j <= d b / W); the estimate is off
// by at most a step or two for b < 2^40, and the correction loops make it exact regardless.
struct alignas(16) EstimatedInterval {  // two 16-byte loads on the GPU
  std::uint64_t lo = 0, first_bucket = 0, buckets = 1;
  double scale = 0;  // b / W
};

inline EstimatedInterval estimated_interval(const KeyInterval& interval) {
  const std::uint64_t span = interval.hi - interval.lo;
  const double width = span == ~std::uint64_t{0} ? 0x1p64 : static_cast<double>(span) + 1;
  return {interval.lo, interval.first_bucket, interval.buckets, static_cast<double>(interval.buckets) / width};
}

// starts[first_bucket + j] = bucket_key_range(interval, j)[0] for j < buckets, in O(buckets)
// without a division per bucket: with W = Q b + R, ceil(j W / b) = j Q + ceil(j R / b), and j R
// is carried as a quotient and a remainder of b.
inline void write_bucket_starts(const KeyInterval& interval, std::span<std::uint64_t> starts) {
  const Wide width = Wide(interval.hi - interval.lo) + 1, b = interval.buckets;
  const auto q = static_cast<std::uint64_t>(width / b);  // only used for j >= 1, so b >= 2 and Q < 2^64
  const auto r = static_cast<std::uint64_t>(width % b);
  std::uint64_t* out = starts.data() + interval.first_bucket;
  std::uint64_t base = 0, carried = 0, remainder = 0;  // j Q; j R = carried b + remainder
  out[0] = interval.lo;
  for (std::uint64_t j = 1; j < interval.buckets; ++j) {
    base += q;
    if (remainder >= interval.buckets - r) remainder -= interval.buckets - r, ++carried;
    else remainder += r;
    out[j] = interval.lo + base + carried + (remainder != 0 ? 1 : 0);
  }
}

ROBUSTFIT_HOST_DEVICE inline std::uint64_t estimated_bucket_of(const EstimatedInterval& interval,
                                                               const std::uint64_t* starts, std::uint64_t key) {
  const std::uint64_t b = interval.buckets;
  // One bucket (a bracket's outer intervals, most keys): no estimate; nor the slow conversion
  // of key - lo >= 2^63 to double (an interval from key 0), a branch that then goes either way.
  if (b == 1) return interval.first_bucket;
  const std::uint64_t* start = starts + interval.first_bucket;
  const double estimate = static_cast<double>(key - interval.lo) * interval.scale;  // >= 0
#ifdef __CUDA_ARCH__
  std::uint64_t q = __double2ull_rz(estimate);  // saturates
  q = q < b - 1 ? q : b - 1;
#else
  std::uint64_t q = estimate >= static_cast<double>(b - 1) ? b - 1 : static_cast<std::uint64_t>(estimate);
#endif
  while (q > 0 && key < start[q]) --q;
  while (q + 1 < b && key >= start[q + 1]) ++q;
  return interval.first_bucket + q;
}

}  // namespace robustfit::distributed::detail
