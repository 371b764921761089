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

Method parse_method(std::string_view name) {
  for (Method m : {Method::ls, Method::lts, Method::lms})
    if (to_string(m) == name) return m;
  throw std::invalid_argument("unknown method '" + std::string(name) + "' (expected lts, lms or ls)");
}

}  // namespace robustfit::regression
