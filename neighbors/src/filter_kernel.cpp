// Compiled with -ffp-contract=fast (neighbors/CMakeLists.txt): the AVX2 and AVX-512 variants
// fuse the multiply-adds of a_j; cpu_engine.cpp's error bound covers either rounding.
#include "filter_kernel.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string_view>
#include <vector>

#include "spatial_order.hpp"

namespace robustfit::neighbors::detail {

void TransposedBlocks::Free::operator()(void* p) const { std::free(p); }

TransposedBlocks::Buffer TransposedBlocks::allocate(std::size_t count) {
  const std::size_t bytes = (std::max<std::size_t>(count, 1) * sizeof(double) + 63) / 64 * 64;
  auto* p = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (!p) throw std::bad_alloc();
  return Buffer(p);
}

TransposedBlocks::TransposedBlocks(const RowMatrix& train)
    : d_(static_cast<std::size_t>(train.cols())),
      blocks_((static_cast<std::size_t>(train.rows()) + kBlockRows - 1) / kBlockRows) {
  const std::size_t n = static_cast<std::size_t>(train.rows());
  const std::vector<std::size_t> order = spatial_order(train, kBlockRows);
  columns_ = allocate(blocks_ * d_ * kBlockRows);
  squared_norms_ = allocate(blocks_ * kBlockRows);
  norms_ = allocate(blocks_ * kBlockRows);
  max_norm_ = allocate(blocks_);
  box_low_ = allocate(blocks_ * d_);
  box_high_ = allocate(blocks_ * d_);
  rows_ = std::make_unique<std::int64_t[]>(blocks_ * kBlockRows);
  for (std::size_t b = 0; b < blocks_; ++b) {
    double* cols = columns_.get() + b * d_ * kBlockRows;
    double top = 0;
    for (std::size_t c = 0; c < d_; ++c) {
      box_low_.get()[c * blocks_ + b] = std::numeric_limits<double>::infinity();
      box_high_.get()[c * blocks_ + b] = -std::numeric_limits<double>::infinity();
    }
    for (std::size_t j = 0; j < kBlockRows; ++j) {
      const std::size_t slot = b * kBlockRows + j;
      double sq = std::numeric_limits<double>::quiet_NaN(), norm = 0;
      rows_[slot] = -1;
      for (std::size_t c = 0; c < d_; ++c) cols[c * kBlockRows + j] = 0.0;
      if (slot < n) {
        const auto row = static_cast<Eigen::Index>(order[slot]);
        rows_[slot] = row;
        sq = 0;
        for (std::size_t c = 0; c < d_; ++c) {
          const double v = train(row, static_cast<Eigen::Index>(c));
          cols[c * kBlockRows + j] = v;
          sq += v * v;
          box_low_.get()[c * blocks_ + b] = std::min(box_low_.get()[c * blocks_ + b], v);
          box_high_.get()[c * blocks_ + b] = std::max(box_high_.get()[c * blocks_ + b], v);
        }
        norm = std::sqrt(sq);
        top = std::max(top, norm);
      }
      squared_norms_.get()[slot] = sq;
      norms_.get()[slot] = norm;
    }
    max_norm_.get()[b] = top;
  }
}

namespace {

// GCC vector types of W doubles (and the matching comparison masks).
template <int W>
struct Lanes;
template <>
struct Lanes<2> {
  typedef double V __attribute__((vector_size(16)));
  typedef long long M __attribute__((vector_size(16)));
};
template <>
struct Lanes<4> {
  typedef double V __attribute__((vector_size(32)));
  typedef long long M __attribute__((vector_size(32)));
};
template <>
struct Lanes<8> {
  typedef double V __attribute__((vector_size(64)));
  typedef long long M __attribute__((vector_size(64)));
};

// values[g * rows + i] for the queries g and rows j + i of a block: appends the hits in order
// of rows, then queries.
[[gnu::noinline]] std::size_t collect(const double* values, std::size_t rows, const double* limit, std::size_t j,
                                      std::size_t count, Survivor* out) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t g = 0; g < kGroupQueries; ++g)
      if (const double a = values[g * rows + i]; a <= limit[g])
        out[count++] = {static_cast<std::uint32_t>(j + i), static_cast<std::uint32_t>(g), a};
  return count;
}

// W lanes per vector, R vectors of rows per step: kGroupQueries * R accumulators stay in
// registers while the columns stream by; one load of x serves kGroupQueries queries.
template <int W, int R>
[[gnu::always_inline]] inline std::size_t scan(const double* columns, const double* squared_norms, std::size_t d,
                                               const double* minus_two_q, const double* limit, Survivor* out) {
  using V = typename Lanes<W>::V;
  using M = typename Lanes<W>::M;
  constexpr std::size_t G = kGroupQueries;
  static_assert(kBlockRows % (W * R) == 0);
  // a <= limit implies a - above < 0 (sign bit set) for above = the next double after limit, so
  // the test below is a subtraction and an OR of sign bits (no compare masks, which GCC 12
  // lowers lane by lane for 512-bit vectors); collect() then compares exactly.
  V above[G];
  const double* q[G];
#pragma GCC unroll 8
  for (std::size_t g = 0; g < G; ++g) {
    above[g] = std::nextafter(limit[g], std::numeric_limits<double>::infinity()) - V{};  // a broadcast
    q[g] = minus_two_q + g * d;
  }
  std::size_t count = 0;
  for (std::size_t j = 0; j < kBlockRows; j += W * R) {
    V acc[G][R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      V norm;
      std::memcpy(&norm, squared_norms + j + r * W, sizeof norm);
#pragma GCC unroll 8
      for (std::size_t g = 0; g < G; ++g) acc[g][r] = norm;
    }
    const double* col = columns + j;
    for (std::size_t c = 0; c < d; ++c, col += kBlockRows) {
      V x[R];
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) std::memcpy(&x[r], col + r * W, sizeof x[r]);
#pragma GCC unroll 8
      for (std::size_t g = 0; g < G; ++g) {
        const V b = q[g][c] - V{};
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) acc[g][r] += b * x[r];
      }
    }
    M sign = M{};
#pragma GCC unroll 8
    for (std::size_t g = 0; g < G; ++g)
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) sign |= (M)(acc[g][r] - above[g]);
    long long any = 0;
#pragma GCC unroll 8
    for (int lane = 0; lane < W; ++lane) any |= sign[lane];
    if (any >= 0) [[likely]]
      continue;
    // Rare: the accumulators go to memory only here, and a plain function picks the hits.
    alignas(64) double values[G * R * W];
#pragma GCC unroll 8
    for (std::size_t g = 0; g < G; ++g)
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) std::memcpy(values + (g * R + static_cast<std::size_t>(r)) * W, &acc[g][r], sizeof(V));
    count = collect(values, R * W, limit, j, count, out);
  }
  return count;
}

using ScanFn = std::size_t (*)(const double*, const double*, std::size_t, const double*, const double*, Survivor*);
using BoundsFn = void (*)(const double*, const double*, std::size_t, std::size_t, const double*, double*);

// Selects only (no branch), so it vectorises over blocks (with -fno-trapping-math, see
// neighbors/CMakeLists.txt).
[[gnu::always_inline]] inline void lower_bounds(const double* low, const double* high, std::size_t blocks,
                                                std::size_t d, const double* q, double* lower) {
  for (std::size_t b = 0; b < blocks; ++b) lower[b] = 0;
  for (std::size_t c = 0; c < d; ++c) {
    const double* lo = low + c * blocks;
    const double* hi = high + c * blocks;
    const double qc = q[c];
    for (std::size_t b = 0; b < blocks; ++b) {
      const double below = lo[b] - qc, above = qc - hi[b];
      double gap = below < above ? above : below;
      gap = gap < 0.0 ? 0.0 : gap;
      lower[b] += gap * gap;
    }
  }
}

void lower_bounds_baseline(const double* low, const double* high, std::size_t blocks, std::size_t d, const double* q,
                           double* lower) {
  lower_bounds(low, high, blocks, d, q, lower);
}

std::size_t scan_baseline(const double* columns, const double* squared_norms, std::size_t d, const double* minus_two_q,
                          const double* limit, Survivor* out) {
  return scan<2, 2>(columns, squared_norms, d, minus_two_q, limit, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) std::size_t scan_avx2(const double* columns, const double* squared_norms,
                                                          std::size_t d, const double* minus_two_q,
                                                          const double* limit, Survivor* out) {
  return scan<4, 2>(columns, squared_norms, d, minus_two_q, limit, out);
}

__attribute__((target("avx2,fma"))) void lower_bounds_avx2(const double* low, const double* high, std::size_t blocks,
                                                           std::size_t d, const double* q, double* lower) {
  lower_bounds(low, high, blocks, d, q, lower);
}

__attribute__((target("avx512f,avx512dq"))) void lower_bounds_avx512(const double* low, const double* high,
                                                                    std::size_t blocks, std::size_t d, const double* q,
                                                                    double* lower) {
  lower_bounds(low, high, blocks, d, q, lower);
}

__attribute__((target("avx512f,avx512dq"))) std::size_t scan_avx512(const double* columns, const double* squared_norms,
                                                          std::size_t d, const double* minus_two_q,
                                                          const double* limit, Survivor* out) {
  return scan<8, 2>(columns, squared_norms, d, minus_two_q, limit, out);
}
#endif

struct Variant {
  const char* name;
  ScanFn scan;
  BoundsFn bounds;
};

Variant best_variant() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return {"avx512", scan_avx512, lower_bounds_avx512};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {"avx2", scan_avx2, lower_bounds_avx2};
#endif
  return {"baseline", scan_baseline, lower_bounds_baseline};
}

std::atomic<const Variant*>& chosen() {
  static const Variant best = best_variant();
  static std::atomic<const Variant*> current{&best};
  return current;
}

}  // namespace

std::size_t scan_block(const double* columns, const double* squared_norms, std::size_t d, const double* minus_two_q,
                       const double* limit, Survivor* out) {
  return chosen().load(std::memory_order_relaxed)->scan(columns, squared_norms, d, minus_two_q, limit, out);
}

void box_gaps(const double* low, const double* high, std::size_t blocks, std::size_t d, const double* q,
              double* lower) {
  chosen().load(std::memory_order_relaxed)->bounds(low, high, blocks, d, q, lower);
}

const char* scan_block_variant() { return chosen().load(std::memory_order_relaxed)->name; }

bool use_scan_block_variant(std::string_view name) {
  static const Variant baseline{"baseline", scan_baseline, lower_bounds_baseline};
#if defined(__x86_64__) && defined(__GNUC__)
  static const Variant avx2{"avx2", scan_avx2, lower_bounds_avx2}, avx512{"avx512", scan_avx512, lower_bounds_avx512};
  __builtin_cpu_init();
  if (name == "avx512" && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return chosen() = &avx512, true;
  if (name == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return chosen() = &avx2, true;
#endif
  if (name == "baseline") return chosen() = &baseline, true;
  return false;
}

}  // namespace robustfit::neighbors::detail
