// Prediction from neighbour sets: weighted mean (regression) or weighted vote (classification).
// Only the set matters, so the engine is asked for unordered lists; the reductions run in
// increasing row order so that the value does not depend on the order an engine returns.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.hpp"
#include "engine_factory.hpp"

namespace robustfit::neighbors {

namespace detail {

namespace {

// Weight of one neighbour. With distance weights, when some neighbours are at distance 0 those
// alone count (weight 1 each), as scikit-learn does; otherwise 1 / distance.
double weight_of(double distance, bool any_exact, Weights weights) {
  if (weights == Weights::uniform) return 1;
  if (any_exact) return distance == 0 ? 1 : 0;
  return 1 / distance;
}

}  // namespace

double predict_one(std::span<Neighbor> neighbors, const Eigen::VectorXd& response, const KnnOptions& options,
                   std::size_t classes, std::span<double> class_weight) {
  std::sort(neighbors.begin(), neighbors.end(), [](const Neighbor& a, const Neighbor& b) { return a.row < b.row; });
  const bool any_exact = std::any_of(neighbors.begin(), neighbors.end(), [](const Neighbor& nb) { return nb.distance == 0; });
  if (options.mode == Mode::regression) {
    double sum = 0, total = 0;
    for (const auto& nb : neighbors) {
      const double w = weight_of(nb.distance, any_exact, options.weights);
      sum += w * response[nb.row];
      total += w;
    }
    return sum / total;
  }
  std::fill(class_weight.begin(), class_weight.begin() + static_cast<std::ptrdiff_t>(classes), 0.0);
  for (const auto& nb : neighbors)
    class_weight[static_cast<std::size_t>(response[nb.row])] += weight_of(nb.distance, any_exact, options.weights);
  const double best = *std::max_element(class_weight.begin(), class_weight.begin() + static_cast<std::ptrdiff_t>(classes));
  // A tied vote goes to the class of the nearest neighbour, by (distance, row), among the tied classes.
  std::optional<Neighbor> nearest;
  for (const auto& nb : neighbors) {
    if (class_weight[static_cast<std::size_t>(response[nb.row])] != best) continue;
    if (!nearest || nb.distance < nearest->distance || (nb.distance == nearest->distance && nb.row < nearest->row))
      nearest = nb;
  }
  return response[nearest->row];
}

}  // namespace detail

KnnPrediction knn_predict(const Eigen::MatrixXd& train, const Eigen::VectorXd& response, const Eigen::MatrixXd& queries,
                          const KnnOptions& options, bool return_neighbors) {
  const auto p = detail::prepare(train, &queries, options);
  const std::size_t n = static_cast<std::size_t>(train.rows()), m = static_cast<std::size_t>(queries.rows());
  detail::require_k(options.k, n, "the number of training points n = " + std::to_string(n));
  const std::size_t classes = detail::check_response(response, n, options.mode);
  auto engine = detail::make_engine(p.train, options.metric, options.backend, options.precision);
  const std::size_t k = options.k;
  KnnPrediction result;
  result.backend = engine->name();
  result.predictions.resize(static_cast<Eigen::Index>(m));
  if (return_neighbors) {
    result.neighbors.backend = result.backend;
    result.neighbors.rows.resize(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k));
    result.neighbors.distances.resize(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k));
  }
  std::vector<double> class_weight(classes);
  std::vector<detail::Neighbor> one(k);
  const std::size_t chunk = detail::query_chunk(k);
  for (std::size_t q0 = 0; q0 < m; q0 += chunk) {
    const std::size_t q1 = std::min(m, q0 + chunk);
    const auto lists = engine->nearest(p.queries.middleRows(static_cast<Eigen::Index>(q0), static_cast<Eigen::Index>(q1 - q0)),
                                       k, return_neighbors, std::nullopt);
    for (std::size_t i = q0; i < q1; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        one[j] = {lists.distances[(i - q0) * k + j], lists.rows[(i - q0) * k + j]};
        if (return_neighbors) {
          result.neighbors.rows(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = one[j].row;
          result.neighbors.distances(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = one[j].distance;
        }
      }
      result.predictions[static_cast<Eigen::Index>(i)] = detail::predict_one(one, response, options, classes, class_weight);
    }
  }
  return result;
}

}  // namespace robustfit::neighbors
