#include "json_to_python.hpp"

namespace robustfit::python {

namespace py = pybind11;

py::object to_python(const nlohmann::ordered_json& value) {
  switch (value.type()) {
    case nlohmann::ordered_json::value_t::null: return py::none();
    case nlohmann::ordered_json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case nlohmann::ordered_json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_float: return py::float_(value.get<double>());
    case nlohmann::ordered_json::value_t::string: return py::str(value.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::array: {
      py::list list;
      for (const auto& item : value) list.append(to_python(item));
      return list;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    default: break;  // binary, discarded: never produced by fit_json
  }
  throw std::logic_error("robustfit: unexpected JSON value type");
}

}  // namespace robustfit::python
