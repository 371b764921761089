#pragma once
// The kNN functions as the Python module calls them (robustfit/_knn.py wraps them): arrays in,
// NumPy arrays out, option names as the CLI spells them. The GIL is released while the library
// computes (the input arrays stay referenced by the caller's arguments meanwhile).
#include <cstddef>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace robustfit::python {

using KnnMatrixRef = Eigen::Ref<const Eigen::MatrixXd>;  // float64, Fortran order: no copy
using KnnVectorRef = Eigen::Ref<const Eigen::VectorXd>;

struct KnnArguments {
  std::size_t k = 5;
  std::string mode = "regression";
  std::string metric = "euclidean";
  std::string weights = "uniform";
  bool standardize = false;
  std::string backend = "auto";
  std::string precision = "double";
};

// {"indices": m x k int64 (0-based training rows), "distances": m x k, "backend"}
pybind11::dict knn_search(KnnMatrixRef train, KnnMatrixRef queries, const KnnArguments& arguments);
// {"predictions": m (class codes in classification), "backend"} plus "indices" and "distances"
// when return_neighbors.
pybind11::dict knn_predict(KnnMatrixRef train, KnnVectorRef response, KnnMatrixRef queries,
                           const KnnArguments& arguments, bool return_neighbors);
// {"ks", "errors", "best_k", "backend"}; arguments.k is ignored.
pybind11::dict knn_loo(KnnMatrixRef train, KnnVectorRef response, const std::vector<std::size_t>& ks,
                       const KnnArguments& arguments);

}  // namespace robustfit::python
