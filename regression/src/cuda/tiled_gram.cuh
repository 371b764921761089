#pragma once
// Gram matrices of wide designs in 4 x 4 register tiles. masked_gram_kernel gives each thread a
// few (row, column) pairs of the lower triangle and reads both factors of every product from
// shared memory: at q = 51 that bound it to ~4 % of the FP64 rate. Here each thread owns a 4 x 4
// tile of the triangle (8 shared loads for 16 products, the whole warp on one row: broadcasts).
// Two uses (subset_gram, up to 32 candidates with q(q+1)/2 > 256):
//  - kCands = 1, common = true: [X y]_C^T [X y]_C over the rows C that every candidate takes
//    (the finalists' h-subsets mostly agree: at 10^7 x 50 nearly all of each), summed once;
//  - kCands = 4, common = false: each candidate's sum over its other rows, four candidates per
//    block (a row's products go to the tiles of the candidates that take it).
// Deterministic: each thread adds its rows in row order, row groups and blocks are added in a
// fixed order (gram_reduce_kernel), and the grid does not depend on the device.
#include <cstddef>

namespace robustfit::regression::cuda::detail {

constexpr int kGramTile = 4;

// Tiles of 4 x 4 on a side of the padded q x q matrix.
__host__ __device__ inline int gram_tile_side(int q) { return (q + kGramTile - 1) / kGramTile; }

// Doubles of dynamic shared memory: the rows of a pass (padded to whole tiles), and room to add
// the row groups' tiles at the end.
__host__ __device__ inline int tiled_gram_shared_doubles(int threads, int q) {
  const int stride = gram_tile_side(q) * kGramTile;
  return threads * (stride > kGramTile * kGramTile ? stride : kGramTile * kGramTile);
}

// masks: one word per row, bit k set when candidate k takes the row; a row is common when all
// the bits of `all_taken` are set (all_taken = 0: no row is). With `kCommon` the common rows
// are summed into partial[blockIdx.x * pairs + ...]; otherwise the other rows of candidates
// first .. first + kCands - 1 (first = blockIdx.y * kCands, fewer than kCands at the end of m)
// into partial[((first + k) * gridDim.x + blockIdx.x) * pairs + ...] (masked_gram_kernel's
// layout). Entry (a, b), a >= b, at a (a + 1) / 2 + b. Needs q <= 64 (136 tiles <= kThreads).
template <int kThreads, int kCands, bool kCommon, class Scalar>
__global__ void __launch_bounds__(kThreads) tiled_gram_kernel(const Scalar* X, const Scalar* y, const unsigned* masks,
                                                              std::size_t n, int q, std::size_t m, unsigned all_taken,
                                                              double* partial) {
  static_assert(!kCommon || kCands == 1, "the common rows have one sum");
  constexpr int kWarps = kThreads / 32, kTileSize = kGramTile * kGramTile;
  extern __shared__ __align__(16) double rows_tile[];  // kThreads rows x stride
  __shared__ int warp_taken[kWarps];
  __shared__ unsigned row_bits[kThreads];  // the block's candidates that take each packed row
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
  const std::size_t first = std::size_t{blockIdx.y} * kCands;
  const int cands = kCommon ? 1 : static_cast<int>(min(std::size_t{kCands}, m - first));
  const unsigned group_bits = cands == 32 ? ~0u : (1u << cands) - 1u;
  double sum[kCands][kGramTile][kGramTile] = {};
  const int warp = static_cast<int>(threadIdx.x) / 32, warp_lane = static_cast<int>(threadIdx.x) % 32;
  for (std::size_t base = std::size_t{blockIdx.x} * kThreads; base < n; base += std::size_t{gridDim.x} * kThreads) {
    const std::size_t i = base + threadIdx.x;
    unsigned bits = 0;
    if (i < n) {
      const unsigned word = masks[i];
      const bool common = all_taken != 0 && (word & all_taken) == all_taken;
      bits = kCommon ? (common ? 1u : 0u) : (common ? 0u : (word >> first) & group_bits);
    }
    // The pass's rows with a bit, packed in row order at the front of the tile.
    const unsigned ballot = __ballot_sync(0xffffffffu, bits != 0);
    if (warp_lane == 0) warp_taken[warp] = __popc(ballot);
    __syncthreads();
    int before = 0, taken = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      before += w < warp ? warp_taken[w] : 0;
      taken += warp_taken[w];
    }
    if (bits != 0) {
      const int at = before + __popc(ballot & ((1u << warp_lane) - 1u));
      row_bits[at] = bits;
      double* row = rows_tile + at * stride;
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
        const unsigned row_cands = row_bits[r];  // the same for the whole warp: no divergence
#pragma unroll
        for (int k = 0; k < kCands; ++k)
          if ((row_cands >> k) & 1u)
#pragma unroll
            for (int u = 0; u < kGramTile; ++u)
#pragma unroll
              for (int v = 0; v < kGramTile; ++v) sum[k][u][v] = fma(a[u], b[v], sum[k][u][v]);
      }
    __syncthreads();  // before the next pass overwrites the tile
  }
  // Per candidate: the row groups' tiles added in group order (through the free tile), written out.
  const int pairs = q * (q + 1) / 2;
  double* sums = rows_tile;  // groups x span x 16
#pragma unroll
  for (int k = 0; k < kCands; ++k) {
    if (k >= cands) break;
    if (owns_tile)
#pragma unroll
      for (int u = 0; u < kGramTile; ++u)
#pragma unroll
        for (int v = 0; v < kGramTile; ++v) sums[(group * span + lane) * kTileSize + u * kGramTile + v] = sum[k][u][v];
    __syncthreads();
    const std::size_t block = kCommon ? blockIdx.x : (first + k) * gridDim.x + blockIdx.x;
    double* out = partial + block * static_cast<std::size_t>(pairs);
    for (int t = static_cast<int>(threadIdx.x); t < tiles * kTileSize; t += kThreads) {
      const int tile = t / kTileSize, u = t / kGramTile % kGramTile, v = t % kGramTile;
      int tile_a = 0;
      while ((tile_a + 1) * (tile_a + 2) / 2 <= tile) ++tile_a;
      const int a = tile_a * kGramTile + u, b = (tile - tile_a * (tile_a + 1) / 2) * kGramTile + v;
      if (a >= q || b > a) continue;  // padding, or the upper half of a diagonal tile
      double total = 0;
      for (int g = 0; g < groups; ++g) total += sums[(g * span + tile) * kTileSize + u * kGramTile + v];
      out[a * (a + 1) / 2 + b] = total;
    }
    __syncthreads();  // before the next candidate's tiles overwrite the sums
  }
}

}  // namespace robustfit::regression::cuda::detail
