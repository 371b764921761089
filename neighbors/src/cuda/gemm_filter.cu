// GEMM-form filter kernels (gemm_filter.hpp): bounds from cuBLAS dot products, candidate lists,
// and THE direct distance of the candidates only.
#include <cuda_runtime.h>

#include <limits>

#include "check.hpp"
#include "gemm_filter.hpp"
#include "rounded_ops.cuh"
#include "warp_append.cuh"

namespace robustfit::neighbors::cuda {
namespace {

template <class T> struct Rounding;
template <> struct Rounding<float> {
  static constexpr float u = 0x1p-24f;
  static constexpr float tiny = 0x1p-126f;  // smallest normal: an op flushed to zero errs by less
};
template <> struct Rounding<double> {
  static constexpr double u = 0x1p-53;
  static constexpr double tiny = 0x1p-1022;
};

// The bound e of |s' - s| (gemm_filter.hpp) for one pair, from the two squared norms, with
// M = 2 (|q|^2 + |x|^2) >= (|q| + |x|)^2 (no product of norms to underflow or overflow).
// TF32 dot products add tf32 |q| |x| (q_root = sqrt(|q|^2)); a product of roots that underflows
// errs by less than tiny, inside the absolute term.
// x_root = sqrt_ru(xn), taken once per training row where the same rows meet many queries
// (row_roots of filter_by_bounds).
template <class T>
__device__ __forceinline__ T error_bound(T qn, T xn, T d4, T tf32, T q_root, T x_root) {
  const T m = T(2) * (qn + xn);
  const T e = T(3) * d4 * Rounding<T>::u * m + T(32) * d4 * Rounding<T>::tiny;
  return tf32 == T(0) ? e : e + tf32 * (q_root * x_root);
}

template <class T>
__device__ __forceinline__ T error_bound(T qn, T xn, T d4, T tf32, T q_root) {
  return error_bound(qn, xn, d4, tf32, q_root, tf32 == T(0) ? T(0) : sqrt_ru(xn));
}

template <class T>
__global__ void roots_kernel(const T* norms, std::size_t count, T* out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) out[i] = sqrt_ru(norms[i]);
}

template <class T>
__global__ void norms_kernel(const T* rows, std::size_t count, std::size_t d, T* out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const T* x = rows + i * d;
  T acc = 0;
  for (std::size_t j = 0; j < d; ++j) acc += x[j] * x[j];
  out[i] = acc;
}

template <class T>
__global__ void upper_bounds_kernel(T* dots, std::size_t ld, std::size_t s, T d4,
                                    const T* query_norms, const T* row_norms, const Row* row_ids,
                                    const Row* self, T tf32) {
  const std::size_t q = blockIdx.y;
  const T qn = query_norms[q];
  const T q_root = tf32 == T(0) ? T(0) : sqrt_ru(qn);
  const Row own = self ? self[q] : kNoRow;
  for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < s;
       j += std::size_t(gridDim.x) * blockDim.x) {
    const T xn = row_norms[j];
    const T sp = (qn + xn) - T(2) * dots[q * ld + j];
    const T upper = sqrt_ru(add_ru(sp > T(0) ? sp : T(0), error_bound(qn, xn, d4, tf32, q_root)));
    // NaN (overflowed norms) and the query's own row: no usable bound.
    const bool unusable = !(upper <= std::numeric_limits<T>::max()) ||
                          (row_ids && row_ids[j] == own);
    dots[q * ld + j] = unusable ? std::numeric_limits<T>::infinity() : upper;
  }
}

constexpr int kFilterThreads = 256;
// 16 pairs a thread, loaded before any is tested, and one atomicAdd per warp for all of them
// (a warp scan places each lane's candidates; no block barrier): a 2^14 x 2^14 tile with 4 pairs
// a thread and an atomic per warp and pair ran at a tenth of the memory bandwidth, its warps
// waiting on the atomics' results (a block-wide scan instead cost 25 % at n = 2^20).
constexpr int kFilterPerThread = 16;

// kTf32: the TF32 term with the rows' roots (float only); without it no roots are read or held.
template <class T, bool kTf32>
__global__ __launch_bounds__(kFilterThreads) void filter_kernel(
    const T* dots, std::size_t rows, T d4, const T* query_norms, const T* row_norms,
    const T* row_roots, Row first_row, const Row* self, const T* thresholds, unsigned* counts,
    Row* cand_rows, std::size_t capacity, T tf32) {
  const std::size_t q = blockIdx.y;
  const T qn = query_norms[q];
  const T q_root = kTf32 ? sqrt_ru(qn) : T(0);
  const T t = thresholds[q];
  // sqrt_rn(s) <= t implies s <= t^2 (1 + u)^2 <= t^2 (1 + 4u), rounded up.
  const T t2 = mul_ru(mul_ru(t, t), T(1) + T(4) * Rounding<T>::u);
  const Row own = self ? self[q] : kNoRow;
  const std::size_t base = std::size_t(blockIdx.x) * kFilterThreads * kFilterPerThread + threadIdx.x;
  T dot[kFilterPerThread], norm[kFilterPerThread];
#pragma unroll
  for (int i = 0; i < kFilterPerThread; ++i) {
    const std::size_t r = base + std::size_t(i) * kFilterThreads;
    dot[i] = r < rows ? dots[q * rows + r] : T(0);
    norm[i] = r < rows ? row_norms[r] : T(0);
  }
  unsigned taken = 0, mine = 0;  // bit i: pair i is a candidate
#pragma unroll
  for (int i = 0; i < kFilterPerThread; ++i) {
    const std::size_t r = base + std::size_t(i) * kFilterThreads;
    const T sp = (qn + norm[i]) - T(2) * dot[i];
    const T root = kTf32 && r < rows ? row_roots[r] : T(0);
    const T lower = sp - error_bound(qn, norm[i], d4, kTf32 ? tf32 : T(0), q_root, root);
    // NaN bounds stay candidates
    if (r < rows && !(lower > t2) && first_row + Row(r) != own) {
      taken |= 1u << i;
      ++mine;
    }
  }
  unsigned slot = warp_reserve(&counts[q], mine);
#pragma unroll
  for (int i = 0; i < kFilterPerThread; ++i) {
    if (!(taken >> i & 1u)) continue;
    if (slot < capacity) cand_rows[q * capacity + slot] = first_row + Row(base + std::size_t(i) * kFilterThreads);
    ++slot;
  }
}

// One warp per 32 candidates of a query: the warp reads each candidate row 32 features at a time
// (coalesced), every lane forms one separately rounded term (q_j - x_j)^2, the terms go through
// shared memory, and lane c adds candidate c's terms in feature order: the same operations in
// the same order as the fused kernel, so the same bits.
constexpr int kRecheckWarps = 4;  // 33.8 KB of shared terms in double

template <class T>
__global__ __launch_bounds__(kRecheckWarps * 32) void recheck_kernel(
    const T* queries, const T* train, std::size_t d, const unsigned* counts, const Row* cand_rows,
    T* cand_distances, std::size_t capacity) {
  __shared__ T terms[kRecheckWarps][32][33];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::size_t q = blockIdx.y;
  const std::size_t count = counts[q] < capacity ? counts[q] : capacity;
  const T* qp = queries + q * d;
  for (std::size_t first = (std::size_t(blockIdx.x) * kRecheckWarps + warp) * 32; first < count;
       first += std::size_t(gridDim.x) * kRecheckWarps * 32) {
    const std::size_t mine = first + lane;
    const Row my_row = mine < count ? cand_rows[q * capacity + mine] : Row(0);
    T acc = 0;
    for (std::size_t j0 = 0; j0 < d; j0 += 32) {
      const std::size_t j = j0 + lane;
      const T qj = j < d ? __ldg(qp + j) : T(0);
      for (int c = 0; c < 32; ++c) {
        const Row row = __shfl_sync(0xffffffffu, my_row, c);
        T term = 0;
        if (j < d && first + c < count) {
          const T diff = sub_rn(qj, __ldg(train + std::size_t(row) * d + j));
          term = mul_rn(diff, diff);
        }
        terms[warp][c][lane] = term;
      }
      __syncwarp();
      const int width = d - j0 < 32 ? int(d - j0) : 32;
      for (int t = 0; t < width; ++t) acc = add_rn(acc, terms[warp][lane][t]);
      __syncwarp();
    }
    if (mine < count) cand_distances[q * capacity + mine] = sqrt_rn(acc);
  }
}

// Few features: one thread per candidate, the same terms added in the same order (the warp
// form leaves 32 - d lanes idle on every row it reads).
constexpr std::size_t kRecheckThreadMaxD = 8;

template <class T>
__global__ __launch_bounds__(256) void recheck_thread_kernel(
    const T* queries, const T* train, std::size_t d, const unsigned* counts, const Row* cand_rows,
    T* cand_distances, std::size_t capacity) {
  const std::size_t q = blockIdx.y;
  const std::size_t count = counts[q] < capacity ? counts[q] : capacity;
  const T* qp = queries + q * d;
  for (std::size_t c = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; c < count;
       c += std::size_t(gridDim.x) * blockDim.x) {
    const T* xp = train + std::size_t(cand_rows[q * capacity + c]) * d;
    T acc = 0;
    for (std::size_t j = 0; j < d; ++j) {
      const T diff = sub_rn(__ldg(qp + j), __ldg(xp + j));
      acc = add_rn(acc, mul_rn(diff, diff));
    }
    cand_distances[q * capacity + c] = sqrt_rn(acc);
  }
}

unsigned blocks_for(std::size_t items, std::size_t per_block, std::size_t cap) {
  const std::size_t b = (items + per_block - 1) / per_block;
  return unsigned(b < 1 ? 1 : (b > cap ? cap : b));
}

}  // namespace

// TF32 inputs: |tf32(a) - a| <= eta |a|, eta = 2^-10 (10 stored mantissa bits, rounded or cut);
// products of TF32 values are exact in float; the float accumulation errs by at most
// gamma2_d = 2 d u / (1 - 2 d u) of sum |products| (2u per add: truncating adders too). So
// |fl(q.x) - q.x| <= (2 eta + eta^2 + gamma2_d (1 + eta)^2) |q| |x|, twice that in s'; the norms
// from our kernel give |q| |x| <= sqrt(qn) sqrt(xn) (1 + 2 gamma_d); the float evaluation of the
// term adds (1 + u)^4 and the 1/16 margin covers all of these.
float tf32_bound_factor(std::size_t d) {
  const double eta = 0x1p-10, u = 0x1p-24, du = double(d) * u;
  const double gamma2 = 2 * du / (1 - 2 * du), gamma = du / (1 - du);
  const double factor = 2 * (2 * eta + eta * eta + gamma2 * (1 + eta) * (1 + eta)) *
                        (1 + 2 * gamma) * (1 + 0x1p-4);
  return static_cast<float>(factor * (1 + 0x1p-20));  // the conversion may round down by u
}

template <class T>
void squared_norms(const T* rows, std::size_t count, std::size_t d, T* out, cudaStream_t stream) {
  if (count == 0) return;
  norms_kernel<T><<<unsigned((count + 255) / 256), 256, 0, stream>>>(rows, count, d, out);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void rounded_up_roots(const T* norms, std::size_t count, T* out, cudaStream_t stream) {
  if (count == 0) return;
  roots_kernel<T><<<unsigned((count + 255) / 256), 256, 0, stream>>>(norms, count, out);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void dots_to_upper_bounds(T* dots, std::size_t ld, std::size_t m, std::size_t s, std::size_t d,
                          const T* query_norms, const T* row_norms, const Row* row_ids,
                          const Row* self, T tf32, cudaStream_t stream) {
  if (m == 0 || s == 0) return;
  const dim3 grid{blocks_for(s, 256, 64), unsigned(m)};
  upper_bounds_kernel<T><<<grid, 256, 0, stream>>>(dots, ld, s, T(d + 4), query_norms, row_norms,
                                                   row_ids, self, tf32);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void filter_by_bounds(const T* dots, std::size_t rows, std::size_t m, std::size_t d,
                      const T* query_norms, const T* row_norms, const T* row_roots, Row first_row, const Row* self,
                      const T* thresholds, unsigned* counts, Row* cand_rows,
                      std::size_t capacity, T tf32, cudaStream_t stream) {
  if (m == 0 || rows == 0) return;
  const dim3 grid{unsigned((rows + kFilterThreads * kFilterPerThread - 1) /
                           (kFilterThreads * kFilterPerThread)),
                  unsigned(m)};
  if (tf32 != T(0))
    filter_kernel<T, true><<<grid, kFilterThreads, 0, stream>>>(dots, rows, T(d + 4), query_norms, row_norms,
                                                              row_roots, first_row, self, thresholds,
                                                              counts, cand_rows, capacity, tf32);
  else
    filter_kernel<T, false><<<grid, kFilterThreads, 0, stream>>>(dots, rows, T(d + 4), query_norms, row_norms,
                                                               row_roots, first_row, self, thresholds,
                                                               counts, cand_rows, capacity, tf32);
  RF_KNN_CUDA(cudaGetLastError());
}

template <class T>
void candidate_distances(const T* queries, std::size_t m, const T* train, std::size_t d,
                         const unsigned* counts, const Row* cand_rows, T* cand_distances,
                         std::size_t capacity, cudaStream_t stream) {
  if (m == 0) return;
  if (d <= kRecheckThreadMaxD) {
    const dim3 grid{blocks_for(capacity, 256, 4), unsigned(m)};
    recheck_thread_kernel<T><<<grid, 256, 0, stream>>>(queries, train, d, counts, cand_rows,
                                                       cand_distances, capacity);
    RF_KNN_CUDA(cudaGetLastError());
    return;
  }
  const dim3 grid{blocks_for(capacity, kRecheckWarps * 32, 8), unsigned(m)};
  recheck_kernel<T><<<grid, kRecheckWarps * 32, 0, stream>>>(queries, train, d, counts, cand_rows,
                                                             cand_distances, capacity);
  RF_KNN_CUDA(cudaGetLastError());
}

#define ROBUSTFIT_KNN_GEMM_INSTANTIATE(T)                                                     \
  template void squared_norms<T>(const T*, std::size_t, std::size_t, T*, cudaStream_t);      \
  template void rounded_up_roots<T>(const T*, std::size_t, T*, cudaStream_t);                \
  template void dots_to_upper_bounds<T>(T*, std::size_t, std::size_t, std::size_t,           \
                                        std::size_t, const T*, const T*, const Row*,         \
                                        const Row*, T, cudaStream_t);                        \
  template void filter_by_bounds<T>(const T*, std::size_t, std::size_t, std::size_t,         \
                                    const T*, const T*, const T*, Row, const Row*, const T*, \
                                    unsigned*, Row*, std::size_t, T, cudaStream_t);          \
  template void candidate_distances<T>(const T*, std::size_t, const T*, std::size_t,         \
                                       const unsigned*, const Row*, T*, std::size_t,         \
                                       cudaStream_t);
ROBUSTFIT_KNN_GEMM_INSTANTIATE(float)
ROBUSTFIT_KNN_GEMM_INSTANTIATE(double)
#undef ROBUSTFIT_KNN_GEMM_INSTANTIATE

}  // namespace robustfit::neighbors::cuda
