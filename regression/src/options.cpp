#include "robustfit/regression/options.hpp"

#include <stdexcept>
#include <string>

namespace robustfit::regression {

std::string_view to_string(Method method) {
  switch (method) {
    case Method::ls: return "ls";
    case Method::lts: return "lts";
    case Method::lms: return "lms";
  }
  return "unknown";
}

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::double_precision: return "double";
    case Precision::single_precision: return "float";
  }
  return "unknown";
}

Method parse_method(std::string_view name) {
  for (Method m : {Method::ls, Method::lts, Method::lms})
    if (to_string(m) == name) return m;
  throw std::invalid_argument("unknown method '" + std::string(name) + "' (expected lts, lms or ls)");
}

Precision parse_precision(std::string_view name) {
  for (Precision p : {Precision::double_precision, Precision::single_precision})
    if (to_string(p) == name) return p;
  throw std::invalid_argument("unknown precision '" + std::string(name) + "' (expected double or float)");
}

}  // namespace robustfit::regression
