#pragma once
// The concentration-step search of Rousseeuw & Van Driessen, written once for FAST-LTS and
// FAST-MCD: random starts, a few C-steps each (a C-step keeps the h rows with the smallest
// values - squared residuals, Mahalanobis distances - and refits on them, never increasing the
// objective), the best candidates kept; for n >= 600 the nested extension (disjoint random
// subsamples of 300 rows, their best refined on the merged set, then on the full data); the
// finalists iterated to convergence.
//
// Candidates are the columns of a matrix (LTS: coefficients; MCD: center and covariance). The
// estimator supplies a Steps object with
//   Candidates starts(Engine&, Random&, std::size_t count, bool& exhaustive)
//   void c_step(Engine&, Eigen::MatrixXd& candidates, std::size_t h, std::span<double> before)
//       one C-step per column; before[j] = the objective of the column it replaced
//   void objectives(Engine&, const Eigen::MatrixXd& candidates, std::size_t h, std::span<double> out)
//   bool improves(double objective, double best) const   (beyond rounding)
//   bool exact(double objective) const                    (an exact fit: nothing left to improve)
//   bool carries_objective() const   whether `before` of a candidate from an earlier stage (other
//       rows) is its objective on these rows: LTS's is (the trimmed sum of its residuals here),
//       MCD's is not (the determinant of an h-subset of the subsample)
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "best_candidates.hpp"
#include "c_steps.hpp"
#include "elemental_stream.hpp"
#include "engine.hpp"
#include "progress.hpp"
#include "robustfit/regression/fit_result.hpp"
#include "stopwatch.hpp"
#include "subsets.hpp"

namespace robustfit::regression::detail {

struct SearchPlan {
  std::size_t keep_best = 10;       // finalists per stage (robustbase: 10)
  int initial_steps = 2;            // C-steps per start and per stage (robustbase: k1 = k2 = 2)
  int max_steps = 500;              // final iterations
  std::size_t subsample_size = 300; // robustbase's nmini
  std::size_t max_subsamples = 5;   // robustbase's kmini
  // Above this n only the best `final_keep` finalists go on to the final iterations on the
  // full data (FAST-MCD follows only its best one for n > 5000).
  std::size_t final_keep_above = std::numeric_limits<std::size_t>::max();
  std::size_t final_keep = 1;
  // Candidates that go on to convergence (0: keep_best): without subsamples, those of the starts
  // on the full data; nested, those carried from the merged set to the full data.
  std::size_t finalists_full_data = 0;
  std::size_t to_full_data = 0;
};

struct SearchOutcome {
  Eigen::VectorXd best;   // the best candidate found
  double objective = 0;   // its objective
  std::size_t tried = 0, singular = 0;
  bool exhaustive = false;
};

// Shares of the whole fit in progress reports: the starts and their first C-steps up to
// kFinalStageBegin, the finalists' iterations up to kFinalStageEnd, the estimator's finish after.
inline constexpr double kFinalStageBegin = 0.6, kFinalStageEnd = 0.95;

// `steps` C-steps on every candidate; returns the objectives of the resulting candidates.
template <class Steps>
std::vector<double> concentrate(Steps& s, Engine& engine, Eigen::MatrixXd& candidates, std::size_t h, int steps) {
  std::vector<double> objectives(static_cast<std::size_t>(candidates.cols()));
  for (int step = 0; step < steps; ++step) s.c_step(engine, candidates, h, objectives);
  s.objectives(engine, candidates, h, objectives);
  return objectives;
}

// C-steps on every candidate until its objective stops improving (or max_steps); candidates
// end as the best seen, and their objectives are returned. Candidates that reach the same
// subset (bitwise equal columns) are followed once.
template <class Steps>
std::vector<double> concentrate_to_convergence(Steps& s, Engine& engine, Eigen::MatrixXd& candidates, std::size_t h,
                                               int max_steps, Progress* progress = nullptr) {
  const auto m = static_cast<std::size_t>(candidates.cols());
  std::vector<double> best(m, std::numeric_limits<double>::infinity());
  Eigen::MatrixXd best_candidates = candidates;
  std::vector<std::size_t> active(m);
  std::iota(active.begin(), active.end(), std::size_t{0});
  Eigen::MatrixXd work = candidates;
  std::vector<double> before;
  Stopwatch trace_watch;
  for (int step = 0; step < max_steps && !active.empty(); ++step) {
    before.assign(active.size(), 0);
    s.c_step(engine, work, h, before);  // before[a]: objective of work's old column a
    trace("converge c_step", trace_watch.lap(), static_cast<long long>(active.size()));
    std::vector<std::size_t> still;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::size_t j = active[a];
      // A start whose objective belongs to other rows is no benchmark: its first C-step counts
      // as an improvement on +inf.
      if (step == 0 && !s.carries_objective()) before[a] = std::numeric_limits<double>::infinity();
      const bool improved = step == 0 && !s.carries_objective() ? true : s.improves(before[a], best[j]);
      if (improved) {
        best[j] = before[a];
        best_candidates.col(static_cast<Eigen::Index>(j)) = candidates.col(static_cast<Eigen::Index>(j));
      }
      candidates.col(static_cast<Eigen::Index>(j)) = work.col(static_cast<Eigen::Index>(a));
      const bool duplicate = std::any_of(still.begin(), still.end(), [&](std::size_t b) {
        return work.col(static_cast<Eigen::Index>(b)) == work.col(static_cast<Eigen::Index>(a));
      });
      if (improved && !s.exact(before[a]) && !duplicate) still.push_back(a);
    }
    Eigen::MatrixXd kept(work.rows(), static_cast<Eigen::Index>(still.size()));
    std::vector<std::size_t> next_active;
    for (std::size_t i = 0; i < still.size(); ++i) {
      kept.col(static_cast<Eigen::Index>(i)) = work.col(static_cast<Eigen::Index>(still[i]));
      next_active.push_back(active[still[i]]);
    }
    work = std::move(kept);
    active = std::move(next_active);
    trace("converge bookkeeping", trace_watch.lap(), static_cast<long long>(active.size()));
    if (progress != nullptr) {  // the larger of the steps taken and the finalists converged
      const double steps_done = static_cast<double>(step + 1) / static_cast<double>(max_steps);
      const double converged = m == 0 ? 1.0 : 1.0 - static_cast<double>(active.size()) / static_cast<double>(m);
      progress->report("C-steps", kFinalStageBegin + (kFinalStageEnd - kFinalStageBegin) * std::max(steps_done, converged));
    }
  }
  // Candidates still improving at max_steps: their latest columns are unevaluated; keep the
  // best evaluated ones.
  candidates = best_candidates;
  return best;
}

namespace concentration {

// h for a subsample of m of the n rows, scaled as FAST-LTS/FAST-MCD scale it, kept in (p, m].
inline std::size_t scaled_h(std::size_t h, std::size_t n, std::size_t m, std::size_t p) {
  const auto scaled = static_cast<std::size_t>(std::ceil(static_cast<double>(m) * static_cast<double>(h) / static_cast<double>(n)));
  return std::clamp(scaled, p + 1, m);
}

template <class Steps>
Eigen::MatrixXd starts_on_full_data(Steps& s, Engine& engine, Random& random, std::size_t h, std::size_t subsets,
                                    const SearchPlan& plan, SearchOutcome& out, PhaseTimings& timings, Progress& progress) {
  Stopwatch watch;
  Candidates c = s.starts(engine, random, subsets, out.exhaustive);
  out.tried += c.tried;
  out.singular += c.singular;
  timings.subsets_s += watch.lap();
  progress.report("subsets", kFinalStageBegin / 3);
  const std::vector<double> objectives = concentrate(s, engine, c.betas, h, plan.initial_steps);
  timings.csteps_s += watch.lap();
  progress.report("C-steps", kFinalStageBegin);
  return best_columns(c.betas, objectives, plan.finalists_full_data > 0 ? plan.finalists_full_data : plan.keep_best);
}

template <class Steps>
Eigen::MatrixXd starts_on_subsamples(Steps& s, Engine& engine, Random& random, std::size_t h, std::size_t subsets,
                                     const SearchPlan& plan, SearchOutcome& out, PhaseTimings& timings, Progress& progress) {
  Stopwatch watch;
  const std::size_t n = engine.rows(), p = engine.cols();
  const std::size_t groups = std::min(plan.max_subsamples, n / plan.subsample_size);
  const std::size_t merged_size = std::min(n, groups * plan.subsample_size);
  // A random selection of merged_size rows (partial Fisher-Yates), cut into `groups` parts.
  std::vector<std::size_t> rows(n);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  for (std::size_t i = 0; i < merged_size; ++i) std::swap(rows[i], rows[i + random.below(n - i)]);
  rows.resize(merged_size);

  Eigen::MatrixXd survivors(0, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t begin = g * merged_size / groups, end = (g + 1) * merged_size / groups;
    std::vector<std::size_t> group_rows(rows.begin() + static_cast<std::ptrdiff_t>(begin), rows.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(group_rows.begin(), group_rows.end());
    auto group = engine.restrict_to(group_rows);
    bool exhaustive = false;
    Candidates c = s.starts(*group, random, std::max<std::size_t>(1, subsets / groups), exhaustive);
    out.tried += c.tried;
    out.singular += c.singular;
    timings.subsets_s += watch.lap();
    const std::vector<double> objectives =
        concentrate(s, *group, c.betas, scaled_h(h, n, group_rows.size(), p), plan.initial_steps);
    const Eigen::MatrixXd best = best_columns(c.betas, objectives, plan.keep_best);
    if (survivors.size() == 0) survivors.resize(best.rows(), 0);
    survivors.conservativeResize(Eigen::NoChange, survivors.cols() + best.cols());
    survivors.rightCols(best.cols()) = best;
    const double group_s = watch.lap();
    trace("subsample group", group_s, static_cast<long long>(group_rows.size()));
    timings.csteps_s += group_s;
    progress.report("subsets", 0.8 * kFinalStageBegin * static_cast<double>(g + 1) / static_cast<double>(groups));
  }
  std::sort(rows.begin(), rows.end());
  auto merged = engine.restrict_to(rows);
  const std::vector<double> objectives =
      concentrate(s, *merged, survivors, scaled_h(h, n, merged_size, p), plan.initial_steps);
  const double merged_s = watch.lap();
  trace("merged set", merged_s, static_cast<long long>(survivors.cols()));
  timings.csteps_s += merged_s;
  progress.report("C-steps", kFinalStageBegin);
  return best_columns(survivors, objectives, plan.to_full_data > 0 ? plan.to_full_data : plan.keep_best);
}

}  // namespace concentration

namespace concentration {

// The finalists (best first) and `extra` to convergence; the best of them is the outcome.
template <class Steps>
void converge_finalists(Steps& s, Engine& engine, std::size_t h, Eigen::MatrixXd finalists, const SearchPlan& plan,
                        SearchOutcome& out, PhaseTimings& timings, Progress& progress, const Eigen::MatrixXd& extra) {
  Stopwatch watch;
  if (engine.rows() > plan.final_keep_above && static_cast<std::size_t>(finalists.cols()) > plan.final_keep)
    finalists = Eigen::MatrixXd(finalists.leftCols(static_cast<Eigen::Index>(plan.final_keep)));
  if (extra.cols() > 0) {
    finalists.conservativeResize(Eigen::NoChange, finalists.cols() + extra.cols());
    finalists.rightCols(extra.cols()) = extra;
  }
  const std::vector<double> objectives = concentrate_to_convergence(s, engine, finalists, h, plan.max_steps, &progress);
  timings.csteps_s += watch.lap();
  // The first of equal objectives: the better-ranked finalist.
  const auto best = std::min_element(objectives.begin(), objectives.end()) - objectives.begin();
  out.best = finalists.col(best);
  out.objective = objectives[static_cast<std::size_t>(best)];
}

}  // namespace concentration

// The whole search: starts (nested for n >= 2 * subsample_size), finalists to convergence.
// `extra_finalists` (columns of candidates, e.g. deterministic starts) join the finalists on the
// full data; they take no finalist's place and draw nothing from the random stream.
template <class Steps>
SearchOutcome concentration_search(Steps& s, Engine& engine, std::size_t h, std::size_t subsets, std::uint64_t seed,
                                   const SearchPlan& plan, PhaseTimings& timings, Progress progress = {},
                                   const Eigen::MatrixXd& extra_finalists = {}) {
  Random random(seed);
  SearchOutcome out;
  Eigen::MatrixXd finalists =
      engine.rows() < 2 * plan.subsample_size
          ? concentration::starts_on_full_data(s, engine, random, h, subsets, plan, out, timings, progress)
          : concentration::starts_on_subsamples(s, engine, random, h, subsets, plan, out, timings, progress);
  concentration::converge_finalists(s, engine, h, std::move(finalists), plan, out, timings, progress, extra_finalists);
  return out;
}

// The same search from every elemental subset of the full data (robustbase's nsamp = "exact"),
// streamed `chunk` subsets at a time (elemental_stream.hpp): `initial_steps` C-steps each, the
// best distinct candidates (as many as starts_on_full_data keeps) to convergence. No subsamples,
// whatever n: the enumeration is the whole point. Candidates are elemental fits (LTS).
template <class Steps>
SearchOutcome exhaustive_concentration_search(Steps& s, Engine& engine, std::size_t h, const SearchPlan& plan,
                                              PhaseTimings& timings, Progress progress = {},
                                              const Eigen::MatrixXd& extra_finalists = {},
                                              std::size_t chunk = kElementalChunk) {
  SearchOutcome out;
  out.exhaustive = true;
  BestCandidates keep(plan.finalists_full_data > 0 ? plan.finalists_full_data : plan.keep_best);
  const ElementalStream stream = stream_elemental_fits(
      engine, chunk, keep,
      [&](Eigen::MatrixXd& fits, std::vector<double>& objectives) {
        objectives = concentrate(s, engine, fits, h, plan.initial_steps);
      },
      progress, 0, kFinalStageBegin);
  out.tried = stream.tried;
  out.singular = stream.singular;
  timings.subsets_s += stream.solve_s;
  timings.csteps_s += stream.evaluate_s;
  concentration::converge_finalists(s, engine, h, keep.columns(), plan, out, timings, progress, extra_finalists);
  return out;
}

}  // namespace robustfit::regression::detail
