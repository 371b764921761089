#include "cpu_engine.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <limits>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "all_rows.hpp"
#include "least_squares.hpp"
#include "subsets.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/capabilities.hpp"
#include "robustfit/selection/cpu_select.hpp"
#include "robustfit/selection/cpu_smallest_h.hpp"
#include "univariate.hpp"

namespace robustfit::regression::detail {

using common::parallel_for;
using common::parallel_rows;
using common::worker_count;

namespace {

// True for sort & choose; checks `selection` against the capability table's CPU cell.
bool sorts(selection::Algorithm selection) {
  selection::require_offered(selection::Backend::cpu, selection::Use::batched, selection);
  return selection == selection::Algorithm::sort;
}

// shortest_window_inplace's window (the candidate's exact intercept and objective); from
// kBinnedWindowRows values without sorting them all (shortest_window_below_unsorted: the same
// window; it declines only an infinite or NaN width, which the sort then gives as before).
ShortestWindow lms_window(std::vector<double>& values, std::size_t h) {
  if (values.size() >= kBinnedWindowRows)
    if (const auto window = shortest_window_below_unsorted(values, h, std::numeric_limits<double>::infinity())) return *window;
  return shortest_window_inplace(values, h);
}

// Sort & choose twin of selection::smallest_h: the same rows by a full sort (MCD's C-steps).
std::vector<std::size_t> smallest_h_rows_by_sort(const Eigen::VectorXd& squares, std::size_t h) {
  selection::require_no_nan<double>(values_of(squares));
  std::vector<std::size_t> order(static_cast<std::size_t>(squares.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Stable: rows tied with the h-th smallest square are taken in row order, as smallest_h does.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return squares(static_cast<Eigen::Index>(a)) < squares(static_cast<Eigen::Index>(b));
  });
  std::vector<std::size_t> rows(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(h));
  std::sort(rows.begin(), rows.end());
  return rows;
}

double kth_smallest_by_sort(std::span<double> values, std::size_t k) {
  selection::require_no_nan<double>(values);
  std::sort(values.begin(), values.end());
  return values[k];
}

}  // namespace

CpuEngine::CpuEngine(Eigen::MatrixXd X, Eigen::VectorXd y, selection::Algorithm selection)
    : own_X_(std::move(X)), own_y_(std::move(y)), X_(own_X_), y_(own_y_), rows_(augmented_rows(X_, y_)),
      sort_(sorts(selection)), lts_(X_, y_, rows_, sort_) {}

CpuEngine::CpuEngine(const ModelData& data, selection::Algorithm selection)
    : X_(data.X), y_(data.y), rows_(augmented_rows(data.X, data.y)), sort_(sorts(selection)), lts_(X_, y_, rows_, sort_) {}

std::optional<Eigen::VectorXd> CpuEngine::refit(std::span<const double> squares, const HSubset& subset, std::size_t h) const {
  const Eigen::Index p = X_.cols();
  if (auto beta = solve_normal_equations(subset.gram.topLeftCorner(p, p), subset.gram.row(p).head(p).transpose())) return beta;
  return ls_on_rows(X_, y_, lts_.subset_rows(squares, subset, h));
}

template <class Body>
void CpuEngine::for_candidates(const Eigen::MatrixXd& betas, Body&& body) {
  const auto m = static_cast<std::size_t>(betas.cols()), n = rows();
  if (scratch_.size() < worker_count(m)) scratch_.resize(worker_count(m));
  // A candidate on all threads spreads over its row chunks; candidates in parallel keep
  // min(count, threads) threads busy: the wider way (candidates_in_turn, cpu_lts_c_step.hpp).
  const auto rows_are_wider = [&](std::size_t count) { return candidates_in_turn(count, n); };
  // Fewer candidates than row chunks and threads: each in turn on all threads.
  const auto one_at_a_time = [&](std::size_t first, std::size_t last) {
    for (std::size_t j = first; j < last; ++j) {
      lts_.squares(betas.col(static_cast<Eigen::Index>(j)), true, scratch_[0].squares);
      body(j, std::span<const double>(scratch_[0].squares), true, scratch_[0]);
    }
  };
  if (rows_are_wider(m)) {
    one_at_a_time(0, m);
    return;
  }
  // Small data: candidates in parallel, each on one thread.
  if (n < kGroupRows) {
    parallel_for(m, [&](unsigned w, std::size_t j) {
      lts_.squares(betas.col(static_cast<Eigen::Index>(j)), false, scratch_[w].squares);
      body(j, std::span<const double>(scratch_[w].squares), false, scratch_[w]);
    });
    return;
  }
  // Large data: the residuals of kGroup candidates in one pass over X (a slice of rows at a time
  // serves them all), then the candidates in parallel.
  for (std::size_t first = 0; first < m; first += kGroup) {
    const std::size_t count = std::min(kGroup, m - first);
    if (rows_are_wider(count)) {
      one_at_a_time(first, m);
      return;
    }
    group_squares_.resize(count * n);
    const auto group = betas.middleCols(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(count));
    parallel_rows(n, [&](std::size_t, std::size_t begin, std::size_t end) { lts_.squares(group, begin, end, group_squares_.data(), n); });
    parallel_for(count, [&](unsigned w, std::size_t c) {
      body(first + c, std::span<const double>(group_squares_.data() + c * n, n), false, scratch_[w]);
    });
  }
}

void CpuEngine::solve_elemental(const SubsetMatrix& subsets, Eigen::MatrixXd& betas,
                                std::vector<std::uint8_t>& ok) {
  solve_elemental_systems(X_, y_, subsets, betas, ok);
}

void CpuEngine::lts_objectives(const Eigen::MatrixXd& betas, std::size_t h, std::span<double> out) {
  for_candidates(betas, [&](std::size_t j, std::span<const double> squares, bool all_threads, CStepScratch& scratch) {
    out[j] = lts_.h_subset(squares, h, false, all_threads, scratch.selection).objective;
  });
}

void CpuEngine::c_step(Eigen::MatrixXd& betas, std::size_t h, std::span<double> objective_before) {
  const auto m = static_cast<std::size_t>(betas.cols());
  // A candidate whose coefficients the last C-step produced continues from its subset there
  // (the first of equal columns only), found by a hash of the coefficients' bytes. Kept on
  // large data only (on small data a Gram matrix afresh costs about what the bookkeeping does)
  // and while the subsets take at most kSubsetMemory bytes.
  constexpr std::size_t kUpdateRows = 16384, kSubsetMemory = std::size_t{1} << 26;
  const bool keep = rows() >= kUpdateRows && m * rows() <= kSubsetMemory;
  const auto bytes_of = [](const auto& column) {
    return std::string_view(reinterpret_cast<const char*>(column.data()), static_cast<std::size_t>(column.size()) * sizeof(double));
  };
  std::unordered_multimap<std::size_t, std::size_t> last_by_hash;
  for (std::size_t k = 0; k < last_subsets_.size(); ++k) last_by_hash.emplace(std::hash<std::string_view>{}(bytes_of(last_subsets_[k].beta)), k);
  std::vector<SubsetState> states(keep ? m : 0);
  for (std::size_t j = 0; j < states.size(); ++j) {
    const auto column = betas.col(static_cast<Eigen::Index>(j));
    const auto [first, last] = last_by_hash.equal_range(std::hash<std::string_view>{}(bytes_of(column)));
    for (auto it = first; it != last; ++it) {
      LastSubset& previous = last_subsets_[it->second];
      if (!previous.state.in.empty() && previous.beta == column) {
        states[j] = std::move(previous.state);
        previous.state = SubsetState{};
        break;
      }
    }
  }
  last_subsets_.clear();
  // Candidate j's residuals are computed before its column changes.
  for_candidates(betas, [&](std::size_t j, std::span<const double> squares, bool all_threads, CStepScratch& scratch) {
    const HSubset subset = lts_.h_subset(squares, h, true, all_threads, scratch.selection, keep ? &states[j] : nullptr);
    objective_before[j] = subset.objective;
    if (auto beta = refit(squares, subset, h)) betas.col(static_cast<Eigen::Index>(j)) = *beta;
  });
  for (std::size_t j = 0; j < states.size(); ++j) last_subsets_.push_back({betas.col(static_cast<Eigen::Index>(j)), std::move(states[j])});
}

void CpuEngine::lms_objectives(Eigen::MatrixXd& betas, std::size_t h, bool adjust_intercept,
                               std::span<double> out, std::size_t /*needed: every objective exact*/) {
  std::vector<std::vector<double>> scratch(worker_count(static_cast<std::size_t>(betas.cols())));
  parallel_for(static_cast<std::size_t>(betas.cols()), [&](unsigned w, std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    auto& values = scratch[w];
    values.resize(rows());
    Eigen::Map<Eigen::VectorXd> r(values.data(), X_.rows());
    if (adjust_intercept) {
      // Residuals without the intercept; the best intercept is their univariate LMS location.
      r.noalias() = y_ - X_.rightCols(X_.cols() - 1) * betas.col(col).tail(X_.cols() - 1);
      const ShortestWindow window = lms_window(values, h);
      betas(0, col) = window.center;
      out[j] = window.half_width * window.half_width;
    } else {
      r.noalias() = y_ - X_ * betas.col(col);
      r.array() = r.array().square();
      out[j] = sort_ ? kth_smallest_by_sort(values, h - 1)
                     : selection::kth_smallest_inplace(std::span<double>(values), h - 1);
    }
  });
}

std::unique_ptr<Engine> CpuEngine::restrict_to(std::span<const std::size_t> rows) const {
  Eigen::MatrixXd X(static_cast<Eigen::Index>(rows.size()), X_.cols());
  Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    X.row(static_cast<Eigen::Index>(i)) = X_.row(static_cast<Eigen::Index>(rows[i]));
    y(static_cast<Eigen::Index>(i)) = y_(static_cast<Eigen::Index>(rows[i]));
  }
  return std::make_unique<CpuEngine>(std::move(X), std::move(y),
                                     sort_ ? selection::Algorithm::sort : selection::Algorithm::automatic);
}

void CpuEngine::subset_grams(const SubsetMatrix& rows, Eigen::MatrixXd& grams) {
  const Eigen::Index p = X_.cols(), q = p + 1;
  grams.resize(q * q, rows.cols());
  parallel_for(static_cast<std::size_t>(rows.cols()), [&](unsigned, std::size_t j) {
    const auto col = static_cast<Eigen::Index>(j);
    Eigen::MatrixXd A(rows.rows(), q);
    for (Eigen::Index r = 0; r < rows.rows(); ++r) {
      const auto row = static_cast<Eigen::Index>(rows(r, col));
      A.row(r) = rows_.row(row);
    }
    Eigen::Map<Eigen::MatrixXd> G(grams.col(col).data(), q, q);
    G.setZero();
    G.selfadjointView<Eigen::Lower>().rankUpdate(A.transpose());
  });
}

void CpuEngine::mcd_c_step_one(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                               std::size_t j, bool parallel_chunks, Eigen::MatrixXd& grams) const {
  const std::size_t n = rows();
  const Eigen::Index p = X_.cols(), q = p + 1;
  const auto col = static_cast<Eigen::Index>(j);
  const Eigen::MatrixXd W = whiteners.middleCols(col * p, p);
  const Eigen::RowVectorXd shift = (W * centers.col(col)).transpose();
  const std::size_t chunks = common::row_chunk_count(n);
  auto over_chunks = [&](auto&& body) {
    if (parallel_chunks) {
      parallel_rows(n, [&](std::size_t c, std::size_t begin, std::size_t end) { body(c, begin, end); });
    } else {
      for (std::size_t c = 0; c < chunks; ++c) body(c, common::row_chunk_begin(n, c), common::row_chunk_begin(n, c + 1));
    }
  };
  // Squared distances |W x_i - W c|^2, a row chunk at a time.
  Eigen::VectorXd distances(static_cast<Eigen::Index>(n));
  over_chunks([&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    const Eigen::MatrixXd Y = X_.middleRows(b, m) * W.transpose();
    // Column by column: contiguous, vectorised (a row-wise norm strides through Y).
    auto d = distances.segment(b, m).array();
    d = (Y.col(0).array() - shift(0)).square();
    for (Eigen::Index k = 1; k < p; ++k) d += (Y.col(k).array() - shift(k)).square();
  });
  std::vector<std::size_t> subset;
  if (sort_) {
    subset = smallest_h_rows_by_sort(distances, h);
  } else {
    subset = parallel_chunks ? selection::smallest_h_parallel<double>(values_of(distances), h).rows
                             : selection::smallest_h<double>(values_of(distances), h).rows;
  }
  // The Gram matrix of the subset's rows: partial sums per row chunk, added in chunk order.
  std::vector<std::size_t> first(chunks + 1);
  for (std::size_t c = 0; c <= chunks; ++c)
    first[c] = static_cast<std::size_t>(std::lower_bound(subset.begin(), subset.end(), common::row_chunk_begin(n, c)) - subset.begin());
  std::vector<Eigen::MatrixXd> partial(chunks);
  over_chunks([&](std::size_t c, std::size_t, std::size_t) {
    const auto m = static_cast<Eigen::Index>(first[c + 1] - first[c]);
    Eigen::MatrixXd A(m, q);
    for (Eigen::Index r = 0; r < m; ++r) {
      const auto row = static_cast<Eigen::Index>(subset[first[c] + static_cast<std::size_t>(r)]);
      A.row(r) = rows_.row(row);
    }
    partial[c] = Eigen::MatrixXd::Zero(q, q);
    partial[c].selfadjointView<Eigen::Lower>().rankUpdate(A.transpose());
  });
  Eigen::Map<Eigen::MatrixXd> G(grams.col(col).data(), q, q);
  G.setZero();
  for (const auto& part : partial) G += part;
}

void CpuEngine::mcd_c_step(const Eigen::MatrixXd& centers, const Eigen::MatrixXd& whiteners, std::size_t h,
                           Eigen::MatrixXd& grams) {
  const Eigen::Index q = X_.cols() + 1;
  const auto m = static_cast<std::size_t>(centers.cols());
  grams.resize(q * q, centers.cols());
  if (m == 1) {
    mcd_c_step_one(centers, whiteners, h, 0, true, grams);
    return;
  }
  parallel_for(m, [&](unsigned, std::size_t j) { mcd_c_step_one(centers, whiteners, h, j, false, grams); });
}

}  // namespace robustfit::regression::detail
