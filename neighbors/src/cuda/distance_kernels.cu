// Fused direct-distance kernels: a 64-query x 128-row block per 256 threads, each thread a 4 x 8
// register tile, features staged through shared memory 8 at a time. Every pair's distance is
// accumulated feature by feature in order with separately rounded operations (the spec's
// direct distance), so no error bound is needed: the value compared is the value returned.
// Two epilogues: write the block (thresholds from a sample) or append the rows within a
// per-query threshold to that query's candidate list (the full pass; nothing m x n is held).
#include <cuda_runtime.h>

#include <limits>
#include <type_traits>

#include "check.hpp"
#include "kernels.hpp"
#include "rounded_ops.cuh"
#include "warp_append.cuh"

namespace robustfit::neighbors::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kQueriesPerBlock = 64;
constexpr int kRowsPerBlock = 128;
constexpr int kQueriesPerThread = 4;  // 16 thread rows x 4
constexpr int kRowsPerThread = 8;     // 16 thread columns x 8
constexpr int kFeatureChunk = 8;

struct WriteBlock {};
struct FilterRows {};

template <class T>
struct Params {
  const T* queries;
  std::size_t m;
  const T* train;      // row-major, rows [0, rows) addressed from here
  std::size_t rows;
  std::size_t d;
  const Row* row_ids;  // WriteBlock: original row of each train row (self check); may be null
  Row first_row;       // FilterRows: original row of train[0]
  const Row* self;
  // WriteBlock
  T* out;
  std::size_t ld;
  // FilterRows
  const T* thresholds;
  unsigned* counts;
  Row* cand_rows;
  T* cand_distances;
  std::size_t capacity;
};

template <class T, Distance kMetric, class Mode>
__global__ __launch_bounds__(kThreads) void distance_tile(Params<T> p) {
  __shared__ T sq[kFeatureChunk][kQueriesPerBlock];
  __shared__ T sx[kFeatureChunk][kRowsPerBlock];
  const int tr = threadIdx.x % 16;
  const int tq = threadIdx.x / 16;
  const std::size_t q0 = std::size_t(blockIdx.y) * kQueriesPerBlock;
  const std::size_t r0 = std::size_t(blockIdx.x) * kRowsPerBlock;

  T acc[kQueriesPerThread][kRowsPerThread];
#pragma unroll
  for (int i = 0; i < kQueriesPerThread; ++i)
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) acc[i][j] = T(0);

  for (std::size_t c0 = 0; c0 < p.d; c0 += kFeatureChunk) {
    for (int e = threadIdx.x; e < kQueriesPerBlock * kFeatureChunk; e += kThreads) {
      const int qq = e / kFeatureChunk, cc = e % kFeatureChunk;
      const std::size_t q = q0 + qq, c = c0 + cc;
      sq[cc][qq] = (q < p.m && c < p.d) ? p.queries[q * p.d + c] : T(0);
    }
    for (int e = threadIdx.x; e < kRowsPerBlock * kFeatureChunk; e += kThreads) {
      const int rr = e / kFeatureChunk, cc = e % kFeatureChunk;
      const std::size_t r = r0 + rr, c = c0 + cc;
      sx[cc][rr] = (r < p.rows && c < p.d) ? p.train[r * p.d + c] : T(0);
    }
    __syncthreads();
    const int chunk = int(p.d - c0 < kFeatureChunk ? p.d - c0 : kFeatureChunk);
    for (int cc = 0; cc < chunk; ++cc) {
      T qv[kQueriesPerThread], xv[kRowsPerThread];
#pragma unroll
      for (int i = 0; i < kQueriesPerThread; ++i) qv[i] = sq[cc][tq + 16 * i];
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) xv[j] = sx[cc][tr + 16 * j];
#pragma unroll
      for (int i = 0; i < kQueriesPerThread; ++i)
#pragma unroll
        for (int j = 0; j < kRowsPerThread; ++j) {
          const T diff = sub_rn(qv[i], xv[j]);
          if constexpr (kMetric == Distance::euclidean)
            acc[i][j] = add_rn(acc[i][j], mul_rn(diff, diff));
          else
            acc[i][j] = add_rn(acc[i][j], diff < T(0) ? -diff : diff);
        }
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kQueriesPerThread; ++i) {
    const std::size_t q = q0 + tq + 16 * i;
    if (q >= p.m) continue;
    const Row self = p.self ? p.self[q] : kNoRow;
    if constexpr (std::is_same_v<Mode, WriteBlock>) {
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) {
        const std::size_t r = r0 + tr + 16 * j;
        if (r >= p.rows) continue;
        T dist = kMetric == Distance::euclidean ? sqrt_rn(acc[i][j]) : acc[i][j];
        if (p.row_ids && p.row_ids[r] == self) dist = std::numeric_limits<T>::infinity();
        p.out[q * p.ld + r] = dist;
      }
    } else {
      const T threshold = p.thresholds[q];
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) {
        const std::size_t r = r0 + tr + 16 * j;
        if (r >= p.rows) continue;
        const T dist = kMetric == Distance::euclidean ? sqrt_rn(acc[i][j]) : acc[i][j];
        const Row row = p.first_row + Row(r);
        if (!(dist <= threshold) || row == self) continue;
        const unsigned slot = atomicAdd(&p.counts[q], 1u);
        if (slot < p.capacity) {
          p.cand_rows[q * p.capacity + slot] = row;
          p.cand_distances[q * p.capacity + slot] = dist;
        }
      }
    }
  }
}

template <class T, class Mode>
void launch(const Params<T>& p, Distance metric, cudaStream_t stream) {
  if (p.m == 0 || p.rows == 0) return;
  const dim3 grid{unsigned((p.rows + kRowsPerBlock - 1) / kRowsPerBlock),
                  unsigned((p.m + kQueriesPerBlock - 1) / kQueriesPerBlock)};
  if (metric == Distance::euclidean)
    distance_tile<T, Distance::euclidean, Mode><<<grid, kThreads, 0, stream>>>(p);
  else
    distance_tile<T, Distance::manhattan, Mode><<<grid, kThreads, 0, stream>>>(p);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
__global__ void pad_kernel(T* distances, const unsigned* counts, std::size_t m,
                           std::size_t capacity, std::size_t used) {
  const std::size_t q = blockIdx.y;
  const std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= m || j >= used) return;
  if (j >= counts[q]) distances[q * capacity + j] = std::numeric_limits<T>::infinity();
}

// One block per query (grid-stride over its candidates).
template <class T>
__global__ void keep_kernel(const Row* rows, const T* distances, const unsigned* counts,
                            const T* tau, std::size_t capacity, Row* out_rows, T* out_distances,
                            unsigned* kept) {
  const std::size_t q = blockIdx.x;
  const std::size_t count = counts[q] < capacity ? counts[q] : capacity;
  const T t = tau[q];
  const std::size_t base = q * capacity;
  // Whole warps walk the candidates together (warp_append_slot needs every lane).
  for (std::size_t first = threadIdx.x - threadIdx.x % 32; first < count; first += blockDim.x) {
    const std::size_t j = first + threadIdx.x % 32;
    const T dist = j < count ? distances[base + j] : T(0);
    const bool take = j < count && dist <= t;
    const unsigned slot = warp_append_slot(&kept[q], take);
    if (take) {
      out_rows[base + slot] = rows[base + j];
      out_distances[base + slot] = dist;
    }
  }
}

template <class T>
__global__ void fill_kernel(T* values, std::size_t count, T value) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) values[i] = value;
}

template <class T>
__global__ void write_lists_kernel(const Row* rows, const T* distances, const unsigned* kept,
                                   std::size_t m, std::size_t capacity, std::size_t k,
                                   const std::uint32_t* dest, std::int64_t* out_rows,
                                   double* out_distances) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= m * k) return;
  const std::size_t q = e / k, j = e % k;
  const std::size_t at = (dest ? std::size_t(dest[q]) : q) * k + j;
  const bool valid = j < kept[q];
  out_rows[at] = valid ? std::int64_t(rows[q * capacity + j]) : -1;
  out_distances[at] = valid ? double(distances[q * capacity + j])
                            : std::numeric_limits<double>::quiet_NaN();
}

template <class T>
__global__ void gather_kernel(const T* src, const Row* ids, std::size_t s, std::size_t d, T* dst) {
  const std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= s * d) return;
  dst[e] = src[std::size_t(ids[e / d]) * d + e % d];
}

}  // namespace

template <class T>
void block_distances(const T* queries, std::size_t m, const T* train, const Row* row_ids,
                     std::size_t s, std::size_t d, Distance metric, const Row* self, T* out,
                     std::size_t ld, cudaStream_t stream) {
  Params<T> p{};
  p.queries = queries; p.m = m; p.train = train; p.rows = s; p.d = d; p.row_ids = row_ids;
  p.self = self; p.out = out; p.ld = ld;
  launch<T, WriteBlock>(p, metric, stream);
}

template <class T>
void filter_candidates(const T* queries, std::size_t m, const T* train, std::size_t begin,
                       std::size_t end, std::size_t d, Distance metric, const Row* self,
                       const T* thresholds, unsigned* counts, Row* rows, T* distances,
                       std::size_t capacity, cudaStream_t stream) {
  Params<T> p{};
  p.queries = queries; p.m = m; p.train = train + begin * d; p.rows = end - begin; p.d = d;
  p.first_row = Row(begin); p.self = self; p.thresholds = thresholds; p.counts = counts;
  p.cand_rows = rows; p.cand_distances = distances; p.capacity = capacity;
  launch<T, FilterRows>(p, metric, stream);
}

template <class T>
void pad_with_infinity(T* distances, const unsigned* counts, std::size_t m, std::size_t capacity,
                       std::size_t used, cudaStream_t stream) {
  if (m == 0 || used == 0) return;
  const dim3 grid{unsigned((used + 255) / 256), unsigned(m)};
  pad_kernel<T><<<grid, 256, 0, stream>>>(distances, counts, m, capacity, used);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void keep_within(const Row* rows, const T* distances, const unsigned* counts, const T* tau,
                 std::size_t m, std::size_t capacity, Row* out_rows, T* out_distances,
                 unsigned* kept, cudaStream_t stream) {
  if (m == 0) return;
  RF_KNN_CUDA(cudaMemsetAsync(kept, 0, m * sizeof(unsigned), stream));
  keep_kernel<T><<<unsigned(m), 256, 0, stream>>>(rows, distances, counts, tau, capacity,
                                                  out_rows, out_distances, kept);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void fill(T* values, std::size_t count, T value, cudaStream_t stream) {
  if (count == 0) return;
  fill_kernel<T><<<unsigned((count + 255) / 256), 256, 0, stream>>>(values, count, value);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void write_lists(const Row* rows, const T* distances, const unsigned* kept, std::size_t m,
                 std::size_t capacity, std::size_t k, const std::uint32_t* dest,
                 std::int64_t* out_rows, double* out_distances, cudaStream_t stream) {
  if (m * k == 0) return;
  write_lists_kernel<T><<<unsigned((m * k + 255) / 256), 256, 0, stream>>>(
      rows, distances, kept, m, capacity, k, dest, out_rows, out_distances);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void gather_rows(const T* src, const Row* ids, std::size_t s, std::size_t d, T* dst,
                 cudaStream_t stream) {
  if (s * d == 0) return;
  gather_kernel<T><<<unsigned((s * d + 255) / 256), 256, 0, stream>>>(src, ids, s, d, dst);
  RF_KNN_CUDA(cudaGetLastError());
}

#define ROBUSTFIT_KNN_INSTANTIATE(T)                                                          \
  template void block_distances<T>(const T*, std::size_t, const T*, const Row*, std::size_t, \
                                   std::size_t, Distance, const Row*, T*, std::size_t,       \
                                   cudaStream_t);                                            \
  template void filter_candidates<T>(const T*, std::size_t, const T*, std::size_t,           \
                                     std::size_t, std::size_t, Distance, const Row*,         \
                                     const T*, unsigned*, Row*, T*, std::size_t,             \
                                     cudaStream_t);                                          \
  template void pad_with_infinity<T>(T*, const unsigned*, std::size_t, std::size_t,          \
                                     std::size_t, cudaStream_t);                             \
  template void keep_within<T>(const Row*, const T*, const unsigned*, const T*, std::size_t, \
                               std::size_t, Row*, T*, unsigned*, cudaStream_t);              \
  template void gather_rows<T>(const T*, const Row*, std::size_t, std::size_t, T*,           \
                               cudaStream_t);                                                \
  template void fill<T>(T*, std::size_t, T, cudaStream_t);                                   \
  template void write_lists<T>(const Row*, const T*, const unsigned*, std::size_t,           \
                               std::size_t, std::size_t, const std::uint32_t*,              \
                               std::int64_t*, double*, cudaStream_t);
ROBUSTFIT_KNN_INSTANTIATE(float)
ROBUSTFIT_KNN_INSTANTIATE(double)
#undef ROBUSTFIT_KNN_INSTANTIATE

}  // namespace robustfit::neighbors::cuda
