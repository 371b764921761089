// Leave-one-out choice of k: one search with the largest k (each point's own row excluded),
// ordered by (distance, row), so the first k entries are the k-neighbour set for every k.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.hpp"
#include "engine_factory.hpp"

namespace robustfit::neighbors {

LooResult knn_loo(const Eigen::MatrixXd& train, const Eigen::VectorXd& response, std::span<const std::size_t> ks,
                  const KnnOptions& options) {
  if (ks.empty()) throw std::invalid_argument("ks: no value of k given");
  const auto p = detail::prepare(train, nullptr, options);
  const std::size_t n = static_cast<std::size_t>(train.rows());
  for (const std::size_t k : ks)
    detail::require_k(k, n - 1, "n - 1 = " + std::to_string(n - 1) +
                                    " (leave-one-out leaves each training point's own row out of its neighbours)");
  const std::size_t classes = detail::check_response(response, n, options.mode);
  auto engine = detail::make_engine(p.train, options.metric, options.backend, options.precision);
  const std::size_t k_max = *std::max_element(ks.begin(), ks.end());
  std::vector<double> loss(ks.size(), 0.0);  // sum of squared errors or count of misclassified
  std::vector<double> class_weight(classes);
  std::vector<detail::Neighbor> prefix;
  const std::size_t chunk = detail::query_chunk(k_max);
  for (std::size_t q0 = 0; q0 < n; q0 += chunk) {
    const std::size_t q1 = std::min(n, q0 + chunk);
    const auto lists = engine->nearest(p.train.middleRows(static_cast<Eigen::Index>(q0), static_cast<Eigen::Index>(q1 - q0)),
                                       k_max, true, q0);
    for (std::size_t i = q0; i < q1; ++i) {
      const double truth = response[static_cast<Eigen::Index>(i)];
      for (std::size_t a = 0; a < ks.size(); ++a) {
        prefix.resize(ks[a]);
        for (std::size_t j = 0; j < ks[a]; ++j)
          prefix[j] = {lists.distances[(i - q0) * k_max + j], lists.rows[(i - q0) * k_max + j]};
        const double predicted = detail::predict_one(prefix, response, options, classes, class_weight);
        loss[a] += options.mode == Mode::regression ? (predicted - truth) * (predicted - truth) : (predicted != truth ? 1.0 : 0.0);
      }
    }
  }
  LooResult result;
  result.backend = engine->name();
  result.ks.assign(ks.begin(), ks.end());
  for (std::size_t a = 0; a < ks.size(); ++a) {
    const double mean = loss[a] / static_cast<double>(n);
    result.errors.push_back(options.mode == Mode::regression ? std::sqrt(mean) : mean);
  }
  std::size_t best = 0;
  for (std::size_t a = 1; a < ks.size(); ++a)
    if (result.errors[a] < result.errors[best] || (result.errors[a] == result.errors[best] && ks[a] < ks[best])) best = a;
  result.best_k = ks[best];
  return result;
}

}  // namespace robustfit::neighbors
