// Least Median of Squares (more generally: least h-th smallest squared residual) over random
// or all elemental subsets (subsets = all_subsets: every one, streamed, as MASS's
// nsamp = "exact"), with the intercept of each candidate adjusted exactly, as
// MASS::lqs(method = "lms") does; then the best ten (default search: 20, with LS steps) are
// refined by Chebyshev steps (lms_refine.hpp). Written once over the Engine interface.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "best_candidates.hpp"
#include "elemental_stream.hpp"
#include "design_matrix.hpp"
#include "deterministic_starts.hpp"
#include "lms_fit.hpp"
#include "lms_refine.hpp"
#include "engine_factory.hpp"
#include "finish.hpp"
#include "progress.hpp"
#include "robustfit/regression/estimators.hpp"
#include "stopwatch.hpp"
#include "subsets.hpp"

namespace robustfit::regression {

namespace {

constexpr double kExhaustiveLimit = 5000;  // MASS::lqs enumerates all subsets up to this many
constexpr std::size_t kBatch = 4096;       // candidates evaluated per engine call
constexpr std::size_t kRefined = 10;       // best candidates refined by Chebyshev steps
constexpr int kMaxChebyshevSteps = 20;

// The default search (no subsets given) takes the deterministic starts among the candidates
// and, up to kLargeN rows, refines 20 of them with LS (C-step) proposals before the Chebyshev
// steps (lms_refine.hpp; docs/SEARCH.md; chosen on bench/search_quality: every fit of the
// suite below MASS::lqs, where 50 candidates with Chebyshev steps alone ended up to 11.8 %
// above it, in less time). Above kLargeN the refinement's host passes over the data (and the
// QR of h rows per LS step) dominate: ten candidates, Chebyshev steps only, as LTS's default
// plan goes back to 20 finalists there (the suite's LMS cases stop at n = 5000).
constexpr std::size_t kDefaultRefined = 20;
constexpr std::size_t kLargeN = 20000;

std::size_t default_lms_subsets(std::size_t p) { return std::min<std::size_t>(500 * p, 3000); }

}  // namespace

namespace detail {

void check_lms_options(const LmsOptions& options) {
  if (options.subsets && *options.subsets == 0) throw std::invalid_argument("the number of subsets must be at least 1");
}

FitResult fit_lms_on(const ModelData& data, const RowReductions& all, const LmsOptions& options, const LtsParts& parts,
                     Stopwatch& total) {
  Stopwatch watch;
  const std::size_t n = all.total(data.n()), p = data.p();
  const std::size_t h = options.h ? *options.h : (n + 1) / 2;
  if (h <= p || h > n)
    throw std::invalid_argument("h = " + std::to_string(h) + " is out of range: it must lie in [" +
                                std::to_string(p + 1) + ", " + std::to_string(n) + "] (p + 1 to n)");
  // Rousseeuw & Leroy's scale divides by qnorm((n + h) / (2n)), infinite at h = n.
  if (h == n)
    throw std::invalid_argument("h = n = " + std::to_string(n) +
                                " has no LMS scale: its consistency factor qnorm((n + h) / (2n)) = qnorm(1) is "
                                "infinite; give h < n");
  const bool every_subset = options.subsets == all_subsets;  // MASS's nsamp = "exact"
  if (every_subset) detail::require_enumerable(n, p);
  const double combinations = detail::binomial(n, p);
  const std::size_t wanted = every_subset ? 0 : options.subsets.value_or(default_lms_subsets(p));
  const bool exhaustive =
      every_subset || (options.subsets ? combinations <= static_cast<double>(wanted) : combinations <= kExhaustiveLimit);
  const std::size_t searched = exhaustive ? static_cast<std::size_t>(combinations) : wanted;
  const std::unique_ptr<Engine> engine = parts.engine(SearchSize{n, p, searched});
  detail::Progress progress(options.progress);
  FitResult result;
  result.timings.setup_s = watch.lap();
  result.exhaustive = exhaustive;
  // Chebyshev steps (default search below kLargeN: LS steps first) on the best few (monotone:
  // a candidate only ever improves). Only those are kept while the candidates stream past.
  const bool concentrate = !options.subsets && n <= kLargeN;
  detail::BestCandidates keep(concentrate ? kDefaultRefined : kRefined);
  // The objectives with each candidate's exact intercept (kept in the candidate). Only `keep`'s
  // few best matter: the engine may give the others a lower bound instead (engine.hpp), which
  // keeps them out of `keep` as their exact objective would.
  auto evaluate = [&](Eigen::MatrixXd& batch, std::vector<double>& objectives) {
    engine->lms_objectives(batch, h, data.intercept, objectives, keep.capacity());
  };
  std::uint64_t offered = 0;  // stream index of the next candidate: equal objectives go to the earlier one
  if (exhaustive) {
    // Every subset, a chunk at a time (elemental_stream.hpp), as MASS::lqs enumerates them.
    const detail::ElementalStream stream =
        detail::stream_elemental_fits(*engine, detail::kElementalChunk, keep, evaluate, progress, 0, 0.8);
    result.subsets_tried = stream.tried;
    result.singular_subsets = stream.singular;
    result.timings.subsets_s = stream.solve_s;
    result.timings.objectives_s = stream.evaluate_s;
    offered = stream.tried;
    watch.lap();
  } else {
    detail::Random random(options.seed);
    detail::Candidates candidates = detail::random_elemental_fits(*engine, random, wanted);
    result.subsets_tried = candidates.tried;
    result.singular_subsets = candidates.singular;
    result.timings.subsets_s = watch.lap();
    progress.report("subsets", 0.1);
    // Evaluate in batches so that memory stays bounded.
    const auto m = static_cast<std::size_t>(candidates.betas.cols());
    std::vector<double> objectives;
    for (std::size_t begin = 0; begin < m; begin += kBatch) {
      const std::size_t count = std::min(kBatch, m - begin);
      Eigen::MatrixXd batch = candidates.betas.middleCols(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(count));
      objectives.assign(count, 0);
      evaluate(batch, objectives);
      for (std::size_t j = 0; j < count; ++j) keep.offer(batch.col(static_cast<Eigen::Index>(j)), objectives[j], offered++);
      progress.report("objectives", 0.1 + 0.7 * static_cast<double>(begin + count) / static_cast<double>(m));
    }
    result.timings.objectives_s = watch.lap();
  }
  if (!options.subsets) {
    // The default search adds the deterministic starts (deterministic_starts.hpp) as candidates.
    Eigen::MatrixXd extra = parts.deterministic_starts(h);
    result.timings.subsets_s += watch.lap();
    std::vector<double> objectives(static_cast<std::size_t>(extra.cols()));
    evaluate(extra, objectives);
    for (std::size_t j = 0; j < objectives.size(); ++j) keep.offer(extra.col(static_cast<Eigen::Index>(j)), objectives[j], offered++);
    result.timings.objectives_s += watch.lap();
  }
  Eigen::MatrixXd finalists = keep.columns();
  std::vector<double> finalist_objectives = keep.objectives();
  // LMS keeps the host's reductions (or the ranks' collectives): its refinement calls them from
  // many threads at once, and the device reductions' LMS calls have not run on a GPU yet.
  detail::refine_lms(data, all, h, kMaxChebyshevSteps, concentrate, finalists, finalist_objectives);
  const auto winner = std::min_element(finalist_objectives.begin(), finalist_objectives.end()) - finalist_objectives.begin();
  const Eigen::VectorXd best = finalists.col(winner);
  result.timings.csteps_s = watch.lap();
  progress.report("refine", 0.95);
  detail::record_kernel_times(*engine, result.timings);
  result.backend = engine->backend_name();
  result.selection = engine->selection_name();
  result.precision = options.precision;
  detail::finish_lms(data, all, best, h, result);
  detail::to_original_scale(data, result.coefficients);
  detail::to_original_scale(data, result.raw_coefficients);
  result.timings.finish_s = watch.lap();
  result.timings.total_s = total.lap();
  progress.report("finish", 1.0);
  return result;
}

}  // namespace detail

FitResult fit_lms(MatrixRef X, VectorRef y, const LmsOptions& options) {
  detail::Stopwatch total;
  detail::check_lms_options(options);
  const detail::ModelData data = detail::make_model_data(X, y, options.intercept);
  return detail::fit_lms_on(data, detail::RowReductions{}, options, detail::one_process_parts(data, options), total);
}

FitResult fit_ls(MatrixRef X, VectorRef y, bool intercept) {
  return detail::fit_ls_on(X, y, intercept, detail::RowReductions{}, "cpu");
}

void check_design(MatrixRef X, VectorRef y, bool intercept,
                  std::span<const std::string> names) {
  detail::check_model_data(X, y, intercept, names);
}

}  // namespace robustfit::regression
