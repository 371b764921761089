#pragma once
// Options of the estimators. Defaults follow robustbase::ltsReg (LTS) and MASS::lqs (LMS).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

#include "robustfit/selection/algorithm.hpp"
#include "robustfit/selection/capabilities.hpp"

namespace robustfit::regression {

enum class Method { ls, lts, lms };
// One backend enum for the project (selection/capabilities.hpp): auto | cpu | cuda.
using Backend = selection::Backend;
using selection::parse_backend;  // "auto" | "cpu" | "cuda"; throws std::invalid_argument
using selection::to_string;
// Arithmetic of the CUDA engine (selection/backend.hpp). single_precision ("float") keeps X and
// y on the device in float and computes residuals, squared residuals, order statistics
// (thresholds) and h-subsets in float; trimmed sums, Gram matrices, solves and the final fit
// (finish: raw fit, scale, reweighting) stay in double. Faster, at an accuracy stated in
// README.md ("Precision"). The CPU backend computes in double only: single_precision with it is
// an error.
using Precision = selection::Precision;
using selection::parse_precision;  // "double" | "float"; throws std::invalid_argument

// Progress of a fit, for a caller that shows it (the CLI, in a terminal): called between
// batches of engine work, never from inside a kernel, with the phase ("subsets", "C-steps",
// "objectives", "refine", "finish") and the fraction of the fit done, in [0, 1]. Fractions
// never decrease and the last call of a fit that returns has 1. Empty (the default): silent.
using ProgressCallback = std::function<void(std::string_view phase, double fraction)>;

// LtsOptions::subsets / LmsOptions::subsets = all_subsets: every elemental subset, C(n, p) of
// them, in lexicographic order (robustbase's and MASS's nsamp = "exact"; CLI --subsets all;
// docs/SEARCH.md). The fit is the same whatever the seed.
inline constexpr std::size_t all_subsets = std::numeric_limits<std::size_t>::max();
// all_subsets is refused (std::invalid_argument naming C(n, p)) above this many subsets.
inline constexpr double max_all_subsets = 1e8;

// C(n, p), the number of elemental subsets of n rows and p coefficients, as a double (inf when
// it overflows one).
double elemental_subset_count(std::size_t n, std::size_t p);

std::string_view to_string(Method method);
Method parse_method(std::string_view name);    // "ls" | "lts" | "lms"; throws std::invalid_argument

struct LtsOptions {
  double alpha = 0.5;              // fraction of points the fit must cover, in [0.5, 1]
  std::optional<std::size_t> h;    // coverage h; overrides alpha when set
  bool intercept = true;
  // Random elemental p-subsets. Set: exactly robustbase's search with nsamp = subsets (those
  // random starts only). Unset (the default): robust-fit's search, docs/SEARCH.md: more random
  // starts (kDefaultLtsStarts) and deterministic starts. all_subsets: robustbase's search with
  // nsamp = "exact" (every elemental subset, at most max_all_subsets of them).
  std::optional<std::size_t> subsets;
  std::uint64_t seed = 0;
  bool reweight = true;            // one-step reweighted LS with 0/1 weights
  // Robust distances of the predictors from their MCD (fit_mcd with this alpha, seed and
  // backend), as robustbase::ltsReg(mcd = TRUE): FitResult::robust_distances and rd_cutoff.
  bool mcd = true;
  Backend backend = Backend::automatic;
  selection::Algorithm selection = selection::Algorithm::automatic;
  Precision precision = Precision::double_precision;  // single_precision: CUDA engine only
  ProgressCallback progress;       // optional; see ProgressCallback
};

struct LmsOptions {
  std::optional<std::size_t> h;        // default floor((n+1)/2) as MASS::lqs(method = "lms")
  bool intercept = true;
  // default: all C(n,p) subsets when <= 5000, else min(500p, 3000); all_subsets: every one, as
  // MASS::lqs(nsamp = "exact"), at most max_all_subsets of them.
  std::optional<std::size_t> subsets;
  std::uint64_t seed = 0;
  Backend backend = Backend::automatic;
  selection::Algorithm selection = selection::Algorithm::automatic;
  Precision precision = Precision::double_precision;  // single_precision: CUDA engine only
  ProgressCallback progress;           // optional; see ProgressCallback
};

}  // namespace robustfit::regression
