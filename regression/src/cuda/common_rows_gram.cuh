#pragma once
// The augmented Gram matrix [X y]_C^T [X y]_C of the rows C that every candidate of a C-step
// call takes (the finalists' h-subsets mostly agree: at 10^7 x 50 the shared rows are nearly all
// of each h-subset). subset_gram sums it once for all candidates here and leaves only the rows
// they disagree on to masked_gram_kernel, which reads every row's products from shared memory
// twice per product; here each thread owns a 4 x 4 tile of the lower triangle (8 shared loads
// for 16 products, the whole warp on one row), so the sum runs near the FP64 rate.
// Deterministic: each thread adds its rows in row order, row groups and blocks are added in a
// fixed order (gram_reduce_kernel), and the grid does not depend on the device.
#include <cstddef>

namespace robustfit::regression::cuda::detail {

constexpr int kGramTile = 4;

// Tiles of 4 x 4 on a side of the padded q x q matrix.
__host__ __device__ inline int gram_tile_side(int q) { return (q + kGramTile - 1) / kGramTile; }

// Doubles of dynamic shared memory: the rows of a pass (padded to whole tiles), and room to add
// the row groups' tiles at the end.
__host__ __device__ inline int common_gram_shared_doubles(int threads, int q) {
  const int stride = gram_tile_side(q) * kGramTile;
  return threads * (stride > kGramTile * kGramTile ? stride : kGramTile * kGramTile);
}

// masks: one word per row, bit k set when candidate k takes the row; a row is common when all
// the bits of `all_taken` are set. partial: gridDim.x x q(q+1)/2, entry (a, b), a >= b, of
// block j at j * pairs + a (a + 1) / 2 + b. Needs q <= 64 (16 tiles a side, 136 tiles <= kThreads).
template <int kThreads, class Scalar>
__global__ void __launch_bounds__(kThreads) common_rows_gram_kernel(const Scalar* X, const Scalar* y,
                                                                    const unsigned* masks, std::size_t n, int q,
                                                                    unsigned all_taken, double* partial) {
  constexpr int kWarps = kThreads / 32;
  extern __shared__ __align__(16) double rows_tile[];  // kThreads rows x stride
  __shared__ int warp_taken[kWarps];
  const int side = gram_tile_side(q), stride = side * kGramTile, tiles = side * (side + 1) / 2;
  // Row groups of whole warps, so that a warp's threads read the same row (broadcast loads).
  const int span = (tiles + 31) / 32 * 32, groups = kThreads / span;
  const int group = static_cast<int>(threadIdx.x) / span, lane = static_cast<int>(threadIdx.x) % span;
  const bool owns_tile = group < groups && lane < tiles;
  int ta = 0, tb = 0;  // this thread's tile: rows 4 ta .., columns 4 tb .., ta >= tb
  if (owns_tile) {
    while ((ta + 1) * (ta + 2) / 2 <= lane) ++ta;
    tb = lane - ta * (ta + 1) / 2;
  }
  double sum[kGramTile][kGramTile] = {};
  const int warp = static_cast<int>(threadIdx.x) / 32, warp_lane = static_cast<int>(threadIdx.x) % 32;
  for (std::size_t base = std::size_t{blockIdx.x} * kThreads; base < n; base += std::size_t{gridDim.x} * kThreads) {
    const std::size_t i = base + threadIdx.x;
    const bool take = i < n && (masks[i] & all_taken) == all_taken;
    // The pass's common rows, packed in row order at the front of the tile.
    const unsigned ballot = __ballot_sync(0xffffffffu, take);
    if (warp_lane == 0) warp_taken[warp] = __popc(ballot);
    __syncthreads();
    int before = 0, taken = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      before += w < warp ? warp_taken[w] : 0;
      taken += warp_taken[w];
    }
    if (take) {
      double* row = rows_tile + (before + __popc(ballot & ((1u << warp_lane) - 1u))) * stride;
      for (int c = 0; c + 1 < q; ++c) row[c] = static_cast<double>(X[static_cast<std::size_t>(c) * n + i]);
      row[q - 1] = static_cast<double>(y[i]);
      for (int c = q; c < stride; ++c) row[c] = 0;
    }
    __syncthreads();
    if (owns_tile)
      for (int r = group; r < taken; r += groups) {
        const double2* row = reinterpret_cast<const double2*>(rows_tile + r * stride);
        const double2 a01 = row[2 * ta], a23 = row[2 * ta + 1], b01 = row[2 * tb], b23 = row[2 * tb + 1];
        const double a[kGramTile] = {a01.x, a01.y, a23.x, a23.y}, b[kGramTile] = {b01.x, b01.y, b23.x, b23.y};
#pragma unroll
        for (int u = 0; u < kGramTile; ++u)
#pragma unroll
          for (int v = 0; v < kGramTile; ++v) sum[u][v] = fma(a[u], b[v], sum[u][v]);
      }
    __syncthreads();  // before the next pass overwrites the tile
  }
  // The row groups' tiles added in group order (through the free tile), then written out.
  double* sums = rows_tile;  // groups x span x 16
  if (owns_tile)
#pragma unroll
    for (int u = 0; u < kGramTile; ++u)
#pragma unroll
      for (int v = 0; v < kGramTile; ++v) sums[(group * span + lane) * kGramTile * kGramTile + u * kGramTile + v] = sum[u][v];
  __syncthreads();
  const int pairs = q * (q + 1) / 2;
  double* out = partial + std::size_t{blockIdx.x} * static_cast<std::size_t>(pairs);
  for (int t = static_cast<int>(threadIdx.x); t < tiles * kGramTile * kGramTile; t += kThreads) {
    const int tile = t / (kGramTile * kGramTile), u = t / kGramTile % kGramTile, v = t % kGramTile;
    int tile_a = 0;
    while ((tile_a + 1) * (tile_a + 2) / 2 <= tile) ++tile_a;
    const int a = tile_a * kGramTile + u, b = (tile - tile_a * (tile_a + 1) / 2) * kGramTile + v;
    if (a >= q || b > a) continue;  // padding, or the upper half of a diagonal tile
    double total = 0;
    for (int g = 0; g < groups; ++g) total += sums[(g * span + tile) * kGramTile * kGramTile + u * kGramTile + v];
    out[a * (a + 1) / 2 + b] = total;
  }
}

}  // namespace robustfit::regression::cuda::detail
