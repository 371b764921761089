#pragma once
// Raw-pointer GPU operations of the CUDA regression engine (no Eigen here: nvcc compiles the
// .cu files behind these, the engine itself is host C++). All matrices are column-major,
// candidates are columns; every call is asynchronous on `stream` unless it says otherwise.
//
// Scalar is the engine's working precision (float or double; both are instantiated): the
// data, residuals, squared residuals and thresholds are Scalar. Sums (trimmed sums, Gram
// matrices) are accumulated in double and written as double, whatever Scalar is.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace robustfit::regression::cuda {

// CUDA grids hold at most 65535 blocks in y. Kernels with one grid row per candidate column
// are launched over slices of at most that many columns: body(first_column, count).
inline constexpr std::size_t kMaxGridY = 65535;
template <class Body>
void for_column_slices(std::size_t columns, Body&& body) {
  for (std::size_t first = 0; first < columns; first += kMaxGridY)
    body(first, static_cast<unsigned>(std::min(kMaxGridY, columns - first)));
}

// R(:, j) = y - X(:, first_col:) * B(first_col:, j) for m candidates (n x m, ld n): one GEMM
// (cublasSgemm / cublasDgemm). first_col = 1 leaves out the intercept column (LMS intercept
// adjustment).
template <class Scalar>
void residuals(cublasHandle_t blas, const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p,
               std::size_t first_col, const Scalar* d_B, std::size_t m, Scalar* d_R, cudaStream_t stream);

// R2(:, j) = (y - X B(:, j))^2 for m candidates (n x m, ld n) in one read of X, for p <= 64
// (the engine allows 62): LTS's squared residuals without residuals' three passes.
template <class Scalar>
void squared_residuals(const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p, const Scalar* d_B,
                       std::size_t m, Scalar* d_R2, cudaStream_t stream);

// Per column j with threshold t_j (the h-th smallest value): objective_j =
// sum_{v < t_j} v + (h - below_j) t_j (accumulated in double), below_j = #{v < t_j} and, unless
// d_equal is null, equal_j = #{v == t_j}. Deterministic (fixed summation order). d_scratch holds
// trimmed_sums_scratch(n, m) doubles.
std::size_t trimmed_sums_scratch(std::size_t n, std::size_t m);
template <class Scalar>
void trimmed_sums(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t, std::size_t h,
                  double* d_scratch, double* d_objective, std::int64_t* d_below, std::int64_t* d_equal,
                  cudaStream_t stream);

// The h rows of each column with the smallest values, in row order, ties (v == t_j) taken
// first-come: d_rows is h x m. d_scratch holds h_subset_scratch(n, m) ints (with room for
// subset_gram's mask bits).
std::size_t h_subset_scratch(std::size_t n, std::size_t m);
template <class Scalar>
void h_subset_rows(const Scalar* d_R2, std::size_t n, std::size_t m, const Scalar* d_t,
                   const std::int64_t* d_below, std::size_t h, int* d_scratch, std::int32_t* d_rows, cudaStream_t stream);

// Augmented Gram matrices of the h-subsets of h_subset_rows, G_j = [X y]_H^T [X y]_H,
// (p+1) x (p+1) each, lower triangle filled (d_G: (p+1)^2 x m), accumulated in double, computed
// without a row list: a bit per row and candidate, then one read of [X y] per 32 candidates
// (fewer for p > 21; for p > 21 and at most 32 candidates, the rows all of them take summed
// once and each candidate's others four a block, in register tiles: tiled_gram.cuh). d_subset_scratch holds h_subset_scratch(n, m) ints, d_gram_scratch
// subset_gram_scratch(n, p, m) doubles. Deterministic (fixed summation order). d_equal (may be
// null): trimmed_sums' counts of ties; a column whose ties are all taken (equal_j <= h - below_j,
// the usual case: the row at t alone) skips the pass that orders them.
std::size_t subset_gram_scratch(std::size_t n, std::size_t p, std::size_t m);
template <class Scalar>
void subset_gram(const Scalar* d_X, const Scalar* d_y, const Scalar* d_R2, std::size_t n, std::size_t p, std::size_t m,
                 const Scalar* d_t, const std::int64_t* d_below, const std::int64_t* d_equal, std::size_t h,
                 int* d_subset_scratch, double* d_gram_scratch, double* d_G, cudaStream_t stream);

// For columns sorted ascending (n x m): the shortest window of h consecutive values, as its
// center and half width in double (first such window on ties, as the CPU engine).
template <class Scalar>
void shortest_windows(const Scalar* d_sorted, std::size_t n, std::size_t m, std::size_t h, double* d_center,
                      double* d_half, cudaStream_t stream);

// Sorts every column of an n x m matrix (d_in -> d_out) with cub::DeviceSegmentedSort.
// sort_columns_temp_bytes gives the scratch d_temp needs.
template <class Scalar>
std::size_t sort_columns_temp_bytes(std::size_t n, std::size_t m);
template <class Scalar>
void sort_columns(const Scalar* d_in, Scalar* d_out, std::size_t n, std::size_t m, void* d_temp,
                  std::size_t temp_bytes, cudaStream_t stream);

// Bounds on each column's LMS objective (the squared half width of its shortest window of h
// consecutive sorted values, as shortest_windows computes it) without sorting, for
// n >= window_sample_size(): d_lower[j] <= objective_j <= d_upper[j] (window_ops.cu says why);
// a column without bounds gets 0 and infinity. q = window_sample_span(n, h): the sample values
// that a sample window spans (the sample's share of max(h, n + 1 - h) rows and a margin).
// Scratch: d_range 4 m doubles, d_hist kWindowBins m, d_inside m.
inline constexpr std::size_t kWindowBins = 2048;
std::size_t window_sample_size();
std::size_t window_sample_span(std::size_t n, std::size_t h);
template <class Scalar>
void window_bounds(const Scalar* d_R, std::size_t n, std::size_t m, std::size_t h, std::size_t q, double* d_range,
                   unsigned* d_hist, unsigned long long* d_inside, double* d_lower, double* d_upper,
                   cudaStream_t stream);

// Sorts one column of n values (cub::DeviceRadixSort: the same order as sort_columns).
template <class Scalar>
std::size_t sort_column_temp_bytes(std::size_t n);
template <class Scalar>
void sort_column(const Scalar* d_in, Scalar* d_out, std::size_t n, void* d_temp, std::size_t temp_bytes,
                 cudaStream_t stream);

// MCD: D(i, j) = |W_j x_i - s_j|^2 for m candidates, from Y = X [W_1^T ... W_m^T] (one GEMM,
// n x (p m) into d_Y) with d_Wt (p x p m) and the shifts s_j = W_j c_j (d_shifts, p x m).
template <class Scalar>
void mahalanobis_squared(cublasHandle_t blas, const Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_Wt,
                         const Scalar* d_shifts, std::size_t m, Scalar* d_Y, Scalar* d_D, cudaStream_t stream);

// Columns of an n x p matrix (ld n): D(i, j) = X(i, j) - centers[j], or its absolute value
// (FAST-MCD's MAD is a column's h-th smallest absolute deviation from its median).
template <class Scalar>
void column_deviations(const Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_centers, bool absolute, Scalar* d_D,
                       cudaStream_t stream);
// X(i, j) = (X(i, j) - centers[j]) / scales[j] in place: the host's expression, rounded alike.
template <class Scalar>
void standardize_columns(Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_centers, const Scalar* d_scales,
                         cudaStream_t stream);
// Sums over the n rows of X (n x p, ld n, p <= kMaxMomentColumns) about `centers`: with pairs,
// d_out[j (j + 1) / 2 + k] = sum_i (X(i, j) - c_j)(X(i, k) - c_k) for k <= j; without,
// d_out[j] = sum_i (X(i, j) - c_j). In double, in a fixed order (deterministic), without cuBLAS
// (whose first call in a process loads its kernels: 0.1 s). d_scratch: column_moments_scratch(p).
inline constexpr std::size_t kMaxMomentColumns = 63;
inline constexpr unsigned kMomentBlocks = 512;
std::size_t column_moments_scratch(std::size_t p);
template <class Scalar>
void column_moments(const Scalar* d_X, std::size_t n, std::size_t p, const Scalar* d_centers, bool pairs, double* d_scratch,
                    double* d_out, cudaStream_t stream);
// v[i] = value for i < n.
template <class Scalar>
void fill(Scalar* d_v, std::size_t n, Scalar value, cudaStream_t stream);
// The rows `rows` (m of them) of [X y] into A (m x (p + 1), ld m).
template <class Scalar>
void gather_rows(const Scalar* d_X, const Scalar* d_y, std::size_t n, std::size_t p, const std::int64_t* d_rows,
                 std::size_t m, Scalar* d_A, cudaStream_t stream);

}  // namespace robustfit::regression::cuda
