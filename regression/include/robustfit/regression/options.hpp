#pragma once
// Options of the estimators. Defaults follow robustbase::ltsReg (LTS) and MASS::lqs (LMS).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "robustfit/selection/algorithm.hpp"

namespace robustfit::regression {

enum class Method { ls, lts, lms };
enum class Backend { automatic, cpu, cuda };

std::string_view to_string(Method method);
std::string_view to_string(Backend backend);
Method parse_method(std::string_view name);    // "ls" | "lts" | "lms"; throws std::invalid_argument
Backend parse_backend(std::string_view name);  // "auto" | "cpu" | "cuda"; throws std::invalid_argument

struct LtsOptions {
  double alpha = 0.5;              // fraction of points the fit must cover, in [0.5, 1]
  std::optional<std::size_t> h;    // coverage h; overrides alpha when set
  bool intercept = true;
  std::size_t subsets = 500;       // random elemental p-subsets (robustbase's nsamp)
  std::uint64_t seed = 0;
  bool reweight = true;            // one-step reweighted LS with 0/1 weights
  Backend backend = Backend::automatic;
  selection::Algorithm selection = selection::Algorithm::automatic;
};

struct LmsOptions {
  std::optional<std::size_t> h;        // default floor((n+1)/2) as MASS::lqs(method = "lms")
  bool intercept = true;
  std::optional<std::size_t> subsets;  // default: all C(n,p) subsets when <= 5000, else min(500p, 3000)
  std::uint64_t seed = 0;
  Backend backend = Backend::automatic;
  selection::Algorithm selection = selection::Algorithm::automatic;
};

}  // namespace robustfit::regression
