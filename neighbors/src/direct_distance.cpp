// Compiled with -ffp-contract=off (neighbors/CMakeLists.txt): no fused multiply-add.
#include "direct_distance.hpp"

#include <cmath>

namespace robustfit::neighbors::detail {

double squared_euclidean(const double* q, const double* x, std::size_t d) {
  double s = 0;
  for (std::size_t j = 0; j < d; ++j) {
    const double diff = q[j] - x[j];
    s += diff * diff;
  }
  return s;
}

double manhattan(const double* q, const double* x, std::size_t d) {
  double s = 0;
  for (std::size_t j = 0; j < d; ++j) s += std::fabs(q[j] - x[j]);
  return s;
}

double direct_distance(const double* q, const double* x, std::size_t d, Metric metric) {
  return metric == Metric::euclidean ? std::sqrt(squared_euclidean(q, x, d)) : manhattan(q, x, d);
}

void direct_distances(const double* q, const double* block, std::size_t rows, std::size_t d, Metric metric, double* out) {
  if (metric == Metric::euclidean) {
    for (std::size_t r = 0; r < rows; ++r) out[r] = std::sqrt(squared_euclidean(q, block + r * d, d));
  } else {
    for (std::size_t r = 0; r < rows; ++r) out[r] = manhattan(q, block + r * d, d);
  }
}

}  // namespace robustfit::neighbors::detail
