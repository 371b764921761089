// FAST-LTS (Rousseeuw & Van Driessen 2006) with robustbase::ltsReg's defaults, written once
// over the Engine interface on the shared concentration-step search (concentration.hpp):
// random elemental starts, two C-steps each, the 20 best (robustbase: 10) iterated to
// convergence; for n >= 600 the nested extension (disjoint subsamples of 300, a merged set of
// at most 1500, then the full data). subsets = all_subsets: every elemental subset instead of
// random ones, as robustbase's nsamp = "exact" (streamed: elemental_stream.hpp).
#include <algorithm>
#include <future>
#include <limits>
#include <span>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "concentration.hpp"
#include "design_matrix.hpp"
#include "deterministic_starts.hpp"
#include "engine_factory.hpp"
#include "finish.hpp"
#include "lts_fit.hpp"
#include "lts_search.hpp"
#include "robust_distances.hpp"
#include "robustfit/regression/estimators.hpp"
#include "stopwatch.hpp"
#include "subsets.hpp"

namespace robustfit::regression {

std::size_t h_alpha_n(double alpha, std::size_t n, std::size_t p) {
  const std::size_t n2 = (n + p + 1) / 2;
  return static_cast<std::size_t>(std::floor(2.0 * static_cast<double>(n2) - static_cast<double>(n) +
                                             2.0 * static_cast<double>(n - n2) * alpha));
}

namespace detail {
namespace {

// With --subsets (robustbase's search): robustbase keeps 10; 20 reached the optimum on 20/20
// seeds of the n = 1000 fixture where 10 reached it on 17/20 (docs/ARCHITECTURE.md), for about
// twice the final-stage work.
constexpr SearchPlan kLtsPlan{.keep_best = 20, .initial_steps = 2, .max_steps = 500};

// The default search (docs/SEARCH.md), chosen on the search-quality suite
// (bench/search_quality): 5000 random starts; below n = 600 the best 300 after two C-steps go
// to convergence; nested, 100 per subsample survive, the best 50 on the merged set go to the
// full data (20 above n = 20000, which keeps the time at n = 1e5 near robustbase's search);
// the deterministic starts join the finalists.
constexpr std::size_t kDefaultLtsStarts = 5000;
constexpr SearchPlan kLtsDefaultPlan{.keep_best = 100, .initial_steps = 2, .max_steps = 500,
                                     .final_keep_above = 20000, .final_keep = 20,
                                     .finalists_full_data = 300, .to_full_data = 50};

// FAST-LTS's operations for the shared search: candidates are coefficient vectors.
struct LtsSteps {
  Candidates starts(Engine& engine, Random& random, std::size_t count, bool& exhaustive) const {
    exhaustive = binomial(engine.rows(), engine.cols()) <= static_cast<double>(count);
    return exhaustive ? exhaustive_elemental_fits(engine) : random_elemental_fits(engine, random, count);
  }
  void c_step(Engine& engine, Eigen::MatrixXd& betas, std::size_t h, std::span<double> before) const {
    engine.c_step(betas, h, before);
  }
  void objectives(Engine& engine, const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) const {
    engine.lts_objectives(betas, h, out);
  }
  // C-steps never increase the objective; stop once it no longer decreases (relative to
  // rounding), or at an exact fit.
  bool improves(double objective, double best) const {
    return objective < best * (1 - 8 * std::numeric_limits<double>::epsilon());
  }
  bool exact(double objective) const { return objective <= 0; }
  bool carries_objective() const { return true; }
};

}  // namespace

SearchOutcome lts_search(Engine& engine, std::size_t h, std::optional<std::size_t> subsets, std::uint64_t seed,
                         PhaseTimings& timings, Progress progress, const Eigen::MatrixXd& deterministic,
                         std::size_t chunk) {
  LtsSteps steps;
  const std::size_t n = engine.rows(), p = engine.cols();
  if (subsets == all_subsets) {  // robustbase's nsamp = "exact", whatever n (robustbase: n < 600)
    require_enumerable(n, p);
    return exhaustive_concentration_search(steps, engine, h, kLtsPlan, timings, progress, {}, chunk);
  }
  const SearchPlan& plan = subsets ? kLtsPlan : kLtsDefaultPlan;
  const std::size_t starts = subsets.value_or(kDefaultLtsStarts);
  const Eigen::MatrixXd none;
  const Eigen::MatrixXd& extra = subsets ? none : deterministic;
  // No more subsets than starts (and no subsamples): all of them, as robustbase does.
  if (n < 2 * plan.subsample_size && binomial(n, p) <= static_cast<double>(starts))
    return exhaustive_concentration_search(steps, engine, h, plan, timings, progress, extra, chunk);
  return concentration_search(steps, engine, h, starts, seed, plan, timings, progress, extra);
}

}  // namespace detail

namespace detail {

void check_lts_options(const LtsOptions& options) {
  if (!(options.alpha >= 0.5 && options.alpha <= 1))
    throw std::invalid_argument("alpha = " + std::to_string(options.alpha) + " is out of range: it must lie in [0.5, 1]");
  if (options.subsets && *options.subsets == 0) throw std::invalid_argument("the number of subsets must be at least 1");
}

FitResult fit_lts_on(const ModelData& data, const RowReductions& all, const LtsOptions& options, const LtsParts& parts,
                     Stopwatch& total) {
  const std::size_t n = all.total(data.n()), p = data.p();
  const std::size_t h = options.h ? *options.h : h_alpha_n(options.alpha, n, p);
  if (h <= p || h > n)
    throw std::invalid_argument("h = " + std::to_string(h) + " is out of range: it must lie in [" +
                                std::to_string(p + 1) + ", " + std::to_string(n) + "] (p + 1 to n)");
  // robustbase's correction factors are indexed by alpha; an explicit h stands for h / n.
  const double alpha = options.h ? std::clamp(static_cast<double>(h) / static_cast<double>(n), 0.5, 1.0) : options.alpha;

  const bool default_search = !options.subsets;
  const bool every_subset = options.subsets == all_subsets;
  if (every_subset) require_enumerable(n, p);
  const std::size_t subsets = every_subset ? static_cast<std::size_t>(binomial(n, p)) : options.subsets.value_or(kDefaultLtsStarts);
  Stopwatch engine_watch;
  const std::unique_ptr<Engine> engine = parts.engine(SearchSize{n, p, subsets});
  trace("engine only", engine_watch.lap());
  FitResult result;
  result.timings.setup_s = total.lap();
  trace("engine made", result.timings.setup_s);
  // The robust R^2's scale of y depends on y and h alone. With the search on the GPU the host
  // mostly waits: one process takes it meanwhile from the reductions the finish will use (the
  // GPU's sort; the host only copies and scans), on a thread of its own.
  std::unique_ptr<RowReductions> early;
  std::future<double> y_window_variance;
  if (data.intercept && parts.y_window_variance_beside) {
    y_window_variance = parts.y_window_variance_beside(data.y, h);
  } else if (data.intercept && parts.reductions && engine->backend_name() == "cuda" && !all.spans_processes()) {
    early = parts.reductions(*engine);
    y_window_variance = std::async(std::launch::async, [&] { return early->min_window_variance(data.y, h); });
  }
  // FAST-MCD's robust distances depend on the predictors alone: likewise, one process computes
  // them meanwhile with an engine and reductions of their own (their host passes then overlap
  // the search's GPU work: at 10^7 x 10 some 0.25 s). Its errors come out where they did.
  McdParts mcd_parts = parts.mcd;  // before the future: the thread uses it until the future ends
  std::unique_ptr<RowReductions> mcd_reductions;
  std::future<RobustDistances> mcd_distances;
  if (options.mcd && parts.reductions && engine->backend_name() == "cuda" && !all.spans_processes()) {
    mcd_reductions = parts.reductions(*engine);
    // The predictors are this engine's columns after the intercept's: on the device already.
    if (mcd_parts.standardized_on_device)
      mcd_parts.standardized_on_device = [&engine = *engine, first = data.intercept ? 1u : 0u](
                                             Eigen::Ref<const Eigen::MatrixXd> X, const McdOptions& mcd, const SearchSize& size) {
        return standardized_rows_on_device(X, mcd.backend, mcd.selection, size, &engine, first);
      };
    mcd_distances = std::async(std::launch::async,
                               [&] { return robust_distances(data, *mcd_reductions, options, alpha, mcd_parts); });
  }
  Stopwatch starts_watch;
  const Eigen::MatrixXd extra = default_search ? parts.deterministic_starts(h) : Eigen::MatrixXd();
  const double starts_s = starts_watch.lap();
  const SearchOutcome search = lts_search(*engine, h, options.subsets, options.seed, result.timings, Progress(options.progress), extra);
  result.timings.subsets_s += starts_s;  // the deterministic starts are starts too
  record_kernel_times(*engine, result.timings);
  result.method = Method::lts;
  result.backend = engine->backend_name();
  result.selection = engine->selection_name();
  result.precision = options.precision;
  result.subsets_tried = search.tried;
  result.singular_subsets = search.singular;
  result.exhaustive = search.exhaustive;
  Stopwatch watch, trace_watch;
  const AfterSearch after(parts, *engine, all);
  trace("after-search setup", trace_watch.lap());
  finish_lts(data, after.reductions(), search.best, h, alpha, options.reweight, result,
             y_window_variance.valid() ? std::optional<double>(y_window_variance.get()) : std::nullopt);
  to_original_scale(data, result.coefficients);
  to_original_scale(data, result.raw_coefficients);
  trace("finish_lts + scale back", trace_watch.lap());
  if (mcd_distances.valid()) fill_robust_distances(mcd_distances.get(), result);
  else if (options.mcd) fill_robust_distances(data, after.reductions(), options, alpha, parts.mcd, result);
  trace("robust distances (wait)", trace_watch.lap());
  result.timings.finish_s = watch.lap();
  result.timings.total_s = result.timings.setup_s + total.lap();
  Progress(options.progress).report("finish", 1.0);
  return result;
}

}  // namespace detail

FitResult fit_lts(MatrixRef X, VectorRef y, const LtsOptions& options) {
  detail::Stopwatch total;
  detail::check_lts_options(options);
  const std::jthread cuda_context = detail::warm_up_cuda_for(
      options.backend, options.selection, options.precision,
      detail::SearchSize{static_cast<std::size_t>(X.rows()), static_cast<std::size_t>(X.cols()) + (options.intercept ? 1 : 0),
                         options.subsets.value_or(detail::kDefaultLtsStarts)});
  detail::Stopwatch trace_watch;
  const detail::ModelData data = detail::make_model_data(X, y, options.intercept);
  detail::trace("make_model_data", trace_watch.lap());
  return detail::fit_lts_on(data, detail::RowReductions{}, options, detail::one_process_parts(data, options), total);
}

}  // namespace robustfit::regression
