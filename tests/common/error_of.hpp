#pragma once
// The message of the std::invalid_argument a call throws, or "" when it throws none: for tests
// that check an error names what is wrong.
#include <stdexcept>
#include <string>

namespace robustfit::testing {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace robustfit::testing
