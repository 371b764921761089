#pragma once
// Shared steps of knn_search, knn_predict and knn_loo: validation at the library boundary,
// standardisation, the engine, and the per-query reductions of prediction.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "engine.hpp"

namespace robustfit::neighbors::detail {

// Throws std::invalid_argument naming `what`, row and column (1-based) of a NaN/Inf.
void require_finite(const Eigen::MatrixXd& values, const std::string& what);
// Throws unless 1 <= k <= limit; `limit_text` says what the limit is ("n = 10").
void require_k(std::size_t k, std::size_t limit, const std::string& limit_text);
// response: n finite values; classification: integer codes >= 0. Returns the class count (0 in regression).
std::size_t check_response(const Eigen::VectorXd& response, std::size_t n, Mode mode);

// Training data and queries as the engine sees them (row-major, z-scored when asked).
struct Prepared {
  RowMatrix train, queries;
};
Prepared prepare(const Eigen::MatrixXd& train, const Eigen::MatrixXd* queries, const KnnOptions& options);

// Queries per engine call, so that the neighbour lists of one call stay near 2^24 entries.
std::size_t query_chunk(std::size_t k);

// The prediction of one query from its k neighbours (any order; reduced in increasing row
// order, so the value does not depend on the order the engine returns).
struct Neighbor {
  double distance;
  std::int64_t row;
};
double predict_one(std::span<Neighbor> neighbors, const Eigen::VectorXd& response, const KnnOptions& options,
                   std::size_t classes, std::span<double> class_weight_scratch);

}  // namespace robustfit::neighbors::detail
