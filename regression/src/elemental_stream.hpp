#pragma once
// Every elemental subset of an engine's rows, streamed (--subsets all, robustbase's and MASS's
// nsamp = "exact"; docs/SEARCH.md): the C(n, p) p-subsets in lexicographic order, a chunk at a
// time; each chunk's regular elemental fits are evaluated by the estimator (LTS: C-steps, LMS:
// objectives) and offered to a BestCandidates, so that memory stays bounded whatever C(n, p).
// The enumeration index of a subset is its position in that order (singular ones counted):
// the tie-break of equal objectives, so the result does not depend on the chunk size.
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "best_candidates.hpp"
#include "engine.hpp"
#include "progress.hpp"
#include "stopwatch.hpp"
#include "subsets.hpp"

namespace robustfit::regression::detail {

// Subsets per chunk: 2^16 elemental fits of p <= 20 coefficients take at most 10 MB.
inline constexpr std::size_t kElementalChunk = std::size_t{1} << 16;

struct ElementalStream {
  std::size_t tried = 0, singular = 0;
  double solve_s = 0, evaluate_s = 0;  // solving the elemental systems; the estimator's evaluation
};

// evaluate(Eigen::MatrixXd& fits, std::vector<double>& objectives): the objectives of a chunk's
// regular fits, which it may change in place (C-steps; LMS's exact intercept). Progress goes
// from `from` to `to` over the enumeration.
template <class Evaluate>
ElementalStream stream_elemental_fits(Engine& engine, std::size_t chunk, BestCandidates& keep, Evaluate&& evaluate,
                                      Progress& progress, double from, double to) {
  if (chunk == 0) throw std::invalid_argument("the chunk of elemental subsets must hold at least one");
  ElementalStream out;
  SubsetEnumerator subsets(engine.rows(), engine.cols());
  Eigen::MatrixXd fits, regular;
  std::vector<std::uint8_t> ok;
  std::vector<std::uint64_t> index;
  std::vector<double> objectives;
  while (subsets.remaining() > 0) {
    Stopwatch watch;
    const std::uint64_t first = subsets.visited();
    engine.solve_elemental(subsets.next(chunk), fits, ok);
    index.clear();
    for (std::size_t j = 0; j < ok.size(); ++j)
      if (ok[j]) index.push_back(first + j);
    regular.resize(fits.rows(), static_cast<Eigen::Index>(index.size()));
    for (std::size_t k = 0; k < index.size(); ++k)
      regular.col(static_cast<Eigen::Index>(k)) = fits.col(static_cast<Eigen::Index>(index[k] - first));
    out.tried += ok.size();
    out.singular += ok.size() - index.size();
    out.solve_s += watch.lap();
    if (!index.empty()) {
      objectives.assign(index.size(), 0);
      evaluate(regular, objectives);
      for (std::size_t k = 0; k < index.size(); ++k) keep.offer(regular.col(static_cast<Eigen::Index>(k)), objectives[k], index[k]);
    }
    out.evaluate_s += watch.lap();
    progress.report("subsets", from + (to - from) * static_cast<double>(subsets.visited()) / static_cast<double>(subsets.total()));
  }
  if (keep.size() == 0)
    throw std::invalid_argument("no non-singular elemental subset among all " + std::to_string(out.tried) + " subsets of " +
                                std::to_string(engine.cols()) + " rows: the design matrix is (nearly) degenerate");
  return out;
}

}  // namespace robustfit::regression::detail
