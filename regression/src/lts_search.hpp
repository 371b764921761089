#pragma once
// FAST-LTS's search (random elemental starts, C-steps, nested subsamples, finalists to
// convergence) on any engine: fit_lts runs it on the CPU or CUDA engine, and the distributed
// engine (src/mpi/) runs the same search across MPI ranks.
#include <cstddef>
#include <cstdint>
#include <optional>

#include <Eigen/Core>

#include "concentration.hpp"
#include "engine.hpp"

namespace robustfit::regression::detail {

// subsets given: robustbase's search with that many starts (all_subsets: every elemental
// subset, streamed `chunk` at a time; so are they when there are no more than the starts and
// n < 600); unset: the default search of docs/SEARCH.md, with `deterministic`
// (deterministic_starts.hpp) among its finalists.
SearchOutcome lts_search(Engine& engine, std::size_t h, std::optional<std::size_t> subsets, std::uint64_t seed,
                         PhaseTimings& timings, Progress progress = {}, const Eigen::MatrixXd& deterministic = {},
                         std::size_t chunk = kElementalChunk);

}  // namespace robustfit::regression::detail
