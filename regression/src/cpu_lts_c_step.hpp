#pragma once
// The CPU engine's LTS C-step for one candidate, without a list of the h-subset's rows: the
// squared residuals, their h-th smallest value t (the bracketed selection), one pass that counts
// and sums the squares below t, then the Gram matrix of [X y] over the rows below t and the
// first rows equal to t - from blocks of gathered rows, or updated from the candidate's last
// subset by the rows that entered and left (SubsetState). Work is split into fixed row chunks
// (common::row_chunk_count) whose partial results are added in chunk order, so the result is
// the same whether the chunks run on one thread (candidates in parallel) or on all of them
// (fewer candidates than threads).
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace robustfit::regression::detail {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// [X y] row-major (the row chunks in parallel): gathering a row of an h-subset is one
// contiguous copy.
RowMajorMatrix augmented_rows(const Eigen::MatrixXd& X, const Eigen::VectorXd& y);

// Whether `candidates` candidates over n rows go one after another, each over all threads (their
// row chunks spread), rather than one candidate per thread: when that keeps more threads busy.
// On 16 cores a group of 8 candidates at n = 10^5 (3 chunks) ran one after the other on 3
// threads, 5x slower than on 2 cores. Either way gives the same numbers.
bool candidates_in_turn(std::size_t candidates, std::size_t n);

// One candidate's squares against a threshold chosen elsewhere (the distributed engine's, over
// all ranks' squares).
struct CountAtThreshold {
  double sum_below = 0;    // the sum of the squares below t, added as h_subset adds it
  std::size_t below = 0;   // #{square < t}
  std::size_t ties = 0;    // #{square == t}
};

// One worker's buffers, grown to n once and reused by every candidate it handles.
struct CStepScratch {
  std::vector<double> squares;
  std::vector<double> selection;
};

// The h-subset of one candidate: its objective (the sum of the h smallest squares, ties at t
// counted once each) and the lower triangle of its (p+1) x (p+1) Gram matrix [X y]^T [X y].
struct HSubset {
  double objective = 0;
  double threshold = 0;  // t, the h-th smallest square
  Eigen::MatrixXd gram;  // empty when only the objective was asked for
};

// What a candidate's next C-step can start from: its last h-subset (in[i] = 1 for its rows) and
// that subset's Gram matrix. The next subset's Gram matrix is then this one plus the rows that
// enter minus the rows that leave - near convergence a handful - instead of h rows afresh.
struct SubsetState {
  std::vector<std::uint8_t> in;    // empty: nothing to start from
  Eigen::MatrixXd gram;
  Eigen::VectorXd fresh_diagonal;  // the diagonal when last computed afresh
  Eigen::VectorXd churn;           // the diagonals of the rows added and removed since
  std::size_t changed = 0;         // rows that changed in the last step
  double threshold = -1;           // the last h-th smallest square (< 0: none)
  double step = 0;                 // its last relative change: the next one is looked for within 2x
};

class CpuLtsCStep {
 public:
  // X column-major (n x p), `augmented` the same rows row-major with y as a last column.
  // `by_sort`: t by a full sort (sort & choose) instead of a selection; nothing else differs.
  CpuLtsCStep(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const RowMajorMatrix& augmented, bool by_sort)
      : X_(X), y_(y), augmented_(augmented), by_sort_(by_sort) {}

  // Squared residuals of the candidates (columns of betas) on rows [begin, end): candidate c's
  // at out[c * stride + i].
  void squares(const Eigen::Ref<const Eigen::MatrixXd>& betas, std::size_t begin, std::size_t end, double* out,
               std::size_t stride) const;
  // All n squared residuals of one candidate into `out`; `all_threads` spreads the row chunks
  // over every hardware thread (the same numbers either way).
  void squares(const Eigen::Ref<const Eigen::MatrixXd>& beta, bool all_threads, std::vector<double>& out) const;

  // The h-subset of a candidate's n squared residuals; the Gram matrix only `with_gram`,
  // updated from `state` where that holds a subset (and then left in it). `all_threads` spreads
  // the row chunks over every hardware thread.
  HSubset h_subset(std::span<const double> squares, std::size_t h, bool with_gram, bool all_threads,
                   std::vector<double>& selection_scratch, SubsetState* state = nullptr) const;

  // Against a threshold t chosen elsewhere: the sum and count of the squares below t and the
  // count equal to t (h_subset's pass); the lower triangle of the Gram matrix of [X y] over the
  // rows below t and the first `take` rows equal to t in row order (h_subset's afresh).
  CountAtThreshold count_at(std::span<const double> squares, double t, bool all_threads) const;
  Eigen::MatrixXd gram_at(std::span<const double> squares, double t, std::size_t take, bool all_threads) const;

  // The rows of that h-subset, ascending (for a QR refit when the Gram matrix is too ill
  // conditioned).
  std::vector<std::size_t> subset_rows(std::span<const double> squares, const HSubset& subset, std::size_t h) const;

 private:
  // The lower triangle of the Gram matrix of [X y] over the rows below t and tie_rows, afresh.
  Eigen::MatrixXd gram_afresh(std::span<const double> squares, double t, std::span<const std::size_t> tie_rows,
                              bool all_threads) const;
  // The k-th smallest of the squares (0-based).
  double threshold(std::span<const double> values, std::size_t k, bool all_threads, std::vector<double>& scratch,
                   const SubsetState* state) const;

  const Eigen::MatrixXd& X_;
  const Eigen::VectorXd& y_;
  const RowMajorMatrix& augmented_;
  bool by_sort_;
};

}  // namespace robustfit::regression::detail
