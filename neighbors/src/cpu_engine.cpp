#include "cpu_engine.hpp"

#include "robustfit/common/parallel.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "direct_distance.hpp"
#include "filter_kernel.hpp"
#include "spatial_order.hpp"
#include "robustfit/common/parallel.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::neighbors::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();  // 2u

// A row that may be among the k nearest: lo <= its key <= hi (key: squared distance on the filter
// path, the distance itself on the direct path).
struct Candidate {
  double lo, hi;
  std::int64_t row;
};

// A bound on keys that also admits every key whose distance rounds equal to the distance of a
// key at the bound (sqrt merges neighbouring squared distances: s <= b (1 + 4u) then), so ties
// at the k-th distance are never lost to the filter.
double widen(double bound) { return bound + bound * (8 * kEps); }

// The candidates of one query, with the running k-th smallest upper bound.
class QueryCandidates {
 public:
  void reset(std::size_t k) {
    k_ = k;
    cap_ = k + std::max<std::size_t>(k, 16);
    bound_ = kInf;
    list_.clear();
  }
  double bound() const { return bound_; }  // widened
  void add(double lo, double hi, std::int64_t row, std::vector<double>& scratch) {
    list_.push_back({lo, hi, row});
    if (list_.size() >= cap_) shrink(scratch);
  }
  // Final: candidates under the threshold T = k-th smallest upper bound.
  std::span<const Candidate> finish(std::vector<double>& scratch) {
    shrink(scratch);
    return list_;
  }

 private:
  void shrink(std::vector<double>& scratch) {
    if (list_.size() < k_) return;
    scratch.resize(list_.size());
    for (std::size_t i = 0; i < list_.size(); ++i) scratch[i] = list_[i].hi;
    const double t = selection::kth_smallest_inplace<double>(scratch, k_ - 1);
    bound_ = std::min(bound_, widen(t));
    const double b = bound_;
    std::erase_if(list_, [b](const Candidate& c) { return c.lo > b; });
    // Tighten again after max(k, 16) more candidates (a tight bound is what keeps the filter's
    // survivors rare), or after doubling when many near-ties stay: amortised O(1) per candidate.
    cap_ = list_.size() + std::max({k_, std::size_t{16}, list_.size()});
  }
  std::size_t k_ = 0, cap_ = 0;
  double bound_ = kInf;
  std::vector<Candidate> list_;
};

// Per-worker scratch, reused across tasks.
struct Scratch {
  std::vector<double> minus_two_q, query, lower, lo, values, distances;
  std::vector<Survivor> survivors;
  std::vector<char> visited;
  std::vector<std::pair<double, std::size_t>> visit;  // (lower bound, block)
  std::vector<std::int64_t> ties;
  std::vector<QueryCandidates> queries;
  std::vector<std::pair<double, std::int64_t>> chosen;
};

class CpuEngine final : public Engine {
 public:
  CpuEngine(const RowMatrix& train, Metric metric) : train_(train), metric_(metric) {
    if (metric == Metric::euclidean) {
      blocks_.emplace(train);
      for (std::size_t b = 0; b < blocks_->blocks(); ++b) max_norm_ = std::max(max_norm_, blocks_->max_norm(b));
    }
  }

  std::string name() const override { return "cpu"; }

  NeighborLists nearest(const RowMatrix& queries, std::size_t k, bool ordered,
                        std::optional<std::size_t> exclude_self_from) override {
    const std::size_t n = static_cast<std::size_t>(train_.rows()), m = static_cast<std::size_t>(queries.rows());
    if (queries.cols() != train_.cols())
      throw std::invalid_argument("queries: " + std::to_string(queries.cols()) + " columns, the training data has " +
                                  std::to_string(train_.cols()));
    const std::size_t available = exclude_self_from ? n - std::min<std::size_t>(n, 1) : n;
    if (k == 0 || k > available)
      throw std::invalid_argument("k: " + std::to_string(k) + " is outside 1.." + std::to_string(available));
    if (exclude_self_from && *exclude_self_from + m > n)
      throw std::invalid_argument("exclude_self_from: query rows run past the training rows");

    NeighborLists out;
    out.queries = m;
    out.k = k;
    out.rows.resize(m * k);
    out.distances.resize(m * k);
    const Eigen::VectorXd q_sq = queries.rowwise().squaredNorm();
    const Eigen::VectorXd q_norm = q_sq.cwiseSqrt();
    const double reach = (m ? q_norm.maxCoeff() : 0) + max_norm_;
    // The filter needs finite squares; otherwise every distance is computed directly.
    const bool filter = blocks_ && std::isfinite(64 * reach * reach);
    // The filter takes the queries in spatial order: a group of nearby queries shares its blocks.
    std::vector<std::size_t> order;
    if (filter)
      order = spatial_order(queries, kGroupQueries);
    else
      order.resize(m), std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t tasks = (m + kQueryTile - 1) / kQueryTile;
    std::vector<Scratch> scratch(common::worker_count(tasks));
    common::parallel_for_dynamic(tasks, [&](unsigned worker, std::size_t task) {
      const std::size_t q0 = task * kQueryTile, q1 = std::min(m, q0 + kQueryTile);
      Scratch& s = scratch[worker];
      s.queries.resize(kQueryTile);
      for (std::size_t p = q0; p < q1; ++p) s.queries[p - q0].reset(k);
      if (filter)
        filter_queries(queries, order, q_sq, q_norm, q0, q1, exclude_self_from, s);
      else
        for (std::size_t t0 = 0; t0 < n; t0 += kTrainTile)
          direct_tile(queries, q0, q1, t0, std::min(n, t0 + kTrainTile), exclude_self_from, s);
      for (std::size_t p = q0; p < q1; ++p) {
        const std::size_t i = order[p];
        choose(queries, i, k, ordered, s.queries[p - q0], s, &out.rows[i * k], &out.distances[i * k]);
      }
    });
    return out;
  }

 private:
  static std::optional<std::size_t> self_row(std::optional<std::size_t> from, std::size_t i) {
    return from ? std::optional<std::size_t>(*from + i) : std::nullopt;
  }

  // The filter over every training block for the queries [q0, q1) (at most kQueryTile).
  //
  // Error bound. The kernel computes a = |x|^2 + sum_c (-2 q_c) x_c in column order, with or
  // without fused multiply-adds, from |x|^2 as computed (in any order); then s' = |q|^2 + a.
  // With u the unit roundoff and r = |q| + |x|: |s' - |q - x|^2| <= (2d + 2) u r^2 (1 + O(du))
  // (|q|^2 and |x|^2 each d u r^2, the d + 1 terms of a (d + 1) u r^2, the last sum u r^2), and
  // THE distance's square s (direct_distance.cpp) is within (d + 2) u r^2 of |q - x|^2. So
  // e = rel r^2 + abs with rel = 8 (d + 4) u > 2 (3d + 4) u bounds |s' - s| with a factor 2 to
  // spare; abs covers results below the normal range (each operation errs by at most 2^-1075
  // there, about 9d + 2 of them). Every rounded operation is monotone, so a row with
  // s <= T (the running bound) has s' - e <= T, and s' <= T + e as rounded; hi = s' + e >= s.
  void filter_queries(const RowMatrix& queries, const std::vector<std::size_t>& order, const Eigen::VectorXd& q_sq,
                      const Eigen::VectorXd& q_norm, std::size_t q0, std::size_t q1, std::optional<std::size_t> exclude,
                      Scratch& s) const {
    const std::size_t d = static_cast<std::size_t>(train_.cols()), G = kGroupQueries, blocks = blocks_->blocks();
    const double rel = 4 * (static_cast<double>(d) + 4) * kEps;
    const double abs = 16 * (static_cast<double>(d) + 4) * std::numeric_limits<double>::denorm_min();
    s.minus_two_q.assign(G * d, 0.0);
    s.lower.resize(G * blocks);
    s.query.resize(d);
    s.visited.resize(blocks);
    s.survivors.resize(G * kBlockRows);
    for (std::size_t g0 = q0; g0 < q1; g0 += G) {
      const std::size_t members = std::min(G, q1 - g0);
      for (std::size_t g = 0; g < members; ++g)
        for (std::size_t c = 0; c < d; ++c)
          s.minus_two_q[g * d + c] = -2 * queries(static_cast<Eigen::Index>(order[g0 + g]), static_cast<Eigen::Index>(c));
      std::fill(s.minus_two_q.begin() + static_cast<std::ptrdiff_t>(members * d), s.minus_two_q.end(), 0.0);
      box_lower_bounds(queries, order, g0, members, s);
      // First the block nearest to each query (a tight bound early), then the blocks that may
      // still hold neighbours by increasing lower bound, so the bounds shrink fast.
      std::fill(s.visited.begin(), s.visited.end(), char{0});
      for (std::size_t g = 0; g < members; ++g) {
        const double* lower = s.lower.data() + g * blocks;
        const auto b = static_cast<std::size_t>(std::min_element(lower, lower + blocks) - lower);
        if (!s.visited[b]) filter_block(order, q_sq, q_norm, g0, members, b, q0, rel, abs, exclude, s);
        s.visited[b] = 1;
      }
      double reach = 0;
      for (std::size_t g = 0; g < members; ++g) reach = std::max(reach, s.queries[g0 + g - q0].bound());
      s.visit.clear();
      for (std::size_t b = 0; b < blocks; ++b) {
        if (s.visited[b]) continue;
        double nearest = kInf;
        for (std::size_t g = 0; g < members; ++g) nearest = std::min(nearest, s.lower[g * blocks + b]);
        if (nearest <= reach) s.visit.emplace_back(nearest, b);
      }
      std::sort(s.visit.begin(), s.visit.end());
      for (const auto& [nearest, b] : s.visit)
        filter_block(order, q_sq, q_norm, g0, members, b, q0, rel, abs, exclude, s);
    }
  }

  // s.lower[g * blocks + b]: a lower bound on THE squared distance (s, as computed) from query
  // order[g0 + g] to every row of block b, from the block's bounding box. Computed, the sum of
  // squared gaps exceeds the exact one by at most (d + 3) u of itself, and s >= (1 - (d + 2) u)
  // |q - x|^2; the factor 1 - 8 (d + 4) u covers both twice over, the absolute term underflow.
  void box_lower_bounds(const RowMatrix& queries, const std::vector<std::size_t>& order, std::size_t g0,
                        std::size_t members, Scratch& s) const {
    const std::size_t d = static_cast<std::size_t>(train_.cols()), blocks = blocks_->blocks();
    const double scale = 1 - 4 * (static_cast<double>(d) + 4) * kEps;
    const double abs = 16 * (static_cast<double>(d) + 4) * std::numeric_limits<double>::denorm_min();
    for (std::size_t g = 0; g < members; ++g) {
      double* lower = s.lower.data() + g * blocks;
      for (std::size_t c = 0; c < d; ++c)
        s.query[c] = queries(static_cast<Eigen::Index>(order[g0 + g]), static_cast<Eigen::Index>(c));
      box_gaps(blocks_->box_low(), blocks_->box_high(), blocks, d, s.query.data(), lower);
      for (std::size_t b = 0; b < blocks; ++b) lower[b] = lower[b] * scale - abs;
    }
  }

  // Block b for the group of queries order[g0 .. g0 + members): skipped for a query whose
  // running bound is below the block's lower bound (no row of it can be among the k nearest).
  //
  // Error bound. The kernel computes a = |x|^2 + sum_c (-2 q_c) x_c in column order, with or
  // without fused multiply-adds, from |x|^2 as computed (in any order); then s' = |q|^2 + a.
  // With u the unit roundoff and r = |q| + |x|: |s' - |q - x|^2| <= (2d + 2) u r^2 (1 + O(du))
  // (|q|^2 and |x|^2 each d u r^2, the d + 1 terms of a (d + 1) u r^2, the last sum u r^2), and
  // THE distance's square s (direct_distance.cpp) is within (d + 2) u r^2 of |q - x|^2. So
  // e = rel r^2 + abs with rel = 8 (d + 4) u > 2 (3d + 4) u bounds |s' - s| with a factor 2 to
  // spare; abs covers results below the normal range (each operation errs by at most 2^-1075
  // there, about 9d + 2 of them). Every rounded operation is monotone, so a row with
  // s <= T (the running bound) has s' - e <= T, and s' <= T + e as rounded; hi = s' + e >= s.
  void filter_block(const std::vector<std::size_t>& order, const Eigen::VectorXd& q_sq,
                    const Eigen::VectorXd& q_norm, std::size_t g0, std::size_t members, std::size_t b, std::size_t q0,
                    double rel, double abs, std::optional<std::size_t> exclude, Scratch& s) const {
    const std::size_t d = static_cast<std::size_t>(train_.cols()), blocks = blocks_->blocks();
    double limit[kGroupQueries];
    bool any = false;
    for (std::size_t g = 0; g < kGroupQueries; ++g) {
      limit[g] = -kInf;  // an unused slot, or a query that skips this block
      if (g >= members) continue;
      const double bound = s.queries[g0 + g - q0].bound();
      if (s.lower[g * blocks + b] > bound) continue;
      const auto i = static_cast<Eigen::Index>(order[g0 + g]);
      // s' <= T + e for this block's largest e, rewritten as a bound on a = s' - |q|^2 with
      // margins for the rounding of this rewriting (a superset: survivors are rechecked).
      const double r = q_norm[i] + blocks_->max_norm(b);
      const double t = bound + (rel * (r * r) + abs);
      limit[g] = (t - q_sq[i]) + 4 * kEps * (t + q_sq[i]) + abs;
      any = true;
    }
    if (!any) return;
    const std::size_t count = scan_block(blocks_->columns(b), blocks_->squared_norms(b), d, s.minus_two_q.data(), limit,
                                         s.survivors.data());
    const double* norms = blocks_->norms(b);
    const std::int64_t* rows = blocks_->rows(b);
    for (std::size_t a = 0; a < count; ++a) {
      const Survivor& v = s.survivors[a];
      const std::size_t i = order[g0 + v.query];
      const std::int64_t row = rows[v.row];
      if (exclude && static_cast<std::size_t>(row) == *exclude + i) continue;
      QueryCandidates& c = s.queries[g0 + v.query - q0];
      const double sq = q_sq[static_cast<Eigen::Index>(i)] + v.a;
      const double r = q_norm[static_cast<Eigen::Index>(i)] + norms[v.row];
      const double e = rel * (r * r) + abs;
      const double lo = sq - e;
      if (lo > c.bound()) continue;
      c.add(lo, std::max(sq, 0.0) + e, row, s.values);
    }
  }

  void direct_tile(const RowMatrix& queries, std::size_t q0, std::size_t q1, std::size_t t0, std::size_t t1,
                   std::optional<std::size_t> exclude, Scratch& s) const {
    const std::size_t rows = t1 - t0, d = static_cast<std::size_t>(train_.cols());
    s.lo.resize(rows);
    for (std::size_t i = q0; i < q1; ++i) {
      direct_distances(queries.row(static_cast<Eigen::Index>(i)).data(), train_.row(static_cast<Eigen::Index>(t0)).data(),
                       rows, d, metric_, s.lo.data());
      if (const auto self = self_row(exclude, i); self && *self >= t0 && *self < t1) s.lo[*self - t0] = kInf;
      QueryCandidates& c = s.queries[i - q0];
      for (std::size_t j = 0; j < rows; ++j) {
        const double v = s.lo[j];
        if (v > c.bound() || (exclude && t0 + j == *self_row(exclude, i))) continue;
        c.add(v, v, static_cast<std::int64_t>(t0 + j), s.values);
      }
    }
  }

  // The k smallest candidates by (direct distance, row): the k-th smallest distance t by
  // selection, then every candidate below t and the ties at t with the smallest rows.
  void choose(const RowMatrix& queries, std::size_t i, std::size_t k, bool ordered, QueryCandidates& c, Scratch& s,
              std::int64_t* rows_out, double* distances_out) const {
    const auto list = c.finish(s.values);
    const std::size_t d = static_cast<std::size_t>(train_.cols());
    const double* q = queries.row(static_cast<Eigen::Index>(i)).data();
    s.distances.resize(list.size());
    for (std::size_t a = 0; a < list.size(); ++a)
      s.distances[a] = direct_distance(q, train_.row(list[a].row).data(), d, metric_);
    s.values.assign(s.distances.begin(), s.distances.end());
    const double t = selection::kth_smallest_inplace<double>(s.values, k - 1);
    s.chosen.clear();
    s.ties.clear();
    for (std::size_t a = 0; a < list.size(); ++a) {
      if (s.distances[a] < t) s.chosen.emplace_back(s.distances[a], list[a].row);
      if (s.distances[a] == t) s.ties.push_back(list[a].row);
    }
    std::sort(s.ties.begin(), s.ties.end());  // ties at t: the smallest rows (candidates come in any row order)
    for (std::size_t a = 0; s.chosen.size() < k; ++a) s.chosen.emplace_back(t, s.ties[a]);
    if (ordered) std::sort(s.chosen.begin(), s.chosen.end());
    for (std::size_t a = 0; a < k; ++a) {
      rows_out[a] = s.chosen[a].second;
      distances_out[a] = s.chosen[a].first;
    }
  }

  const RowMatrix& train_;
  Metric metric_;
  std::optional<TransposedBlocks> blocks_;  // euclidean only
  double max_norm_ = 0;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const RowMatrix& train, Metric metric) {
  return std::make_unique<CpuEngine>(train, metric);
}

}  // namespace robustfit::neighbors::detail
