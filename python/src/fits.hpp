#pragma once
// The fits as the Python module calls them: arrays in, the CLI's JSON fields (as a dict) plus
// the per-row arrays out. The GIL is released while the library computes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <pybind11/pybind11.h>
#include <string>
#include <vector>

#include "robustfit/regression/estimators.hpp"

namespace robustfit::python {

struct CommonFitArguments {
  std::vector<std::string> names;  // one per predictor column
  bool intercept = true;
  std::optional<std::size_t> h;
  std::uint64_t seed = 0;
  std::string backend = "auto";
  std::string precision = "double";
};

pybind11::dict fit_lts(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common,
                       double alpha, std::optional<std::size_t> subsets);
pybind11::dict fit_lms(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common,
                       std::optional<std::size_t> subsets);
pybind11::dict fit_ls(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common);

}  // namespace robustfit::python
