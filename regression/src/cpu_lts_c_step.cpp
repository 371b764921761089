#include "cpu_lts_c_step.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "robustfit/common/parallel.hpp"
#include "robustfit/common/target_clones.hpp"
#include "robustfit/selection/cpu_select.hpp"

namespace robustfit::regression::detail {
namespace {

// Rows gathered per Gram update: a (kBlock x (p+1)) block stays in L1/L2.
constexpr std::size_t kBlock = 256;
// Updating pays while few rows change: after a step that changed more than h / kMostChanged
// rows, the next Gram matrix is computed afresh.
constexpr std::size_t kMostChanged = 4;

// One row chunk's share of an h-subset.
struct ChunkPart {
  double sum_below = 0;
  std::size_t below = 0;
  std::vector<std::size_t> ties;  // rows equal to t, ascending
  std::vector<std::size_t> entered, left;  // rows that enter and leave the last subset
};

// Four doubles as one value (GCC/Clang vector extensions: AVX2 registers in the AVX2 clone, two
// SSE2 registers in the baseline; the same IEEE operations lane by lane, no FMA).
// Only inlined into the clones: no value of these types crosses a call (-Wpsabi's concern).
#pragma GCC diagnostic ignored "-Wpsabi"
using Lanes = double __attribute__((vector_size(32)));
using LaneMask = std::int64_t __attribute__((vector_size(32)));
// By reference, never by value: Clang refuses a 32-byte vector in a call's ABI from the
// baseline clone, which has no AVX (the fuzz preset's clang++ build).
inline void load_lanes(Lanes& v, const double* p) { std::memcpy(&v, p, sizeof v); }
inline void store_lanes(double* p, const Lanes& v) { std::memcpy(p, &v, sizeof v); }

// Squared residuals of `count` candidates (column c of B at B + c * b_stride) on rows
// [begin, end) of X (n x p, column-major): candidate c's at out[c * stride + i]. Row blocks keep
// their slice of X in L1 for every candidate; the arithmetic of a row, y - x_0 b_0 - x_1 b_1 -
// ..., is the same for any block, candidate count, thread or instruction set.
ROBUSTFIT_TARGET_CLONES void squares_kernel(const double* X, std::size_t n, std::size_t p, const double* y, const double* B,
                                            std::size_t b_stride, std::size_t count, std::size_t begin, std::size_t end,
                                            double* out, std::size_t stride) {
  constexpr std::size_t kRows = 512;
  // Eight rows at a time stay in registers through all p terms (they went to memory and back
  // once per predictor); each lane computes y - x_0 b_0 - x_1 b_1 - ... as the scalar tail does.
  for (std::size_t first = begin; first < end; first += kRows) {
    const std::size_t last = std::min(end, first + kRows);
    for (std::size_t c = 0; c < count; ++c) {
      double* r = out + c * stride;
      const double* b = B + c * b_stride;
      std::size_t i = first;
      for (; i + 8 <= last; i += 8) {
        Lanes a0, a1, x0, x1;
        load_lanes(a0, y + i);
        load_lanes(a1, y + i + 4);
        for (std::size_t j = 0; j < p; ++j) {
          const double* x = X + j * n + i;
          const Lanes bj = {b[j], b[j], b[j], b[j]};
          load_lanes(x0, x);
          load_lanes(x1, x + 4);
          a0 -= x0 * bj;
          a1 -= x1 * bj;
        }
        store_lanes(r + i, a0 * a0);
        store_lanes(r + i + 4, a1 * a1);
      }
      for (; i < last; ++i) {
        double acc = y[i];
        for (std::size_t j = 0; j < p; ++j) acc -= X[j * n + i] * b[j];
        r[i] = acc * acc;
      }
    }
  }
}

// Sum and count of the squares below t (four partial sums, so that it vectorises: the same
// numbers on every path), count of those equal to t.
struct Below {
  double sum = 0;
  std::size_t count = 0, at = 0;
};
ROBUSTFIT_TARGET_CLONES Below count_below(const double* squares, std::size_t begin, std::size_t end, double t) {
  double sums[4] = {0, 0, 0, 0};
  std::size_t below = 0, at = 0, i = begin;
  for (; i + 4 <= end; i += 4) {
    for (std::size_t u = 0; u < 4; ++u) {
      const double v = squares[i + u];
      sums[u] += v < t ? v : 0.0;
      below += v < t;
      at += v == t;
    }
  }
  for (; i < end; ++i) {
    sums[0] += squares[i] < t ? squares[i] : 0.0;
    below += squares[i] < t;
    at += squares[i] == t;
  }
  return {(sums[0] + sums[1]) + (sums[2] + sums[3]), below, at};
}

// count_below's sum and count, the rows that enter and leave `in` (when given: in[i] becomes
// square < t) and the rows equal to t (ascending, into `ties`) in one pass over the squares; the
// sum is count_below's, added in the same order (square i into partial sum (i - begin) % 4).
ROBUSTFIT_TARGET_CLONES Below below_and_changes(const double* squares, std::size_t begin, std::size_t end, double t,
                                                std::uint8_t* in, std::vector<std::size_t>& entered,
                                                std::vector<std::size_t>& left, std::vector<std::size_t>& ties) {
  const auto note = [&](std::size_t row, bool now) {
    if (in == nullptr || now == static_cast<bool>(in[row])) return;
    (now ? entered : left).push_back(row);
    in[row] = now;
  };
  const Lanes tv = {t, t, t, t};
  Lanes sums = {0, 0, 0, 0};
  LaneMask counts = {0, 0, 0, 0};
  std::size_t i = begin;
  for (; i + 8 <= end; i += 8) {
    Lanes v0, v1;
    load_lanes(v0, squares + i);
    load_lanes(v1, squares + i + 4);
    const LaneMask lt0 = v0 < tv, lt1 = v1 < tv;  // -1 where below
    sums += __builtin_bit_cast(Lanes, __builtin_bit_cast(LaneMask, v0) & lt0);  // v below t, else +0.0
    sums += __builtin_bit_cast(Lanes, __builtin_bit_cast(LaneMask, v1) & lt1);
    counts -= lt0;
    counts -= lt1;
    const LaneMask eq = (v0 == tv) | (v1 == tv);
    if ((eq[0] | eq[1] | eq[2] | eq[3]) != 0)
      for (std::size_t u = 0; u < 8; ++u)
        if (squares[i + u] == t) ties.push_back(i + u);
    if (in != nullptr) {
      std::uint64_t now = 0, was = 0;
      for (unsigned u = 0; u < 4; ++u) {
        now |= static_cast<std::uint64_t>(lt0[u] & 1) << (8 * u);
        now |= static_cast<std::uint64_t>(lt1[u] & 1) << (8 * (u + 4));
      }
      std::memcpy(&was, in + i, 8);
      if (now != was)
        for (std::size_t u = 0; u < 8; ++u) note(i + u, squares[i + u] < t);
    }
  }
  double sum[4] = {sums[0], sums[1], sums[2], sums[3]};
  std::size_t below = static_cast<std::size_t>(counts[0] + counts[1] + counts[2] + counts[3]);
  for (; i + 4 <= end; i += 4) {
    for (std::size_t u = 0; u < 4; ++u) {
      const double v = squares[i + u];
      sum[u] += v < t ? v : 0.0;
      below += v < t;
      if (v == t) ties.push_back(i + u);
      note(i + u, v < t);
    }
  }
  for (; i < end; ++i) {
    const double v = squares[i];
    sum[0] += v < t ? v : 0.0;
    below += v < t;
    if (v == t) ties.push_back(i);
    note(i, v < t);
  }
  return {(sum[0] + sum[1]) + (sum[2] + sum[3]), below, 0};
}

// Adds the Gram matrix of the first `rows` rows of Z (column-major) to the lower triangle of G.
void add_gram(const Eigen::MatrixXd& Z, Eigen::Index rows, Eigen::MatrixXd& G) {
  const Eigen::Index q = Z.cols();
  for (Eigen::Index a = 0; a < q; ++a)
    for (Eigen::Index b = a; b < q; ++b) G(b, a) += Z.col(a).head(rows).dot(Z.col(b).head(rows));
}

// Adds the Gram matrix of `count` (<= kBlock) rows of `augmented`, numbered in `rows`, to the
// lower triangle of G, through the gathered block Z (kBlock x (p+1), column-major).
void add_gram_of_rows(const RowMajorMatrix& augmented, const std::size_t* rows, std::size_t count, Eigen::MatrixXd& Z,
                      Eigen::MatrixXd& G) {
  const auto q = static_cast<std::size_t>(augmented.cols());
  double* z = Z.data();
  for (std::size_t r = 0; r < count; ++r) {
    const double* row = augmented.data() + rows[r] * q;
    for (std::size_t a = 0; a < q; ++a) z[a * kBlock + r] = row[a];
  }
  add_gram(Z, static_cast<Eigen::Index>(count), G);
}

// The lower triangle of the Gram matrix of the rows in [begin, end) whose square is below t,
// kBlock gathered rows at a time.
Eigen::MatrixXd gram_below(const RowMajorMatrix& augmented, const double* squares, double t, std::size_t begin, std::size_t end) {
  const Eigen::Index q = augmented.cols();
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(q, q);
  Eigen::MatrixXd Z(static_cast<Eigen::Index>(kBlock), q);
  std::array<std::size_t, kBlock + 1> picked{};
  for (std::size_t i = begin; i < end;) {
    std::size_t k = 0;
    for (; i < end && k < kBlock; ++i) {  // branch-free
      picked[k] = i;
      k += squares[i] < t;
    }
    add_gram_of_rows(augmented, picked.data(), k, Z, G);
  }
  return G;
}

// The lower triangle of the Gram matrix of the given rows, kBlock gathered rows at a time.
Eigen::MatrixXd gram_of_rows(const RowMajorMatrix& augmented, std::span<const std::size_t> rows) {
  const Eigen::Index q = augmented.cols();
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(q, q);
  if (rows.empty()) return G;
  Eigen::MatrixXd Z(static_cast<Eigen::Index>(kBlock), q);
  for (std::size_t first = 0; first < rows.size(); first += kBlock) {
    add_gram_of_rows(augmented, rows.data() + first, std::min(kBlock, rows.size() - first), Z, G);
  }
  return G;
}

template <class Body>
void over_chunks(std::size_t n, bool all_threads, Body&& body) {
  if (all_threads) {
    common::parallel_rows(n, body);
  } else {
    for (std::size_t c = 0, chunks = common::row_chunk_count(n); c < chunks; ++c)
      body(c, common::row_chunk_begin(n, c), common::row_chunk_begin(n, c + 1));
  }
}

// Adds to `state` the Gram matrices of the rows that entered its subset and subtracts those of
// the rows that left (per row chunk); false when its Gram matrix should be computed afresh
// instead (too many rows moved since it last was).
bool update_gram(const RowMajorMatrix& augmented, std::size_t n, const std::vector<ChunkPart>& parts, bool all_threads,
                 SubsetState& state) {
  // The Gram matrices of the rows that entered and left, per chunk, added in chunk order.
  std::vector<Eigen::MatrixXd> entered(parts.size()), left(parts.size());
  over_chunks(n, all_threads, [&](std::size_t c, std::size_t, std::size_t) {
    entered[c] = gram_of_rows(augmented, parts[c].entered);
    left[c] = gram_of_rows(augmented, parts[c].left);
  });
  state.changed = 0;
  for (std::size_t c = 0; c < parts.size(); ++c) {
    state.gram += entered[c] - left[c];
    state.churn += entered[c].diagonal() + left[c].diagonal();
    state.changed += parts[c].entered.size() + parts[c].left.size();
  }
  // Each row added or removed may leave a rounding error of its own size: while the rows moved
  // weigh less than the subset itself (column by column), the updated matrix is as accurate as
  // one computed afresh; beyond that it is computed afresh.
  return (state.churn.array() <= state.fresh_diagonal.array()).all();
}

}  // namespace

RowMajorMatrix augmented_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y) {
  RowMajorMatrix rows(X.rows(), X.cols() + 1);
  common::parallel_rows(static_cast<std::size_t>(X.rows()), [&](std::size_t, std::size_t begin, std::size_t end) {
    const auto b = static_cast<Eigen::Index>(begin), m = static_cast<Eigen::Index>(end - begin);
    rows.middleRows(b, m).leftCols(X.cols()) = X.middleRows(b, m);
    rows.middleRows(b, m).col(X.cols()) = y.segment(b, m);
  });
  return rows;
}

double CpuLtsCStep::threshold(std::span<const double> values, std::size_t k, bool all_threads, std::vector<double>& scratch,
                              const SubsetState* state) const {
  if (by_sort_) {
    selection::require_no_nan<double>(values);
    scratch.assign(values.begin(), values.end());
    std::sort(scratch.begin(), scratch.end());
    return scratch[k];
  }
  if (all_threads) return selection::kth_smallest_parallel<double>(values, k);
  if (state != nullptr && state->threshold > 0) {  // near the last one: no sample needed
    const double width = state->threshold * std::clamp(2 * state->step, 1e-6, 0.5);
    return selection::kth_smallest_bracketed<double>(values, k, scratch, state->threshold - width, state->threshold + width);
  }
  return selection::kth_smallest_bracketed<double>(values, k, scratch);
}

void CpuLtsCStep::squares(const Eigen::Ref<const Eigen::MatrixXd>& betas, std::size_t begin, std::size_t end, double* out,
                          std::size_t stride) const {
  squares_kernel(X_.data(), static_cast<std::size_t>(X_.rows()), static_cast<std::size_t>(X_.cols()), y_.data(), betas.data(),
                 static_cast<std::size_t>(betas.outerStride()), static_cast<std::size_t>(betas.cols()), begin, end, out, stride);
}

void CpuLtsCStep::squares(const Eigen::Ref<const Eigen::MatrixXd>& beta, bool all_threads, std::vector<double>& out) const {
  const auto n = static_cast<std::size_t>(X_.rows());
  out.resize(n);
  over_chunks(n, all_threads, [&](std::size_t, std::size_t begin, std::size_t end) { squares(beta, begin, end, out.data(), n); });
}

HSubset CpuLtsCStep::h_subset(std::span<const double> values, std::size_t h, bool with_gram, bool all_threads,
                              std::vector<double>& selection_scratch, SubsetState* state) const {
  const auto n = static_cast<std::size_t>(X_.rows());
  const Eigen::Index q = augmented_.cols();
  const double* squares = values.data();
  HSubset out;
  const double t = out.threshold = threshold(values, h - 1, all_threads, selection_scratch, state);
  if (state != nullptr) {
    state->step = state->threshold > 0 ? std::abs(t - state->threshold) / state->threshold : 0;
    state->threshold = t;
  }
  // With a subset to start from, the rows that enter and leave it are noted.
  const bool update = with_gram && state != nullptr && !state->in.empty() && state->changed <= h / kMostChanged;
  std::uint8_t* in = update ? state->in.data() : nullptr;
  std::vector<ChunkPart> parts(common::row_chunk_count(n));
  over_chunks(n, all_threads, [&](std::size_t c, std::size_t begin, std::size_t end) {
    ChunkPart& part = parts[c];
    // Rows at t are noted as leaving or staying out here; the ties taken are put back below.
    const Below counted = with_gram ? below_and_changes(squares, begin, end, t, in, part.entered, part.left, part.ties)
                                    : count_below(squares, begin, end, t);
    part.sum_below = counted.sum;
    part.below = counted.count;
  });
  std::size_t below = 0;
  double sum = 0;
  for (const ChunkPart& part : parts) {
    below += part.below;
    sum += part.sum_below;
  }
  // t is the h-th smallest: fewer than h rows lie below it and at least h at or below it; the
  // first h - below rows equal to t (in row order) complete the subset.
  const std::size_t ties = h - below;
  out.objective = sum + static_cast<double>(ties) * t;
  if (!with_gram) return out;
  std::vector<std::size_t> tie_rows;
  for (ChunkPart& part : parts) {
    for (std::size_t i = 0; i < part.ties.size() && tie_rows.size() < ties; ++i) {
      const std::size_t row = part.ties[i];
      tie_rows.push_back(row);
      if (!update) continue;
      // The pass left it out of the subset: it stays in (if it was in) or enters.
      const auto it = std::lower_bound(part.left.begin(), part.left.end(), row);
      if (it != part.left.end() && *it == row) part.left.erase(it);
      else part.entered.push_back(row);
      in[row] = 1;
    }
  }
  if (update && update_gram(augmented_, n, parts, all_threads, *state)) {
    out.gram = state->gram;
    return out;
  }
  out.gram = gram_afresh(values, t, tie_rows, all_threads);
  if (state != nullptr) {
    state->in.resize(n);
    std::uint8_t* mask = state->in.data();
    over_chunks(n, all_threads, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) mask[i] = squares[i] < t;
    });
    for (std::size_t row : tie_rows) mask[row] = 1;
    state->gram = out.gram;
    state->fresh_diagonal = out.gram.diagonal();
    state->churn = Eigen::VectorXd::Zero(q);
    state->changed = 0;
  }
  return out;
}

CountAtThreshold CpuLtsCStep::count_at(std::span<const double> squares, double t, bool all_threads) const {
  const std::size_t n = squares.size();
  std::vector<Below> parts(common::row_chunk_count(n));
  over_chunks(n, all_threads, [&](std::size_t c, std::size_t begin, std::size_t end) { parts[c] = count_below(squares.data(), begin, end, t); });
  CountAtThreshold out;
  for (const Below& part : parts) out.sum_below += part.sum, out.below += part.count, out.ties += part.at;
  return out;
}

Eigen::MatrixXd CpuLtsCStep::gram_at(std::span<const double> squares, double t, std::size_t take, bool all_threads) const {
  std::vector<std::size_t> tie_rows;  // the first `take` rows equal to t
  for (std::size_t i = 0; i < squares.size() && tie_rows.size() < take; ++i)
    if (squares[i] == t) tie_rows.push_back(i);
  return gram_afresh(squares, t, tie_rows, all_threads);
}

Eigen::MatrixXd CpuLtsCStep::gram_afresh(std::span<const double> squares, double t, std::span<const std::size_t> tie_rows,
                                         bool all_threads) const {
  const std::size_t n = squares.size();
  std::vector<Eigen::MatrixXd> grams(common::row_chunk_count(n));
  over_chunks(n, all_threads, [&](std::size_t c, std::size_t begin, std::size_t end) { grams[c] = gram_below(augmented_, squares.data(), t, begin, end); });
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(augmented_.cols(), augmented_.cols());
  for (const Eigen::MatrixXd& G : grams) gram += G;
  for (std::size_t row : tie_rows) {
    const Eigen::RowVectorXd z = augmented_.row(static_cast<Eigen::Index>(row));
    gram.selfadjointView<Eigen::Lower>().rankUpdate(z.transpose());
  }
  return gram;
}

bool candidates_in_turn(std::size_t candidates, std::size_t n) {
  const std::size_t threads = common::usable_cpus(), chunks = common::row_chunk_count(n);
  return std::min(candidates, threads) < std::min(chunks, threads);
}

std::vector<std::size_t> CpuLtsCStep::subset_rows(std::span<const double> squares, const HSubset& subset, std::size_t h) const {
  const double t = subset.threshold;
  const auto below = static_cast<std::size_t>(std::count_if(squares.begin(), squares.end(), [t](double v) { return v < t; }));
  std::size_t ties = h - below;
  std::vector<std::size_t> rows;
  rows.reserve(h);
  for (std::size_t i = 0; i < squares.size(); ++i) {
    const double v = squares[i];
    if (v < t || (v == t && ties > 0 && ties--)) rows.push_back(i);
  }
  return rows;
}

}  // namespace robustfit::regression::detail
