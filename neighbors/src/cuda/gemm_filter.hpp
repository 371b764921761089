#pragma once
// The GEMM-form filter of the spec (euclidean only), for large d where the fused direct kernel
// is several times the GEMM floor. With s' = |q|^2 + |x|^2 - 2 q.x (q.x by cuBLAS, norms here)
// and M = 2 (|q|^2 + |x|^2) >= (|q| + |x|)^2,
//   e = 3 (d + 4) u M + 32 (d + 4) tiny      (u: unit roundoff, tiny: smallest normal number)
// bounds |s' - s| for s THE direct squared distance (docs/KNN_CUDA.md derives it: both forms'
// roundings, any summation order and FMA inside the GEMM, underflow even when flushed to zero;
// c = 3 instead of the spec's example 2 absorbs the rounding of e itself and of the norms).
// Upper bounds sqrt(s' + e) (rounded up) give the sample thresholds; rows with s' - e <= T^2
// (1 + 4u) are candidates, which then get THE direct distance. Overflow and NaN bounds count
// as "maybe": +inf upper bounds, always a candidate. Launchers: device pointers, one stream.
// Float dot products may come from TF32 tensor cores (inputs cut to 10 mantissa bits); the bound
// then adds tf32 * sqrt(|q|^2) sqrt(|x|^2) (tf32_bound_factor; derivation in docs/KNN_CUDA.md).
// tf32 = 0: full-precision dot products, the bound above alone.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "kernels.hpp"

namespace robustfit::neighbors::cuda {

// The factor of the TF32 term for d features (float only; > 0).
float tf32_bound_factor(std::size_t d);

// out[i] = sum_j rows[i * d + j]^2 (any rounding; the bound covers it).
template <class T>
void squared_norms(const T* rows, std::size_t count, std::size_t d, T* out, cudaStream_t stream);

// In place over a column-major block holding dots[q * ld + j] = q.x_j (j < s, q < m): the upper
// bound of THE direct distance, +inf where row_ids[j] == self[q] (self may be null).
template <class T>
void dots_to_upper_bounds(T* dots, std::size_t ld, std::size_t m, std::size_t s, std::size_t d,
                          const T* query_norms, const T* row_norms, const Row* row_ids,
                          const Row* self, T tf32, cudaStream_t stream);

// out[i] = sqrt(norms[i]) rounded up: the rows' factor of the TF32 term, once per training row.
template <class T>
void rounded_up_roots(const T* norms, std::size_t count, T* out, cudaStream_t stream);

// dots[q * rows + r] = q.x_{first_row + r}: appends first_row + r to query q's list (same rules as
// filter_candidates: counts keep counting past capacity) when its lower bound s' - e is within the
// threshold of THE direct distance thresholds[q], and it is not self[q]. Rows only. row_roots:
// rounded_up_roots of row_norms (read only when tf32 > 0; may be null otherwise).
template <class T>
void filter_by_bounds(const T* dots, std::size_t rows, std::size_t m, std::size_t d,
                      const T* query_norms, const T* row_norms, const T* row_roots, Row first_row, const Row* self,
                      const T* thresholds, unsigned* counts, Row* cand_rows,
                      std::size_t capacity, T tf32, cudaStream_t stream);

// THE direct euclidean distance of each listed candidate (j < min(counts[q], capacity)):
// cand_distances[q * capacity + j] = distance(query q, train[cand_rows[q * capacity + j]]).
template <class T>
void candidate_distances(const T* queries, std::size_t m, const T* train, std::size_t d,
                         const unsigned* counts, const Row* cand_rows, T* cand_distances,
                         std::size_t capacity, cudaStream_t stream);

}  // namespace robustfit::neighbors::cuda
