// Names of the kNN options as the CLI and the JSON output spell them.
#include <stdexcept>
#include <string>

#include "robustfit/neighbors/knn.hpp"

namespace robustfit::neighbors {

std::string_view to_string(Metric metric) { return metric == Metric::euclidean ? "euclidean" : "manhattan"; }
std::string_view to_string(Weights weights) { return weights == Weights::uniform ? "uniform" : "distance"; }
std::string_view to_string(Mode mode) { return mode == Mode::regression ? "regression" : "classification"; }

Metric parse_metric(std::string_view name) {
  if (name == "euclidean") return Metric::euclidean;
  if (name == "manhattan") return Metric::manhattan;
  throw std::invalid_argument("metric: unknown '" + std::string(name) + "' (expected euclidean or manhattan)");
}

Weights parse_weights(std::string_view name) {
  if (name == "uniform") return Weights::uniform;
  if (name == "distance") return Weights::distance;
  throw std::invalid_argument("weights: unknown '" + std::string(name) + "' (expected uniform or distance)");
}

Mode parse_mode(std::string_view name) {
  if (name == "regression") return Mode::regression;
  if (name == "classification") return Mode::classification;
  throw std::invalid_argument("mode: unknown '" + std::string(name) + "' (expected regression or classification)");
}

}  // namespace robustfit::neighbors
