#include "fits.hpp"

#include <pybind11/eigen.h>
#include <stdexcept>

#include "fit_report.hpp"
#include "json_to_python.hpp"

namespace robustfit::python {

namespace py = pybind11;

namespace {

// Runs `fit` without the GIL. An input error is re-checked with the predictor names so that the
// message names the column as the CLI's does (the fit itself says "predictor j").
template <class Fit>
regression::FitResult run_fit(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common,
                              Fit&& fit) {
  py::gil_scoped_release release;
  try {
    return fit();
  } catch (const std::invalid_argument&) {
    regression::check_design(X, y, common.intercept, common.names);
    throw;
  }
}

// The CLI's JSON object (its one list of fields, app/fit_report.cpp) plus the per-row arrays.
py::dict result_fields(const regression::FitResult& fit, const CommonFitArguments& common, double alpha) {
  data::Design design;  // only the names and row numbers: rows are numbered 1..n as in a CSV
  design.response = "y";
  design.predictors = common.names;
  design.data_rows.resize(fit.n);
  for (std::size_t i = 0; i < fit.n; ++i) design.data_rows[i] = i + 1;
  app::FitContext context{.data_file = "", .design = &design, .alpha = alpha, .seed = common.seed};
  py::dict result;
  result["fields"] = to_python(app::fit_json(fit, context));
  result["weights"] = py::array(py::cast(fit.weights));
  result["residuals"] = py::array(py::cast(fit.residuals));
  result["fitted"] = py::array(py::cast(fit.fitted));
  result["standardized_residuals"] = py::array(py::cast(fit.standardized_residuals));
  return result;
}

}  // namespace

py::dict fit_lts(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common, double alpha,
                 std::optional<std::size_t> subsets) {
  regression::LtsOptions options;
  options.alpha = alpha;
  options.h = common.h;
  options.intercept = common.intercept;
  options.subsets = subsets;
  options.seed = common.seed;
  options.backend = regression::parse_backend(common.backend);
  options.precision = regression::parse_precision(common.precision);
  const auto fit = run_fit(X, y, common, [&] { return regression::fit_lts(X, y, options); });
  return result_fields(fit, common, alpha);
}

py::dict fit_lms(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common,
                 std::optional<std::size_t> subsets) {
  regression::LmsOptions options;
  options.h = common.h;
  options.intercept = common.intercept;
  options.subsets = subsets;
  options.seed = common.seed;
  options.backend = regression::parse_backend(common.backend);
  options.precision = regression::parse_precision(common.precision);
  const auto fit = run_fit(X, y, common, [&] { return regression::fit_lms(X, y, options); });
  return result_fields(fit, common, 0.5);
}

py::dict fit_ls(regression::MatrixRef X, regression::VectorRef y, const CommonFitArguments& common) {
  const auto fit = run_fit(X, y, common, [&] { return regression::fit_ls(X, y, common.intercept); });
  return result_fields(fit, common, 0.5);
}

}  // namespace robustfit::python
