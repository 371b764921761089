#pragma once
// fit_lts after the data are in place, written once for one process (fit_lts) and for rows
// spread over MPI ranks (src/mpi/distributed_fit.cpp): the coverage h, the search on an engine,
// the finish over all rows (row_reductions.hpp), the robust distances.
#include <Eigen/Core>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>

#include "backend_cost.hpp"
#include "design_matrix.hpp"
#include "deterministic_starts.hpp"
#include "engine_factory.hpp"
#include "engine.hpp"
#include "mcd_fit.hpp"
#include "robustfit/regression/options.hpp"
#include "row_reductions.hpp"
#include "stopwatch.hpp"

namespace robustfit::regression::detail {

// Throws std::invalid_argument for alpha outside [0.5, 1] and zero subsets.
void check_lts_options(const LtsOptions& options);

// What differs between one process and many: the engine the search runs on, the
// deterministic starts of the default search for coverage h, FAST-MCD's parts (the robust
// distances), and the reductions of the steps after the search for the engine it ran on (one
// process: the GPU's with the CUDA engine; unset: the fit's `all`).
struct LtsParts {
  std::function<std::unique_ptr<Engine>(const SearchSize&)> engine;
  std::function<std::unique_ptr<RowReductions>(const Engine&)> reductions;
  std::function<Eigen::MatrixXd(std::size_t h)> deterministic_starts;
  McdParts mcd;
  // Where set: the robust R^2's scale of y (min_window_variance(y, h)) started beside the search,
  // called before it (the distributed fit: on a thread and communicator of its own).
  std::function<std::future<double>(const Eigen::VectorXd& y, std::size_t h)> y_window_variance_beside;
};

// One process: the engine its options ask for (engine_factory.hpp) over all rows, and the
// deterministic starts from them. Options: LtsOptions or LmsOptions.
template <class Options>
LtsParts one_process_parts(const ModelData& data, const Options& options) {
  LtsParts parts;
  parts.engine = [&data, &options](const SearchSize& size) {
    return make_engine(data, options.backend, options.selection, options.precision, size);
  };
  parts.reductions = [](const Engine& engine) { return one_process_reductions(engine); };
  parts.deterministic_starts = [&data](std::size_t h) { return deterministic_starts(data, h); };
  parts.mcd = one_process_mcd_parts();
  return parts;
}

// The reductions `parts` gives for `engine`, or `all`.
class AfterSearch {
 public:
  AfterSearch(const LtsParts& parts, const Engine& engine, const RowReductions& all)
      : owned_(parts.reductions ? parts.reductions(engine) : nullptr), all_(owned_ ? *owned_ : all) {}
  const RowReductions& reductions() const { return all_; }

 private:
  std::unique_ptr<RowReductions> owned_;
  const RowReductions& all_;
};

// `data`: this part's rows (all of them in one process); `total` started with the call.
FitResult fit_lts_on(const ModelData& data, const RowReductions& all, const LtsOptions& options, const LtsParts& parts,
                     Stopwatch& total);

}  // namespace robustfit::regression::detail
