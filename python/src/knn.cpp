#include "knn.hpp"

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "robustfit/neighbors/knn.hpp"

namespace robustfit::python {

namespace py = pybind11;
namespace nb = robustfit::neighbors;

namespace {

nb::KnnOptions options_from(const KnnArguments& arguments) {
  nb::KnnOptions options;
  options.k = arguments.k;
  options.mode = nb::parse_mode(arguments.mode);
  options.metric = nb::parse_metric(arguments.metric);
  options.weights = nb::parse_weights(arguments.weights);
  options.standardize = arguments.standardize;
  options.backend = nb::parse_backend(arguments.backend);
  options.precision = nb::parse_precision(arguments.precision);
  return options;
}

// The neighbour lists as NumPy arrays (moved into them, not copied).
void add_neighbors(py::dict& result, nb::NeighborResult&& neighbors) {
  result["indices"] = py::cast(std::move(neighbors.rows));
  result["distances"] = py::cast(std::move(neighbors.distances));
}

}  // namespace

py::dict knn_search(KnnMatrixRef train, KnnMatrixRef queries, const KnnArguments& arguments) {
  const auto options = options_from(arguments);
  nb::NeighborResult found;
  {
    py::gil_scoped_release release;
    found = nb::knn_search(Eigen::MatrixXd(train), Eigen::MatrixXd(queries), options);
  }
  py::dict result;
  result["backend"] = found.backend;
  add_neighbors(result, std::move(found));
  return result;
}

py::dict knn_predict(KnnMatrixRef train, KnnVectorRef response, KnnMatrixRef queries, const KnnArguments& arguments,
                     bool return_neighbors) {
  const auto options = options_from(arguments);
  nb::KnnPrediction prediction;
  {
    py::gil_scoped_release release;
    prediction = nb::knn_predict(Eigen::MatrixXd(train), Eigen::VectorXd(response), Eigen::MatrixXd(queries), options,
                                 return_neighbors);
  }
  py::dict result;
  result["backend"] = prediction.backend;
  result["predictions"] = py::cast(std::move(prediction.predictions));
  if (return_neighbors) add_neighbors(result, std::move(prediction.neighbors));
  return result;
}

py::dict knn_loo(KnnMatrixRef train, KnnVectorRef response, const std::vector<std::size_t>& ks,
                 const KnnArguments& arguments) {
  const auto options = options_from(arguments);
  nb::LooResult loo;
  {
    py::gil_scoped_release release;
    loo = nb::knn_loo(Eigen::MatrixXd(train), Eigen::VectorXd(response), ks, options);
  }
  py::dict result;
  result["ks"] = loo.ks;
  result["errors"] = py::array(py::cast(loo.errors));
  result["best_k"] = loo.best_k;
  result["backend"] = loo.backend;
  return result;
}

}  // namespace robustfit::python
