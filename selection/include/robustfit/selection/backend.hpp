#pragma once
// Where a computation runs and in what arithmetic: one pair of names for the whole project
// (regression and neighbors use these through aliases). Which selection algorithm each backend
// offers is in capabilities.hpp.
#include <string>
#include <string_view>

namespace robustfit::selection {

// `automatic` is a request, resolved by resolve_backend (capabilities.hpp).
enum class Backend { automatic, cpu, cuda };

std::string_view to_string(Backend backend);   // "auto" | "cpu" | "cuda"
Backend parse_backend(std::string_view name);  // throws std::invalid_argument listing the names

// Arithmetic of the CUDA engines. single_precision ("float") keeps the data on the device in
// float and computes the per-element work (residuals, distances, order statistics) in float;
// each engine states what stays in double. The CPU backends compute in double only.
enum class Precision { double_precision, single_precision };

std::string_view to_string(Precision precision);   // "double" | "float"
Precision parse_precision(std::string_view name);  // throws std::invalid_argument

// Float runs on the CUDA engines only, never a silent fall-back to double: throws
// std::invalid_argument when single precision comes with `requested` = cpu, or when the backend
// `chosen` for it is not CUDA ("... needs the CUDA backend" + `why_not`).
void require_precision_on(Precision precision, Backend requested, Backend chosen, const std::string& why_not);

}  // namespace robustfit::selection
