#pragma once
// THE distance of the kNN module (docs/KNN.md): terms summed in column order, every product and
// sum rounded separately (this file's .cpp is compiled with -ffp-contract=off), so the CPU and
// the CUDA engine (__dmul_rn/__dadd_rn) return bit-identical values.
#include <cstddef>

#include "robustfit/neighbors/knn.hpp"

namespace robustfit::neighbors::detail {

double squared_euclidean(const double* q, const double* x, std::size_t d);
double manhattan(const double* q, const double* x, std::size_t d);
// sqrt(squared_euclidean) or manhattan.
double direct_distance(const double* q, const double* x, std::size_t d, Metric metric);
// out[r] = direct_distance(q, train row r) for rows [0, rows) of a row-major block of width d.
void direct_distances(const double* q, const double* block, std::size_t rows, std::size_t d, Metric metric, double* out);

}  // namespace robustfit::neighbors::detail
