// The compiled part of the `robustfit` Python package (robustfit/_robustfit). The public API,
// input conversion and the result class are in robustfit/*.py; these functions take arrays that
// are already float64 and Fortran-ordered (noconvert: pybind11 maps them, never copies them).
// Library errors become Python exceptions by pybind11's standard translation:
// std::invalid_argument -> ValueError, std::runtime_error (CUDA failures) -> RuntimeError; a GPU
// out-of-memory (selection::cuda::OutOfMemory, a std::bad_alloc) is a device error too: RuntimeError.
#include <pybind11/eigen.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fits.hpp"
#include "knn.hpp"
#include "robustfit/selection/cuda/errors.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/gpu.hpp"

namespace py = pybind11;
using namespace robustfit;

namespace {

python::CommonFitArguments common_arguments(std::vector<std::string> names, bool intercept,
                                            std::optional<std::size_t> h, std::uint64_t seed,
                                            std::string backend, std::string precision) {
  return {std::move(names), intercept, h, seed, std::move(backend), std::move(precision)};
}

// The ks (0-based) smallest of `values`: on the GPU when `backend` is cuda, or auto and one is usable.
std::vector<double> select_ranks(regression::VectorRef values, const std::vector<std::size_t>& ks, const std::string& backend) {
  if (backend != "auto" && backend != "cpu" && backend != "cuda")
    throw std::invalid_argument("backend: unknown backend '" + backend + "' (expected auto, cpu or cuda)");
  if (backend == "cuda" && !selection::cuda_available())
    throw std::invalid_argument("backend cuda: the CUDA backend is not available: " + selection::cuda_device_description());
  const std::span<const double> view(values.data(), static_cast<std::size_t>(values.size()));
  py::gil_scoped_release release;
  if (backend == "cuda" || (backend == "auto" && selection::cuda_available()))
    return selection::cuda_kth_smallest_many<double>(view, ks, selection::Algorithm::automatic);
  return selection::kth_smallest_many<double>(view, ks);
}

python::KnnArguments knn_arguments(std::size_t k, std::string mode, std::string metric, std::string weights,
                                   bool standardize, std::string backend, std::string precision) {
  return {k, std::move(mode), std::move(metric), std::move(weights), standardize, std::move(backend),
          std::move(precision)};
}

}  // namespace

PYBIND11_MODULE(_robustfit, m) {
  m.doc() = "robust-fit's C++ library (LTS, LMS, LS; exact order statistics; kNN); use the robustfit package";
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const selection::cuda::OutOfMemory& out_of_memory) {
      PyErr_SetString(PyExc_RuntimeError, out_of_memory.what());
    }
  });
  m.attr("all_subsets") = regression::all_subsets;  // subsets="all" (_fits.py)
  m.def("fit_lts",
        [](regression::MatrixRef X, regression::VectorRef y, double alpha, std::optional<std::size_t> h,
           std::optional<std::size_t> subsets, std::uint64_t seed, std::string backend, std::string precision, bool intercept,
           std::vector<std::string> names) {
          return python::fit_lts(X, y, common_arguments(std::move(names), intercept, h, seed, std::move(backend), std::move(precision)),
                                 alpha, subsets);
        },
        py::arg("X").noconvert(), py::arg("y").noconvert(), py::arg("alpha"), py::arg("h").none(true), py::arg("subsets").none(true),
        py::arg("seed"), py::arg("backend"), py::arg("precision"), py::arg("intercept"), py::arg("names"));
  m.def("fit_lms",
        [](regression::MatrixRef X, regression::VectorRef y, std::optional<std::size_t> h,
           std::optional<std::size_t> subsets, std::uint64_t seed, std::string backend, std::string precision,
           bool intercept, std::vector<std::string> names) {
          return python::fit_lms(X, y, common_arguments(std::move(names), intercept, h, seed, std::move(backend), std::move(precision)),
                                 subsets);
        },
        py::arg("X").noconvert(), py::arg("y").noconvert(), py::arg("h").none(true), py::arg("subsets").none(true),
        py::arg("seed"), py::arg("backend"), py::arg("precision"), py::arg("intercept"), py::arg("names"));
  m.def("fit_ls",
        [](regression::MatrixRef X, regression::VectorRef y, bool intercept, std::vector<std::string> names) {
          return python::fit_ls(X, y, common_arguments(std::move(names), intercept, std::nullopt, 0, "cpu", "double"));
        },
        py::arg("X").noconvert(), py::arg("y").noconvert(), py::arg("intercept"), py::arg("names"));
  m.def("select", &select_ranks, py::arg("values").noconvert(), py::arg("ks"), py::arg("backend"));
  // kNN: k is checked (>= 1) by the Python wrapper; mode/metric/weights/backend/precision by name here.
  m.def("knn_search",
        [](python::KnnMatrixRef train, python::KnnMatrixRef queries, std::size_t k, std::string metric,
           bool standardize, std::string backend, std::string precision) {
          return python::knn_search(train, queries,
                                    knn_arguments(k, "regression", std::move(metric), "uniform", standardize,
                                                  std::move(backend), std::move(precision)));
        },
        py::arg("train").noconvert(), py::arg("queries").noconvert(), py::arg("k"), py::arg("metric"),
        py::arg("standardize"), py::arg("backend"), py::arg("precision"));
  m.def("knn_predict",
        [](python::KnnMatrixRef train, python::KnnVectorRef response, python::KnnMatrixRef queries, std::size_t k,
           std::string mode, std::string metric, std::string weights, bool standardize, std::string backend,
           std::string precision, bool return_neighbors) {
          return python::knn_predict(train, response, queries,
                                     knn_arguments(k, std::move(mode), std::move(metric), std::move(weights),
                                                   standardize, std::move(backend), std::move(precision)),
                                     return_neighbors);
        },
        py::arg("train").noconvert(), py::arg("response").noconvert(), py::arg("queries").noconvert(), py::arg("k"),
        py::arg("mode"), py::arg("metric"), py::arg("weights"), py::arg("standardize"), py::arg("backend"),
        py::arg("precision"), py::arg("return_neighbors"));
  m.def("knn_loo",
        [](python::KnnMatrixRef train, python::KnnVectorRef response, std::vector<std::size_t> ks, std::string mode,
           std::string metric, std::string weights, bool standardize, std::string backend, std::string precision) {
          return python::knn_loo(train, response, ks,
                                 knn_arguments(1, std::move(mode), std::move(metric), std::move(weights), standardize,
                                               std::move(backend), std::move(precision)));
        },
        py::arg("train").noconvert(), py::arg("response").noconvert(), py::arg("ks"), py::arg("mode"),
        py::arg("metric"), py::arg("weights"), py::arg("standardize"), py::arg("backend"), py::arg("precision"));
  m.def("cuda_available", &selection::cuda_available, "whether this build has CUDA and a GPU is usable");
}
