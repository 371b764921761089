#pragma once
// nlohmann JSON values as Python objects (objects keep their key order as dicts do).
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace robustfit::python {

pybind11::object to_python(const nlohmann::ordered_json& value);

}  // namespace robustfit::python
