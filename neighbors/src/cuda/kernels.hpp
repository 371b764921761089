#pragma once
// Device steps of the CUDA kNN engine (launchers; device pointers in, one stream, no host sync).
// Distances are THE direct distances of the spec: per pair, sum over j = 0..d-1 in order of
// (q_j - x_j)^2 (euclidean, then a correctly rounded sqrt) or |q_j - x_j| (manhattan), every
// multiply and add separately rounded (no FMA), so they are bit-identical to the CPU engine's.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "robustfit/selection/cuda/workspace.hpp"

namespace robustfit::neighbors::cuda {

enum class Distance { euclidean, manhattan };

// Rows are 32-bit inside the engine (the engine checks n < 2^32 - 1).
using Row = std::uint32_t;
constexpr Row kNoRow = 0xffffffffu;

// Column-major distance block: out[q * ld + j] = distance(query q, train[j]) for q < m, j < s,
// where train is an s x d row-major block; +inf where row_ids[j] == self[q] (self may be null).
template <class T>
void block_distances(const T* queries, std::size_t m, const T* train, const Row* row_ids,
                     std::size_t s, std::size_t d, Distance metric, const Row* self, T* out,
                     std::size_t ld, cudaStream_t stream);

// For training rows [begin, end) of the row-major n x d `train`: every row with
// distance <= thresholds[q] (and != self[q]) is appended to query q's list at
// q * capacity + atomicAdd(&counts[q], 1) when that slot is < capacity (counts keep counting
// beyond capacity, so the caller sees an overflow and its size).
template <class T>
void filter_candidates(const T* queries, std::size_t m, const T* train, std::size_t begin,
                       std::size_t end, std::size_t d, Distance metric, const Row* self,
                       const T* thresholds, unsigned* counts, Row* rows, T* distances,
                       std::size_t capacity, cudaStream_t stream);

// distances[q * capacity + j] = +inf for counts[q] <= j < used (so every column selects alike).
template <class T>
void pad_with_infinity(T* distances, const unsigned* counts, std::size_t m, std::size_t capacity,
                       std::size_t used, cudaStream_t stream);

// Copies each query's candidates with distance <= tau[q] to out (same layout); kept[q] = count.
template <class T>
void keep_within(const Row* rows, const T* distances, const unsigned* counts, const T* tau,
                 std::size_t m, std::size_t capacity, Row* out_rows, T* out_distances,
                 unsigned* kept, cudaStream_t stream);

// Sorts each query's first kept[q] entries by (distance, row), in place (rows, distances);
// with only_longer_than = k, only the queries with kept[q] > k (ties at the k-th distance; the
// unordered mode needs no other order); 0: every query. Scratch from `workspace` (slots from
// `first_slot` on).
template <class T>
void sort_by_distance_then_row(Row* rows, T* distances, const unsigned* kept, std::size_t m,
                               std::size_t capacity, std::size_t only_longer_than,
                               selection::cuda::Workspace& workspace, std::size_t first_slot,
                               cudaStream_t stream);

// values[i] = value for i < count.
template <class T>
void fill(T* values, std::size_t count, T value, cudaStream_t stream);

// The first k entries of each query's kept list as the engine's output types, m x k:
// out_rows[p * k + j] = rows[q * capacity + j], out_distances likewise (-1 and NaN where
// j >= kept[q]: a query that is redone), p = dest[q] (dest null: p = q, compact).
template <class T>
void write_lists(const Row* rows, const T* distances, const unsigned* kept, std::size_t m,
                 std::size_t capacity, std::size_t k, const std::uint32_t* dest,
                 std::int64_t* out_rows, double* out_distances, cudaStream_t stream);

// dst[j] = src[ids[j] * d + c] for j < s, c < d: the sampled training rows, contiguous.
template <class T>
void gather_rows(const T* src, const Row* ids, std::size_t s, std::size_t d, T* dst,
                 cudaStream_t stream);

}  // namespace robustfit::neighbors::cuda
