#include "robustfit/selection/backend.hpp"

#include <stdexcept>
#include <string>

namespace robustfit::selection {

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
  }
  return "unknown";
}

Backend parse_backend(std::string_view name) {
  for (Backend b : {Backend::automatic, Backend::cpu, Backend::cuda})
    if (to_string(b) == name) return b;
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (expected auto, cpu or cuda)");
}

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::double_precision: return "double";
    case Precision::single_precision: return "float";
  }
  return "unknown";
}

Precision parse_precision(std::string_view name) {
  for (Precision p : {Precision::double_precision, Precision::single_precision})
    if (to_string(p) == name) return p;
  throw std::invalid_argument("unknown precision '" + std::string(name) + "' (expected double or float)");
}

void require_precision_on(Precision precision, Backend requested, Backend chosen, const std::string& why_not) {
  if (precision != Precision::single_precision) return;
  if (requested == Backend::cpu)
    throw std::invalid_argument(
        "single precision (float) is offered by the CUDA backend only; the CPU backend computes in double");
  if (chosen != Backend::cuda) throw std::invalid_argument("single precision (float) needs the CUDA backend" + why_not);
}

}  // namespace robustfit::selection
