#pragma once
// Exact k-nearest-neighbour search, regression and classification (docs/KNN.md).
//
// The distance of a query q to a training point x is computed directly, each product and sum
// rounded separately (euclidean: sqrt(sum_j (q_j - x_j)^2); manhattan: sum_j |q_j - x_j|, j in
// order), so every backend gives bit-identical distances in double. The k neighbours of a query
// are the k smallest by (distance, training row): ties at the k-th distance go to the smaller
// row, so the neighbour set is a function of the data alone.
//
// Errors at this boundary are std::invalid_argument naming the offending argument.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "robustfit/selection/backend.hpp"

namespace robustfit::neighbors {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

enum class Metric { euclidean, manhattan };
// uniform: every neighbour counts 1; distance: 1/distance, and when some neighbours are at
// distance 0 exactly, those alone share the whole weight equally (as scikit-learn).
enum class Weights { uniform, distance };
enum class Mode { regression, classification };
// float runs the CUDA engine in single precision (distances included); CPU: double only.
// The project's one backend and precision names (selection/backend.hpp).
using Backend = selection::Backend;
using Precision = selection::Precision;
using selection::parse_backend;
using selection::parse_precision;
using selection::to_string;

std::string_view to_string(Metric metric);        // "euclidean" | "manhattan"
std::string_view to_string(Weights weights);      // "uniform" | "distance"
std::string_view to_string(Mode mode);            // "regression" | "classification"
Metric parse_metric(std::string_view name);       // throws std::invalid_argument
Weights parse_weights(std::string_view name);
Mode parse_mode(std::string_view name);

struct KnnOptions {
  std::size_t k = 5;
  Mode mode = Mode::regression;
  Metric metric = Metric::euclidean;
  Weights weights = Weights::uniform;
  // z-score every feature with the training mean and population sd (ddof 0, as scikit-learn's
  // StandardScaler); a constant training column is centred and left unscaled (scale 1, as
  // StandardScaler). Off by default, as scikit-learn.
  bool standardize = false;
  selection::Backend backend = selection::Backend::automatic;
  Precision precision = Precision::double_precision;
};

// The k nearest training rows of each query, 0-based, within a query ordered by
// (distance, row). rows(i, j) / distances(i, j): j-th neighbour of query i.
struct NeighborResult {
  Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows;
  RowMatrix distances;
  std::string backend;  // "cpu" | "cuda"
};

struct KnnPrediction {
  // Regression: the (weighted) mean response of the neighbours. Classification: the winning
  // class code (0..C-1) of the (weighted) vote; a tied vote goes to the class of the nearest
  // neighbour, by (distance, row), among the tied classes.
  Eigen::VectorXd predictions;
  NeighborResult neighbors;  // filled (ordered) only when asked for; else empty matrices
  std::string backend;
};

struct LooResult {
  std::vector<std::size_t> ks;
  // Per k: RMSE (regression) or misclassification rate (classification) of each training
  // point predicted from the others (its own row excluded; duplicates of it are not).
  std::vector<double> errors;
  std::size_t best_k = 0;  // smallest error; ties go to the smaller k
  std::string backend;
};

// train: n x d, queries: m x d. 1 <= k <= n.
NeighborResult knn_search(const Eigen::MatrixXd& train, const Eigen::MatrixXd& queries, const KnnOptions& options);

// response: n values; in classification, integer class codes 0..C-1.
KnnPrediction knn_predict(const Eigen::MatrixXd& train, const Eigen::VectorXd& response,
                          const Eigen::MatrixXd& queries, const KnnOptions& options,
                          bool return_neighbors = false);

// Leave-one-out over the training set for every k of `ks` (each 1 <= k <= n - 1); options.k
// is ignored. One search with the largest k, then prefix reductions per k.
LooResult knn_loo(const Eigen::MatrixXd& train, const Eigen::VectorXd& response, std::span<const std::size_t> ks,
                  const KnnOptions& options);

// True when the CUDA kNN engine is built and a device is usable.
bool cuda_backend_available();

}  // namespace robustfit::neighbors
